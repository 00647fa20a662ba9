//go:build e2e

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

package schema_test

import (
	"context"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/stagecoach-dev/stagecoach/config/crd"
)

// versionsNamespace holds the namespaced objects of the version tests.
const versionsNamespace = "versions"

// fleetKind is one Kubefleet CRD as installed: its resource and the versions it serves.
type fleetKind struct {
	kind       string
	resource   schema.GroupResource
	namespaced bool
	versions   []string
	status     bool
}

// fleetKinds reads the Kubefleet CRDs the sandbox installed (config/crd).
func fleetKinds(t *testing.T) []fleetKind {
	t.Helper()
	files, err := fs.Glob(crd.Files, "*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var out []fleetKind
	for _, f := range files {
		data, err := fs.ReadFile(crd.Files, f)
		if err != nil {
			t.Fatal(err)
		}
		c := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(data, c); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(c.Spec.Group, ".kubernetes-fleet.io") {
			continue
		}
		k := fleetKind{kind: c.Spec.Names.Kind, resource: schema.GroupResource{Group: c.Spec.Group, Resource: c.Spec.Names.Plural},
			namespaced: c.Spec.Scope == apiextensionsv1.NamespaceScoped}
		for _, v := range c.Spec.Versions {
			k.versions = append(k.versions, v.Name)
			k.status = k.status || (v.Subresources != nil && v.Subresources.Status != nil)
		}
		out = append(out, k)
	}
	if len(out) == 0 {
		t.Fatal("no Kubefleet CRDs embedded")
	}
	return out
}

func (k fleetKind) client(version string) dynamic.ResourceInterface {
	r := dyn.Resource(k.resource.WithVersion(version))
	if k.namespaced {
		return r.Namespace(versionsNamespace)
	}
	return r
}

// object returns the kind's sample as an object of version, named name.
func (k fleetKind) object(t *testing.T, version, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(versionSamples[k.kind]), &u.Object); err != nil {
		t.Fatalf("sample of %s: %v", k.kind, err)
	}
	u.SetAPIVersion(k.resource.Group + "/" + version)
	u.SetKind(k.kind)
	u.SetName(name)
	if k.namespaced {
		u.SetNamespace(versionsNamespace)
	}
	return u
}

// body is what an object holds besides its type and metadata: spec, status, data, ...
func body(u *unstructured.Unstructured) map[string]any {
	out := map[string]any{}
	for key, v := range u.Object {
		if key != "apiVersion" && key != "kind" && key != "metadata" {
			out[key] = v
		}
	}
	return out
}

// write creates obj through its version, its status (if any) through the status subresource.
func (k fleetKind) write(ctx context.Context, t *testing.T, obj *unstructured.Unstructured) {
	t.Helper()
	version := obj.GroupVersionKind().Version
	create := obj.DeepCopy()
	status, hasStatus := create.Object["status"]
	if k.status {
		delete(create.Object, "status")
	}
	got, err := k.client(version).Create(ctx, create, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating %s %s in %s: %v", k.kind, obj.GetName(), version, err)
	}
	t.Cleanup(func() { _ = k.client(version).Delete(context.Background(), obj.GetName(), metav1.DeleteOptions{}) })
	if k.status && hasStatus {
		got.Object["status"] = status
		if _, err := k.client(version).UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("writing the status of %s %s in %s: %v", k.kind, obj.GetName(), version, err)
		}
	}
}

// readsBack reads name in every served version and reports what differs from want's body.
func (k fleetKind) readsBack(ctx context.Context, t *testing.T, name string, want *unstructured.Unstructured) {
	t.Helper()
	for _, r := range k.versions {
		got, err := k.client(r).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Errorf("reading %s %s in %s: %v", k.kind, name, r, err)
			continue
		}
		if got.GetAPIVersion() != k.resource.Group+"/"+r {
			t.Errorf("%s %s read in %s says apiVersion %s", k.kind, name, r, got.GetAPIVersion())
		}
		if diff := missing(body(want), body(got), ""); len(diff) > 0 {
			t.Errorf("%s written in %s, read in %s, lost or changed %s", k.kind, want.GroupVersionKind().Version, r, strings.Join(diff, ", "))
		}
	}
}

// TestEveryVersionReadsEveryOther writes each Kubefleet kind's sample in every version the kind
// serves, spec and status, and reads it back in every version with nothing lost. Then it writes
// the sample in v1beta1, updates it through each older version (a label, as a v1 client would)
// and reads it in v1beta1 again: the fields Kubefleet's older versions lack survive, because
// every version serves the v1beta1 schema and None conversion changes apiVersion only.
func TestEveryVersionReadsEveryOther(t *testing.T) {
	ctx := t.Context()
	_, err := kubernetes.NewForConfigOrDie(mgmt).CoreV1().Namespaces().Create(ctx,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: versionsNamespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	installed := map[string]bool{}
	for _, k := range fleetKinds(t) {
		installed[k.kind] = true
		if _, ok := versionSamples[k.kind]; !ok {
			t.Errorf("%s has no sample in versionSamples", k.kind)
			continue
		}
		t.Run(k.kind, func(t *testing.T) {
			t.Parallel()
			for _, field := range v1beta1Only[k.kind] {
				if lookup(k.object(t, "v1beta1", "x").Object, field) == nil {
					t.Errorf("the sample lacks %s", field)
				}
			}
			for _, w := range k.versions {
				obj := k.object(t, w, strings.ToLower(k.kind)+"-"+w)
				k.write(ctx, t, obj)
				k.readsBack(ctx, t, obj.GetName(), obj)
			}
			for _, older := range k.versions {
				if older == "v1beta1" {
					continue
				}
				obj := k.object(t, "v1beta1", strings.ToLower(k.kind)+"-via-"+older)
				k.write(ctx, t, obj)
				got, err := k.client(older).Get(ctx, obj.GetName(), metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				got.SetLabels(map[string]string{"updated-through": older})
				if _, err := k.client(older).Update(ctx, got, metav1.UpdateOptions{}); err != nil {
					t.Fatalf("updating %s through %s: %v", k.kind, older, err)
				}
				after, err := k.client("v1beta1").Get(ctx, obj.GetName(), metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if after.GetLabels()["updated-through"] != older {
					t.Errorf("the update through %s did not happen: labels %v", older, after.GetLabels())
				}
				if diff := missing(body(obj), body(after), ""); len(diff) > 0 {
					t.Errorf("%s written in v1beta1 and updated through %s lost or changed %s", k.kind, older, strings.Join(diff, ", "))
				}
			}
		})
	}
	var skipped []string
	for kind := range versionSamples {
		if !installed[kind] {
			skipped = append(skipped, kind)
		}
	}
	slices.Sort(skipped)
	if len(skipped) > 0 {
		t.Logf("no CRD installed for %s: their samples are not used", strings.Join(skipped, ", "))
	}
}

// lookup returns the value at a path such as spec.stages[0].name, or nil.
func lookup(obj map[string]any, path string) any {
	var cur any = obj
	for _, part := range strings.Split(path, ".") {
		name, index, indexed := strings.Cut(strings.TrimSuffix(part, "]"), "[")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[name]
		if indexed {
			i, err := strconv.Atoi(index)
			list, ok := cur.([]any)
			if err != nil || !ok || i >= len(list) {
				return nil
			}
			cur = list[i]
		}
	}
	return cur
}
