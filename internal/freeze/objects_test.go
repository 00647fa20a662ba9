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

package freeze

import (
	"bytes"
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

func TestTemplateResourceRefs(t *testing.T) {
	spec := &configv1beta1.Spec{TemplateResourceRefs: []configv1beta1.TemplateResourceRef{
		{Identifier: "a", Resource: corev1.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "apps", Name: "web"}},
		{Identifier: "b", Resource: corev1.ObjectReference{Kind: "ConfigMap", Name: "in-cluster-namespace"}},
		{Identifier: "c", Resource: corev1.ObjectReference{Kind: "ConfigMap", Namespace: "x", Name: "{{ .Cluster.metadata.name }}"}},
		{Identifier: "d", Resource: corev1.ObjectReference{Kind: "Secret", Namespace: "x", Name: "creds"}},
	}}
	refs := SpecRefs(spec)
	want := []Ref{{Kind: "apps/v1/Deployment", Namespace: "apps", Name: "web"}, {Kind: "v1/Secret", Namespace: "x", Name: "creds"}}
	if len(refs) != 2 || refs[0] != want[0] || refs[1] != want[1] {
		t.Fatalf("refs %v: per-cluster references are read live", refs)
	}
	if !Polled(refs) || Polled(refs[1:]) {
		t.Error("Polled: only kinds other than ConfigMap and Secret are polled")
	}
	if gvk := refs[0].GroupVersionKind(); gvk.Group != "apps" || gvk.Version != "v1" || gvk.Kind != "Deployment" {
		t.Errorf("gvk %v", gvk)
	}
	FreezeSpec(spec, map[Ref]string{refs[0]: "web-0123456789"})
	if r := spec.TemplateResourceRefs[0].Resource; r.Kind != "Secret" || r.Name != "web-0123456789" || r.Namespace != "apps" {
		t.Errorf("frozen ref %+v", r)
	}
	keep := Keep(map[Ref]string{refs[1]: "creds-0123456789"}, spec)
	if !keep[Ref{Kind: "Secret", Namespace: "apps", Name: "web-0123456789"}] || !keep[Ref{Kind: "Secret", Namespace: "x", Name: "creds-0123456789"}] {
		t.Errorf("keep %v: copies of objects are Secrets", keep)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "creds", Namespace: "x"}}
	if !Reads(refs, "Secret", secret) || Reads(refs, "ConfigMap", secret) {
		t.Error("Reads: an object of templateResourceRefs is read")
	}
}

// ReadSpec keeps objects as templates see them: a status change of an object whose status
// changes are ignored makes no new version, and the copy gives the object back.
func TestObjectCopies(t *testing.T) {
	ctx := context.Background()
	deploy := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "apps"},
		"spec":     map[string]any{"replicas": int64(3)},
		"status":   map[string]any{"readyReplicas": int64(1)},
	}}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(deploy).Build()
	spec := &configv1beta1.Spec{TemplateResourceRefs: []configv1beta1.TemplateResourceRef{{Identifier: "web", IgnoreStatusChanges: true,
		Resource: corev1.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "apps", Name: "web"}}}}
	before, err := ReadSpec(ctx, tenancy.Admin(c), spec)
	if err != nil || len(before) != 1 || before[0].Object == nil {
		t.Fatalf("read %v %v", before, err)
	}
	_ = unstructured.SetNestedField(deploy.Object, int64(3), "status", "readyReplicas")
	if err := c.Update(ctx, deploy); err != nil {
		t.Fatal(err)
	}
	after, _ := ReadSpec(ctx, tenancy.Admin(c), spec)
	if !bytes.Equal(Digest(before), Digest(after)) {
		t.Error("a status change makes a new version although status changes are ignored")
	}
	owner := Owner{Object: &configv1beta1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Name: "p", UID: "u"}}, Kind: "ClusterProfile"}
	names, err := Ensure(ctx, c, c.Scheme(), owner, after)
	if err != nil {
		t.Fatal(err)
	}
	name := names[before[0].Ref]
	copied, err := ReadObject(ctx, c, ObjectRef("v1", "Secret", Namespace(), name))
	if err != nil || copied == nil {
		t.Fatalf("copy %q: %v", name, err)
	}
	// A released copy (its promotion deleted, its profile kept) still reads as the object.
	if err := Release(ctx, c, owner); err != nil {
		t.Fatal(err)
	}
	copied, _ = ReadObject(ctx, c, ObjectRef("v1", "Secret", Namespace(), name))
	obj, err := CopiedObject(copied)
	if err != nil || obj == nil {
		t.Fatalf("copied object: %v %v", obj, err)
	}
	if obj.GetName() != "web" || obj.Object["status"] != nil || obj.Object["spec"].(map[string]any)["replicas"] != float64(3) {
		t.Errorf("copied object %v", obj.Object)
	}
	var secret corev1.Secret
	_ = c.Get(ctx, client.ObjectKey{Namespace: Namespace(), Name: name}, &secret)
	if secret.Type != ObjectCopyType || secret.Immutable == nil || !*secret.Immutable {
		t.Errorf("copy secret %+v", secret)
	}
}
