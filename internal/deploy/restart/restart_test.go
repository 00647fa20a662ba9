/*
Copyright 2026 The Stagecoach Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package restart

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestReads(t *testing.T) {
	tmpl := corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		Volumes: []corev1.Volume{
			{Name: "a", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm-vol"}}}},
			{Name: "b", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s-vol"}}},
			{Name: "c", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "cm-proj"}}},
				{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "s-proj"}}},
			}}}},
		},
		InitContainers: []corev1.Container{{EnvFrom: []corev1.EnvFromSource{
			{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "s-init"}}},
		}}},
		Containers: []corev1.Container{{
			EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm-envfrom"}}}},
			Env: []corev1.EnvVar{
				{Name: "X", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "cm-vol"}, Key: "k"}}},
				{Name: "Y", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "s-env"}, Key: "k"}}},
				{Name: "Z", Value: "plain"},
			},
		}},
	}}
	got := Reads(&tmpl)
	if want := []string{"cm-envfrom", "cm-proj", "cm-vol"}; !slices.Equal(got.ConfigMaps, want) {
		t.Errorf("ConfigMaps %v, want %v", got.ConfigMaps, want)
	}
	if want := []string{"s-env", "s-init", "s-proj", "s-vol"}; !slices.Equal(got.Secrets, want) {
		t.Errorf("Secrets %v, want %v", got.Secrets, want)
	}
}
