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

// Package restart restarts workloads on a managed cluster as `kubectl rollout restart` does: a
// new kubectl.kubernetes.io/restartedAt annotation on the pod template makes the workload's own
// controller replace its pods, under its update strategy.
package restart

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// RestartedAtAnnotation is the pod template annotation kubectl sets to restart a workload.
const RestartedAtAnnotation = "kubectl.kubernetes.io/restartedAt"

// FieldManager names Stagecoach's restarts in the workloads' managedFields.
const FieldManager = "stagecoach-restart"

// Kinds are the workloads that can be restarted, with their resources.
var Kinds = map[string]schema.GroupVersionResource{
	"Deployment":  {Group: "apps", Version: "v1", Resource: "deployments"},
	"StatefulSet": {Group: "apps", Version: "v1", Resource: "statefulsets"},
	"DaemonSet":   {Group: "apps", Version: "v1", Resource: "daemonsets"},
}

// Workload is one Deployment, StatefulSet or DaemonSet as read from the cluster.
type Workload struct {
	Kind, Namespace, Name string
	// Annotations are the workload's own (not its pod template's).
	Annotations map[string]string
	Template    corev1.PodTemplateSpec
}

func (w Workload) String() string { return w.Kind + " " + w.Namespace + "/" + w.Name }

// List reads every restartable workload of a namespace.
func List(ctx context.Context, dyn dynamic.Interface, namespace string) ([]Workload, error) {
	var out []Workload
	for _, kind := range []string{"Deployment", "StatefulSet", "DaemonSet"} {
		list, err := dyn.Resource(Kinds[kind]).Namespace(namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("listing %ss in %s: %w", kind, namespace, err)
		}
		for i := range list.Items {
			w, err := fromObject(kind, &list.Items[i])
			if err != nil {
				return nil, err
			}
			out = append(out, w)
		}
	}
	return out, nil
}

func fromObject(kind string, u *unstructured.Unstructured) (Workload, error) {
	w := Workload{Kind: kind, Namespace: u.GetNamespace(), Name: u.GetName(), Annotations: u.GetAnnotations()}
	tmpl, found, err := unstructured.NestedMap(u.Object, "spec", "template")
	if err != nil || !found {
		return w, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(tmpl, &w.Template); err != nil {
		return w, fmt.Errorf("reading the pod template of %s: %w", w, err)
	}
	return w, nil
}

// Refs are the ConfigMaps and Secrets a pod template reads, by name.
type Refs struct{ ConfigMaps, Secrets []string }

// Reads reports the ConfigMaps and Secrets a pod template reads: volumes (projected ones too),
// envFrom and env valueFrom, of every container, init and ephemeral containers included.
func Reads(t *corev1.PodTemplateSpec) Refs {
	var r Refs
	for _, v := range t.Spec.Volumes {
		if v.ConfigMap != nil {
			r.ConfigMaps = append(r.ConfigMaps, v.ConfigMap.Name)
		}
		if v.Secret != nil {
			r.Secrets = append(r.Secrets, v.Secret.SecretName)
		}
		if v.Projected != nil {
			for _, s := range v.Projected.Sources {
				if s.ConfigMap != nil {
					r.ConfigMaps = append(r.ConfigMaps, s.ConfigMap.Name)
				}
				if s.Secret != nil {
					r.Secrets = append(r.Secrets, s.Secret.Name)
				}
			}
		}
	}
	envs := func(from []corev1.EnvFromSource, env []corev1.EnvVar) {
		for _, f := range from {
			if f.ConfigMapRef != nil {
				r.ConfigMaps = append(r.ConfigMaps, f.ConfigMapRef.Name)
			}
			if f.SecretRef != nil {
				r.Secrets = append(r.Secrets, f.SecretRef.Name)
			}
		}
		for _, e := range env {
			if e.ValueFrom == nil {
				continue
			}
			if e.ValueFrom.ConfigMapKeyRef != nil {
				r.ConfigMaps = append(r.ConfigMaps, e.ValueFrom.ConfigMapKeyRef.Name)
			}
			if e.ValueFrom.SecretKeyRef != nil {
				r.Secrets = append(r.Secrets, e.ValueFrom.SecretKeyRef.Name)
			}
		}
	}
	for _, c := range slices.Concat(t.Spec.InitContainers, t.Spec.Containers) {
		envs(c.EnvFrom, c.Env)
	}
	for _, c := range t.Spec.EphemeralContainers {
		envs(c.EnvFrom, c.Env)
	}
	slices.Sort(r.ConfigMaps)
	slices.Sort(r.Secrets)
	r.ConfigMaps, r.Secrets = slices.Compact(r.ConfigMaps), slices.Compact(r.Secrets)
	return r
}

// Restart sets the restartedAt annotation of w's pod template to at, and the given annotations
// on w itself, in one patch: a record kept with the restart cannot disagree with it.
func Restart(ctx context.Context, dyn dynamic.Interface, w Workload, at time.Time, annotations map[string]string) error {
	gvr, ok := Kinds[w.Kind]
	if !ok {
		return fmt.Errorf("%s cannot be restarted", w)
	}
	body := map[string]any{
		"spec": map[string]any{"template": map[string]any{"metadata": map[string]any{
			"annotations": map[string]string{RestartedAtAnnotation: at.UTC().Format(time.RFC3339)},
		}}},
	}
	if len(annotations) > 0 {
		body["metadata"] = map[string]any{"annotations": annotations}
	}
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	_, err = dyn.Resource(gvr).Namespace(w.Namespace).Patch(ctx, w.Name, types.MergePatchType, data,
		metav1.PatchOptions{FieldManager: FieldManager})
	if err != nil {
		return fmt.Errorf("restarting %s: %w", w, err)
	}
	return nil
}

// Annotate sets annotations on w itself without restarting it.
func Annotate(ctx context.Context, dyn dynamic.Interface, w Workload, annotations map[string]string) error {
	data, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": annotations}})
	if err != nil {
		return err
	}
	_, err = dyn.Resource(Kinds[w.Kind]).Namespace(w.Namespace).Patch(ctx, w.Name, types.MergePatchType, data,
		metav1.PatchOptions{FieldManager: FieldManager})
	if err != nil {
		return fmt.Errorf("annotating %s: %w", w, err)
	}
	return nil
}

// Get reads one workload; kind is Deployment, StatefulSet or DaemonSet.
func Get(ctx context.Context, dyn dynamic.Interface, kind, namespace, name string) (Workload, error) {
	gvr, ok := Kinds[kind]
	if !ok {
		return Workload{}, fmt.Errorf("%s %s/%s cannot be restarted", kind, namespace, name)
	}
	u, err := dyn.Resource(gvr).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return Workload{}, err
	}
	return fromObject(kind, u)
}
