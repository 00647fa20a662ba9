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

package fleetsim

import (
	"net/http"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/utils/ptr"
)

func TestPatches(t *testing.T) {
	// Workloads never become ready here: the status written below stays as written.
	f := startFleet(t, Options{Clusters: 1, AvailableAfter: time.Hour})
	ctx := t.Context()
	cs := clientset(t, f.Clusters()[0])
	cms := cs.CoreV1().ConfigMaps("default")
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Data: map[string]string{"a": "1", "b": "2"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cm, err := cms.Patch(ctx, "p", types.MergePatchType, []byte(`{"data":{"a":null,"c":"3"}}`), metav1.PatchOptions{FieldManager: "merger"})
	if err != nil || cm.Data["a"] != "" || cm.Data["c"] != "3" || cm.Data["b"] != "2" {
		t.Fatalf("merge patch: %v %v", cm.Data, err)
	}
	cm, err = cms.Patch(ctx, "p", types.JSONPatchType, []byte(`[{"op":"replace","path":"/data/b","value":"20"}]`), metav1.PatchOptions{})
	if err != nil || cm.Data["b"] != "20" {
		t.Fatalf("JSON patch: %v %v", cm.Data, err)
	}
	if _, err := cms.Patch(ctx, "p", types.JSONPatchType, []byte(`[{"op":"test","path":"/data/b","value":"2"}]`), metav1.PatchOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("a failing JSON patch test: %v, want Invalid", err)
	}
	if _, err := cms.Patch(ctx, "p", types.MergePatchType, []byte(`{"metadata":{"resourceVersion":"1"}}`), metav1.PatchOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("a patch with a stale resourceVersion: %v, want Conflict", err)
	}

	deps := cs.AppsV1().Deployments("default")
	d := deployment("web", 1)
	d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, corev1.Container{Name: "sidecar", Image: "busybox"})
	if _, err := deps.Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A strategic merge patch merges containers by name.
	patched, err := deps.Patch(ctx, "web", types.StrategicMergePatchType,
		[]byte(`{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:2"}]}}}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var images []string
	for _, c := range patched.Spec.Template.Spec.Containers {
		images = append(images, c.Name+"="+c.Image)
	}
	if !slices.Equal(images, []string{"web=nginx:2", "sidecar=busybox"}) || patched.Generation != 2 {
		t.Errorf("after a strategic merge patch: containers %v, generation %d", images, patched.Generation)
	}

	// Writes to /status change the status only; writes to the object keep the status.
	patched.Status = appsv1.DeploymentStatus{ObservedGeneration: 42, Replicas: 7}
	patched.Spec.Replicas = ptr.To[int32](9)
	status, err := deps.UpdateStatus(ctx, patched, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if status.Status.Replicas != 7 || *status.Spec.Replicas != 1 || status.Generation != 2 {
		t.Fatalf("status update: replicas %d/%d, generation %d", status.Status.Replicas, *status.Spec.Replicas, status.Generation)
	}
	status.Status.Replicas = 100
	status.Spec.Replicas = ptr.To[int32](2)
	updated, err := deps.Update(ctx, status, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if updated.Status.Replicas != 7 || *updated.Spec.Replicas != 2 || updated.Generation != 3 {
		t.Fatalf("object update: replicas %d/%d, generation %d", updated.Status.Replicas, *updated.Spec.Replicas, updated.Generation)
	}

	dry, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dry"}}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil || dry.UID == "" {
		t.Fatalf("dry-run create: %v %v", dry, err)
	}
	if err := cms.Delete(ctx, "p", metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"dry", "p"} {
		_, err := cms.Get(ctx, name, metav1.GetOptions{})
		if exists := err == nil; exists != (name == "p") {
			t.Errorf("after dry runs, %s exists: %v (%v)", name, exists, err)
		}
	}
}

const gadgetCRD = `{
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "gadgets.example.com"},
  "spec": {"group": "example.com", "scope": "Cluster",
    "names": {"plural": "gadgets", "kind": "Gadget"},
    "versions": [
      {"name": "v1", "served": true, "storage": true, "subresources": {"status": {}}},
      {"name": "v1beta1", "served": true, "storage": false}]}}`

func TestCustomResources(t *testing.T) {
	f := startFleet(t, Options{Clusters: 2})
	c := f.Clusters()[0]
	ctx := t.Context()
	dc := dynamicClient(t, c)
	crd, err := parseObject([]byte(gadgetCRD))
	if err != nil {
		t.Fatal(err)
	}
	if crd, err = dc.Resource(crds).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	if len(conds) != 2 || conds[1].(map[string]any)["type"] != "Established" || conds[1].(map[string]any)["status"] != "True" {
		t.Errorf("CRD conditions %v", conds)
	}

	// Legacy discovery serves the new group too.
	disc := discovery.NewDiscoveryClientForConfigOrDie(restConfig(t, c))
	disc.UseLegacyDiscovery = true
	resources, err := disc.ServerResourcesForGroupVersion("example.com/v1beta1")
	if err != nil || len(resources.APIResources) == 0 || resources.APIResources[0].Name != "gadgets" || resources.APIResources[0].Namespaced {
		t.Fatalf("discovery of example.com/v1beta1: %v %v", resources, err)
	}

	v1 := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}
	v1beta1 := v1
	v1beta1.Version = "v1beta1"
	g := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1beta1", "kind": "Gadget",
		"metadata": map[string]any{"name": "g"}, "spec": map[string]any{"size": int64(3)}, "status": map[string]any{"ok": true}}}
	created, err := dc.Resource(v1beta1).Create(ctx, g, metav1.CreateOptions{})
	if err != nil || created.Object["status"] != nil {
		t.Fatalf("create through v1beta1: %v (status %v, want none: it has a status subresource)", err, created.Object["status"])
	}
	got, err := dc.Resource(v1).Get(ctx, "g", metav1.GetOptions{})
	if err != nil || got.GetAPIVersion() != "example.com/v1" {
		t.Fatalf("read through v1: %v %v", got, err)
	}
	if _, err := dc.Resource(v1).Patch(ctx, "g", types.StrategicMergePatchType, []byte(`{"spec":{"size":4}}`), metav1.PatchOptions{}); !apierrors.IsUnsupportedMediaType(err) {
		t.Errorf("strategic merge patch of a custom resource: %v, want 415", err)
	}
	if _, err := dynamicClient(t, f.Clusters()[1]).Resource(v1).List(ctx, metav1.ListOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("another cluster serves the CRD: %v", err)
	}

	if err := dc.Resource(crds).Delete(ctx, "gadgets.example.com", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = dc.Resource(v1).List(ctx, metav1.ListOptions{})
	if status, ok := err.(apierrors.APIStatus); !ok || status.Status().Code != http.StatusNotFound {
		t.Errorf("listing gadgets after the CRD went: %v, want 404", err)
	}
}
