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

package manifests

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

func TestFieldChanges(t *testing.T) {
	from := map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"app.kubernetes.io/name": "web", "old": "x"}},
		"spec": map[string]any{"replicas": int64(2), "containers": []any{
			map[string]any{"name": "c", "image": "nginx:1"},
		}},
	}
	to := map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"app.kubernetes.io/name": "api"}},
		"spec": map[string]any{"replicas": int64(3), "containers": []any{
			map[string]any{"name": "c", "image": "nginx:2"},
			map[string]any{"name": "sidecar"},
		}},
	}
	want := []string{
		`~ metadata.labels["app.kubernetes.io/name"]: "web" -> "api"`,
		`- metadata.labels.old: "x"`,
		`~ spec.containers[0].image: "nginx:1" -> "nginx:2"`,
		`+ spec.containers[1]: {"name":"sidecar"}`,
		`~ spec.replicas: 2 -> 3`,
	}
	if got := fieldChanges(from, to, false); !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := fieldChanges(from, from, false); len(got) != 0 {
		t.Errorf("no change reported as %q", got)
	}
}

// TestFieldDiffs: each change also carries its JSON pointer and its values apart, as Kubefleet's
// patch details want them.
func TestFieldDiffs(t *testing.T) {
	from := map[string]any{"metadata": map[string]any{"labels": map[string]any{"a/b~c": "x"}}, "data": map[string]any{"key": "local"}}
	to := map[string]any{"metadata": map[string]any{}, "data": map[string]any{"key": "hub", "new": "1"}}
	want := []FieldChange{
		{Path: "/data/key", Live: `"local"`, Desired: `"hub"`, Text: `~ data.key: "local" -> "hub"`},
		{Path: "/data/new", Desired: `"1"`, Text: `+ data.new: "1"`},
		{Path: "/metadata/labels", Live: `{"a/b~c":"x"}`, Text: `- metadata.labels: {"a/b~c":"x"}`},
	}
	if got := fieldDiffs(from, to, false); !slices.Equal(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	to["metadata"] = map[string]any{"labels": map[string]any{}}
	if got := fieldDiffs(from, to, false); got[2].Path != "/metadata/labels/a~1b~0c" {
		t.Errorf("path %q is not an escaped JSON pointer", got[2].Path)
	}
}

// TestComparable: a full comparison leaves out what no manifest sets.
func TestComparable(t *testing.T) {
	live := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "c", "uid": "u", "resourceVersion": "1", "finalizers": []any{"f"},
			"ownerReferences": []any{map[string]any{"name": "o"}},
			"labels":          map[string]any{OwnerLabel: "me", "kubernetes.io/metadata.name": "c", "team": "blue"},
			"annotations":     map[string]any{OwnerAnnotation: "me"}},
		"data":   map[string]any{"key": "v"},
		"status": map[string]any{"phase": "x"},
	}}
	want := map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "c", "labels": map[string]any{"team": "blue"}}, "data": map[string]any{"key": "v"}}
	if got := comparable(live, nil); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestFieldChangesRedactsSecrets(t *testing.T) {
	from := map[string]any{"data": map[string]any{"token": "b2xk"}, "metadata": map[string]any{
		"annotations": map[string]any{lastApplied: `{"data":{"token":"b2xk"}}`}}}
	to := map[string]any{"data": map[string]any{"token": "bmV3", "extra": "eA=="}, "metadata": map[string]any{
		"annotations": map[string]any{lastApplied: `{"data":{"token":"bmV3"}}`}}}
	got := strings.Join(fieldChanges(from, to, true), "\n")
	for _, secret := range []string{"b2xk", "bmV3", "eA=="} {
		if strings.Contains(got, secret) {
			t.Errorf("secret value %q leaked:\n%s", secret, got)
		}
	}
	if !strings.Contains(got, "~ data.token: (redacted) -> (redacted)") || !strings.Contains(got, "+ data.extra: (redacted)") {
		t.Errorf("changes of a Secret not listed:\n%s", got)
	}
}

func TestPointer(t *testing.T) {
	doc := map[string]any{"spec": map[string]any{
		"containers": []any{map[string]any{"image": "a"}},
		"a/b~c":      "escaped",
	}}
	for _, tc := range []struct {
		path string
		want any
		ok   bool
	}{
		{"/spec/containers/0/image", "a", true},
		{"/spec/a~1b~0c", "escaped", true},
		{"/spec/containers/1/image", nil, false},
		{"/spec/missing", nil, false},
	} {
		p, err := parsePointer(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := p.get(doc); ok != tc.ok || got != tc.want {
			t.Errorf("%s: got %v %v, want %v %v", tc.path, got, ok, tc.want, tc.ok)
		}
	}
	if _, err := parsePointer("spec.replicas"); err == nil {
		t.Error("a dotted path was accepted as a JSON pointer")
	}
	p, _ := parsePointer("/metadata/labels/team")
	p.set(doc, "payments")
	if got, _ := p.get(doc); got != "payments" {
		t.Errorf("set through missing maps: %v", doc)
	}
	p.remove(doc)
	if _, ok := p.get(doc); ok {
		t.Errorf("remove left %v", doc)
	}
}

func TestSelects(t *testing.T) {
	deploy := &unstructured.Unstructured{}
	deploy.SetAPIVersion("apps/v1")
	deploy.SetKind("Deployment")
	deploy.SetNamespace("web")
	deploy.SetName("frontend")
	deploy.SetLabels(map[string]string{"tier": "front"})
	for _, tc := range []struct {
		sel  *libv1beta1.PatchSelector
		want bool
	}{
		{nil, true},
		{&libv1beta1.PatchSelector{Kind: "Deployment"}, true},
		{&libv1beta1.PatchSelector{Kind: "Deploy"}, false}, // whole-value match
		{&libv1beta1.PatchSelector{Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "web", Name: "front.*"}, true},
		{&libv1beta1.PatchSelector{Group: ""}, true},
		{&libv1beta1.PatchSelector{Kind: "Deployment", Namespace: "other"}, false},
		{&libv1beta1.PatchSelector{LabelSelector: "tier=front"}, true},
		{&libv1beta1.PatchSelector{LabelSelector: "tier in (back)"}, false},
		{&libv1beta1.PatchSelector{AnnotationSelector: "note"}, false},
	} {
		if got, err := selects(tc.sel, deploy); err != nil || got != tc.want {
			t.Errorf("%+v: got %v (%v), want %v", tc.sel, got, err, tc.want)
		}
	}
}

func TestIsPermanent(t *testing.T) {
	gr := schema.GroupResource{Group: "apps", Resource: "deployments"}
	invalid := apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "d",
		field.ErrorList{field.Required(field.NewPath("spec", "selector"), "")})
	noMatch := &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "x.io", Kind: "Y"}}
	transient := apierrors.NewServiceUnavailable("etcd is down")
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{invalid, true},
		{fmt.Errorf("applying: %w", invalid), true},
		{noMatch, true},
		{apierrors.NewBadRequest("bad"), true},
		{&ParseError{Source: "ConfigMap a/b", Err: errors.New("x")}, true},
		{transient, false},
		{apierrors.NewConflict(gr, "d", errors.New("modified")), false},
		{apierrors.NewTimeoutError("slow", 1), false},
		{apierrors.NewForbidden(gr, "d", errors.New("denied")), false},
		{errors.New("connection refused"), false},
		{errors.Join(invalid, noMatch), true},
		{errors.Join(invalid, transient), false},
		{fmt.Errorf("wrapped: %w", errors.Join(invalid, transient)), false},
		{&ConflictError{}, false},
	} {
		if got := IsPermanent(tc.err); got != tc.want {
			t.Errorf("IsPermanent(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestNormalizeFoldsStringData(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata":   map[string]any{"name": "s", "resourceVersion": "42"},
		"data":       map[string]any{"a": "YQ==", "b": "b2xk"},
		"stringData": map[string]any{"b": "new"},
	}}
	got, err := normalize(u)
	if err != nil {
		t.Fatal(err)
	}
	data, _, _ := unstructured.NestedStringMap(got.Object, "data")
	if data["a"] != "YQ==" || data["b"] != "bmV3" {
		t.Errorf("data %v, want stringData folded in over data", data)
	}
	if _, found := got.Object["stringData"]; found || got.GetResourceVersion() != "" {
		t.Errorf("stringData or resourceVersion left: %v", got.Object)
	}
	if _, found := u.Object["stringData"]; !found {
		t.Error("normalize changed its input")
	}
}

func TestConflictWith(t *testing.T) {
	live := &unstructured.Unstructured{}
	live.SetKind("ConfigMap")
	live.SetName("c")
	if conflictWith(live, "me", 100) != nil {
		t.Error("an unowned object is adopted, not a conflict")
	}
	mark(live, "other", 50)
	if c := conflictWith(live, "me", 100); c == nil || c.Owner != "other" || c.Tier != 50 ||
		!strings.Contains(c.Message, `deployed by "other" with tier 50`) {
		t.Errorf("lower-tier owner: conflict %+v", c)
	}
	if conflictWith(live, "me", 50) == nil {
		t.Error("an equal tier does not take over")
	}
	if conflictWith(live, "me", 10) != nil {
		t.Error("a lower tier takes over")
	}
	if conflictWith(live, "other", 500) != nil {
		t.Error("an owner conflicts with itself")
	}
}

func TestObjectRefGVK(t *testing.T) {
	secret := &unstructured.Unstructured{}
	secret.SetAPIVersion("v1")
	secret.SetKind("Secret")
	issuer := &unstructured.Unstructured{}
	issuer.SetAPIVersion("cert-manager.io/v1")
	issuer.SetKind("ClusterIssuer")
	issuer.SetName("cloudflare-issuer")
	if got := RefOf(secret).GVK(); got != "Secret.v1." {
		t.Errorf("core group: %q, want Secret.v1.", got)
	}
	if got := RefOf(issuer).GVK(); got != "ClusterIssuer.v1.cert-manager.io" {
		t.Errorf("%q, want ClusterIssuer.v1.cert-manager.io", got)
	}
	if got := RefOf(issuer).String(); got != "ClusterIssuer cloudflare-issuer" {
		t.Errorf("String() = %q", got)
	}
}
