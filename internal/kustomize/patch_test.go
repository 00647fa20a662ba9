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

package kustomize

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

func obj(t *testing.T, y string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(y), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

const deploy = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: apps, labels: {tier: front}}
spec: {replicas: 1, template: {spec: {containers: [{name: web, image: nginx}]}}}`

const cm = `apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: apps}
data: {a: "1"}`

func TestApply(t *testing.T) {
	tests := []struct {
		name    string
		patches []Patch
		// check reads a field of the patched objects: "kind.path" => value.
		want    map[string]string
		wantErr string
	}{
		{
			name: "strategic merge with a target by kind",
			patches: []Patch{{Text: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: any}\nspec: {replicas: 3}",
				Target: &libv1beta1.PatchSelector{Kind: "Deployment"}}},
			want: map[string]string{"Deployment.spec.replicas": "3", "ConfigMap.data.a": "1"},
		},
		{
			name:    "strategic merge without a target names its object",
			patches: []Patch{{Text: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: apps}\ndata: {b: two}"}},
			want:    map[string]string{"ConfigMap.data.b": "two", "ConfigMap.data.a": "1"},
		},
		{
			name:    "strategic merge without a target whose object is elsewhere does nothing",
			patches: []Patch{{Text: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other}\ndata: {b: two}"}},
			want:    map[string]string{"ConfigMap.data.b": ""},
		},
		{
			name: "JSON 6902 by label selector, in order",
			patches: []Patch{
				{Text: "- op: add\n  path: /metadata/labels/patched\n  value: \"yes\"", Target: &libv1beta1.PatchSelector{LabelSelector: "tier=front"}},
				{Text: `[{"op": "replace", "path": "/metadata/labels/patched", "value": "twice"}]`, Target: &libv1beta1.PatchSelector{Kind: "Deploy.*"}},
			},
			want: map[string]string{"Deployment.metadata.labels.patched": "twice", "ConfigMap.metadata.labels.patched": ""},
		},
		{
			name: "a remove of a missing path is left out",
			patches: []Patch{{Text: "- op: remove\n  path: /metadata/labels/none\n- op: add\n  path: /data/c\n  value: x",
				Target: &libv1beta1.PatchSelector{Kind: "ConfigMap"}}},
			want: map[string]string{"ConfigMap.data.c": "x"},
		},
		{
			name:    "target by namespace and name regexp, anchored",
			patches: []Patch{{Text: "- {op: add, path: /data/d, value: y}", Target: &libv1beta1.PatchSelector{Namespace: "app", Name: "sett.*"}}},
			want:    map[string]string{"ConfigMap.data.d": ""},
		},
		{
			name:    "annotation selector",
			patches: []Patch{{Text: "- {op: add, path: /data/d, value: y}", Target: &libv1beta1.PatchSelector{AnnotationSelector: "x=y"}}},
			want:    map[string]string{"ConfigMap.data.d": ""},
		},
		{
			name:    "JSON 6902 without a target",
			patches: []Patch{{Text: "- {op: add, path: /data/d, value: y}", Source: "patches[0]"}},
			wantErr: "patches[0]: a JSON 6902 patch needs a target",
		},
		{
			name:    "not a patch",
			patches: []Patch{{Text: "{{ nope", Source: "patches[1]"}},
			wantErr: "patches[1]: neither a strategic-merge nor a JSON 6902 patch",
		},
		{
			name:    "empty",
			patches: []Patch{{Text: "  ", Source: "p"}},
			wantErr: "p: the patch is empty",
		},
		{
			name:    "bad target regexp",
			patches: []Patch{{Text: "- {op: add, path: /data/d, value: y}", Target: &libv1beta1.PatchSelector{Name: "("}, Source: "p"}},
			wantErr: "p: target:",
		},
		{
			name:    "a failing operation",
			patches: []Patch{{Text: "- {op: replace, path: /spec/nothing/here, value: y}", Target: &libv1beta1.PatchSelector{Kind: "Deployment"}, Source: "p"}},
			wantErr: "p: Deployment apps/web:",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := []*unstructured.Unstructured{obj(t, deploy), obj(t, cm)}
			before := in[1].DeepCopy()
			out, err := Apply(in, tt.patches)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(out) != 2 || out[0].GetKind() != "Deployment" || out[1].GetKind() != "ConfigMap" {
				t.Fatalf("objects or order changed: %v", out)
			}
			if !equal(in[1], before) {
				t.Errorf("the input was changed")
			}
			for k, want := range tt.want {
				kind, p, _ := strings.Cut(k, ".")
				o := out[0]
				if kind == "ConfigMap" {
					o = out[1]
				}
				got, _, _ := unstructured.NestedFieldNoCopy(o.Object, strings.Split(p, ".")...)
				if s := toString(got); s != want {
					t.Errorf("%s = %q, want %q", k, s, want)
				}
			}
		})
	}
}

func equal(a, b *unstructured.Unstructured) bool {
	x, _ := a.MarshalJSON()
	y, _ := b.MarshalJSON()
	return bytes.Equal(x, y)
}

func toString(v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	data, _ := yaml.Marshal(v)
	return strings.TrimSpace(string(data))
}

func TestPostRenderer(t *testing.T) {
	in := bytes.NewBufferString("---\n# Source: chart/templates/d.yaml\n" + deploy + "\n---\n\n---\n" + cm + "\n")
	out, err := PostRenderer{Patches: []Patch{{Text: "- {op: add, path: /metadata/labels/extra, value: set}",
		Target: &libv1beta1.PatchSelector{Kind: "Deployment"}}}}.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if strings.Count(s, "---\n") != 2 || !strings.Contains(s, "extra: set") {
		t.Errorf("rendered:\n%s", s)
	}
}

// TestConcurrentUse patches and builds from many goroutines, as reconcilers do; run with -race.
func TestConcurrentUse(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			in := []*unstructured.Unstructured{obj(t, deploy), obj(t, cm)}
			p := []Patch{{Text: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: apps}\nspec: {replicas: 4}"}}
			if _, err := Apply(in, p); err != nil {
				t.Error(err)
			}
			if _, err := Build(Files{"cm.yaml": []byte(cm)}, "", BuildOptions{}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}
