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

package clustersummary

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/stagecoach-dev/stagecoach/internal/deploy/restart"
)

func TestReadsContent(t *testing.T) {
	reader := func(cm string) restart.Workload {
		w := restart.Workload{Kind: "Deployment", Namespace: "ns", Name: "w"}
		w.Template.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm}}}}}
		return w
	}
	before := map[configKey]string{{"ConfigMap", "ns", "app"}: "h1", {"Secret", "ns", "app"}: "s1"}
	after := map[configKey]string{{"ConfigMap", "ns", "app"}: "h2", {"Secret", "ns", "app"}: "s1"}
	h1, names := readsContent(reader("app"), before)
	if h1 == "" || names != "ConfigMap ns/app" {
		t.Fatalf("readsContent = %q, %q", h1, names)
	}
	if h2, _ := readsContent(reader("app"), after); h2 == h1 {
		t.Error("a changed ConfigMap leaves the hash as it was")
	}
	if h, _ := readsContent(reader("elsewhere"), before); h != "" {
		t.Errorf("a workload reading none of the profile's objects hashes %q", h)
	}
	other := reader("app")
	other.Namespace = "other"
	if h, _ := readsContent(other, before); h != "" {
		t.Errorf("a ConfigMap of the same name in another namespace counts (%q)", h)
	}
}
