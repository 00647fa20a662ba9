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

package template

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

func testData(t *testing.T) Data {
	t.Helper()
	cluster := &libv1beta1.SveltosCluster{
		TypeMeta:   metav1.TypeMeta{APIVersion: "lib.projectsveltos.io/v1beta1", Kind: "SveltosCluster"},
		ObjectMeta: metav1.ObjectMeta{Name: "east", Namespace: "fleet", Labels: map[string]string{"env": "prod", "region": "eu"}},
	}
	cm := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "settings", "namespace": "fleet", "resourceVersion": "7", "uid": "u-1",
			"managedFields": []any{map[string]any{"manager": "kubectl"}}},
		"data": map[string]any{"replicas": "3", "image": "nginx"},
	}}
	d, err := NewData(cluster, map[string]*unstructured.Unstructured{"cfg": cm, "absent": nil})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestInstantiate(t *testing.T) {
	for _, tc := range []struct {
		name, text, want, wantErr string
	}{
		{name: "plain text", text: "a: b\n", want: "a: b\n"},
		{name: "cluster label", text: "env: {{ .Cluster.metadata.labels.env }}", want: "env: prod"},
		{name: "cluster names", text: "{{ .ClusterNamespace }}/{{ .ClusterName }}", want: "fleet/east"},
		{name: "index with dashes", text: `{{ index .Cluster.metadata.labels "region" }}`, want: "eu"},
		{name: "sprig", text: `{{ .Cluster.metadata.labels.env | upper | quote }}`, want: `"PROD"`},
		{name: "sprig default", text: `{{ .Cluster.metadata.labels.tier | default "x" }}`,
			wantErr: `template: values:1:11: executing "values" at <.Cluster.metadata.labels.tier>: map has no entry for key "tier"`},
		{name: "missing key", text: "a: 1\nb: {{ .Cluster.spec.nothing }}",
			wantErr: `template: values:2:14: executing "values" at <.Cluster.spec.nothing>: map has no entry for key "nothing"`},
		{name: "syntax error", text: "a: {{ .Cluster.metadata.name ", wantErr: "template: values:1: unclosed action"},
		{name: "unknown function", text: "{{ nope 1 }}", wantErr: `template: values:1: function "nope" not defined`},
		{name: "env withheld", text: `{{ env "HOME" }}`, wantErr: `function "env" not defined`},
		{name: "mgmt resources", text: "{{ .MgmtResources.cfg.data.replicas }}", want: "3"},
		{name: "getResource", text: `{{ (getResource "cfg").data.image }}`, want: "nginx"},
		{name: "getResource resets fields", text: `{{ (getResource "cfg").metadata | toJson }}`, want: `{"name":"settings","namespace":"fleet"}`},
		{name: "getResource absent", text: `{{ if getResource "absent" }}yes{{ else }}no{{ end }}`, want: "no"},
		{name: "getField", text: `{{ getField "cfg" "data.replicas" }}`, want: "3"},
		{name: "getField missing", text: `[{{ getField "cfg" "data.nothing" }}]`, want: "[]"},
		{name: "copy", text: `{{ copy "cfg" }}`, want: "apiVersion: v1\ndata:\n  image: nginx\n  replicas: \"3\"\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: fleet"},
		{name: "setField", text: `{{ setField "cfg" "data.replicas" "5" | fromYaml | toJson }}`,
			want: `{"apiVersion":"v1","data":{"image":"nginx","replicas":"5"},"kind":"ConfigMap","metadata":{"name":"settings","namespace":"fleet"}}`},
		{name: "setField int then original", text: `{{ $x := setField "cfg" "spec.replicas" 5 }}{{ (getResource "cfg").spec }}`,
			wantErr: `map has no entry for key "spec"`},
		{name: "removeField", text: `{{ removeField "cfg" "data" | fromYaml | toJson }}`,
			want: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"fleet"}}`},
		{name: "chain", text: `{{ $o := getResource "cfg" }}{{ $o = chainSetField $o "metadata.name" "copy" }}{{ $o = chainRemoveField $o "data.image" }}{{ toJson $o }}`,
			want: `{"apiVersion":"v1","data":{"replicas":"3"},"kind":"ConfigMap","metadata":{"name":"copy","namespace":"fleet"}}`},
		{name: "yaml round trip", text: `{{ (fromYaml "a: {b: 1}").a.b }} {{ toYaml (fromYamlArray "[x, z]") }}`, want: "1 - x\n- z"},
		{name: "json", text: `{{ (fromJson "{\"a\":2}").a }} {{ (fromJsonArray "[1]") | toJson }}`, want: "2 [1]"},
		{name: "toml", text: `{{ (fromToml "a = 'b'").a }}`, want: "b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Instantiate("values", tc.text, testData(t))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tc.wantErr)
				}
				if !IsError(err) {
					t.Errorf("IsError(%v) = false", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestAnnotations(t *testing.T) {
	if !IsTemplate(map[string]string{TemplateAnnotation: ""}) || IsTemplate(nil) {
		t.Error("IsTemplate: the annotation's presence is what counts")
	}
	if !IsLua(map[string]string{LuaAnnotation: "ok"}) || IsLua(map[string]string{TemplateAnnotation: "ok"}) {
		t.Error("IsLua")
	}
}

// TestInstantiateConcurrently: one text run at once for many clusters gives each its own
// cluster's values, through the template's fields and through the functions reading its
// management-cluster objects, although parsed templates are reused.
func TestInstantiateConcurrently(t *testing.T) {
	const text = `{{ .Cluster.metadata.name }}/{{ (getResource "cfg").data.image }}`
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 64 {
		wg.Go(func() {
			name, image := fmt.Sprintf("c%d", i), fmt.Sprintf("img%d", i)
			cm := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cfg"},
				"data": map[string]any{"image": image},
			}}
			d, err := NewData(&libv1beta1.SveltosCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "fleet"}},
				map[string]*unstructured.Unstructured{"cfg": cm})
			if err != nil {
				errs <- err
				return
			}
			for range 20 {
				got, err := Instantiate("values", text, d)
				if err != nil {
					errs <- err
					return
				}
				if want := name + "/" + image; got != want {
					errs <- fmt.Errorf("got %q, want %q", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// BenchmarkInstantiate: a chart's values templated for one cluster, as each cluster of a
// rollout has them.
func BenchmarkInstantiate(b *testing.B) {
	d := Data{Cluster: map[string]any{"metadata": map[string]any{"name": "east", "labels": map[string]any{"stage": "prod"}}}}
	const text = `message: '{{ .Cluster.metadata.name }} in {{ index .Cluster.metadata.labels "stage" }}'`
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Instantiate("values", text, d); err != nil {
			b.Fatal(err)
		}
	}
}
