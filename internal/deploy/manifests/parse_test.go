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
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name    string
		data    map[string]string
		want    []string // RefOf(...).String() of each object, in order
		wantErr string
	}{{
		name: "one object",
		data: map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: x\n"},
		want: []string{"ConfigMap x/a"},
	}, {
		name: "documents, blank and comment-only ones skipped",
		data: map[string]string{"all.yaml": "---\n# leading comment\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: s}\n---\n\n---\n" +
			"apiVersion: cert-manager.io/v1\nkind: ClusterIssuer\nmetadata:\n  name: issuer\n---\n"},
		want: []string{"Secret s", "ClusterIssuer issuer"},
	}, {
		name: "keys in sorted order",
		data: map[string]string{
			"b.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n",
			"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
		},
		want: []string{"ConfigMap a", "ConfigMap b"},
	}, {
		name: "JSON object",
		data: map[string]string{"ns.json": `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"apps"}}`},
		want: []string{"Namespace apps"},
	}, {
		name: "JSON list",
		data: map[string]string{"l.json": `[{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}},
			{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"b"}}]`},
		want: []string{"Namespace a", "Namespace b"},
	}, {
		name: "kind List",
		data: map[string]string{"list.yaml": "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ServiceAccount\n  metadata: {name: sa, namespace: x}\n" +
			"- apiVersion: rbac.authorization.k8s.io/v1\n  kind: ClusterRole\n  metadata: {name: r}\n"},
		want: []string{"ServiceAccount x/sa", "ClusterRole r"},
	}, {
		name:    "bad YAML names source, key and document",
		data:    map[string]string{"deploy.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  labels: a: b\n"},
		wantErr: `ConfigMap default/app key "deploy.yaml" document 2: yaml: line 5: mapping values are not allowed in this context`,
	}, {
		name:    "missing kind and name",
		data:    map[string]string{"x.yaml": "apiVersion: v1\nmetadata: {}\n"},
		wantErr: `ConfigMap default/app key "x.yaml" document 1: the object has no kind, metadata.name`,
	}, {
		name:    "generateName",
		data:    map[string]string{"x.yaml": "apiVersion: batch/v1\nkind: Job\nmetadata: {generateName: j-}\n"},
		wantErr: "the Job has no metadata.name (generateName cannot be used",
	}, {
		name:    "list item without apiVersion",
		data:    map[string]string{"l.yaml": "apiVersion: v1\nkind: List\nitems:\n- kind: ConfigMap\n  metadata: {name: a}\n"},
		wantErr: `key "l.yaml" document 1 item 1: the ConfigMap has no apiVersion`,
	}, {
		name:    "scalar",
		data:    map[string]string{"s.yaml": "just text\n"},
		wantErr: "document 1: a string is not a Kubernetes object",
	}, {
		name:    "duplicate key",
		data:    map[string]string{"d.yaml": "apiVersion: v1\nkind: ConfigMap\nkind: Secret\nmetadata: {name: a}\n"},
		wantErr: `key "d.yaml" document 1: yaml: unmarshal errors`,
	}, {
		name:    "bad separator",
		data:    map[string]string{"s.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n--- junk\n"},
		wantErr: "invalid Yaml document separator",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "app"}, Data: tc.data}
			objs, err := ParseConfigMap(cm)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				if !IsPermanent(err) {
					t.Errorf("a parse error must be permanent: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range objs {
				got = append(got, RefOf(o).String())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestParseSecretAndNumbers(t *testing.T) {
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "content"},
		Data:       map[string][]byte{"d.yaml": []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: 3}\n")},
	}
	objs, err := ParseSecret(s)
	if err != nil {
		t.Fatal(err)
	}
	// Integers must stay int64, as unstructured helpers expect.
	if n, found, err := unstructured.NestedInt64(objs[0].Object, "spec", "replicas"); err != nil || !found || n != 3 {
		t.Errorf("replicas %v %v %v", n, found, err)
	}
	s.Data["bad.yaml"] = []byte("kind: [")
	_, err = ParseSecret(s)
	var perr *ParseError
	if !errors.As(err, &perr) || perr.Source != "Secret ns/content" || perr.Key != "bad.yaml" {
		t.Errorf("error %v does not name the Secret and key", err)
	}
}

func TestDefaultNamespace(t *testing.T) {
	u := &unstructured.Unstructured{}
	DefaultNamespace(u, true)
	if u.GetNamespace() != "default" {
		t.Errorf("namespaced object without namespace: %q, want default", u.GetNamespace())
	}
	u.SetNamespace("apps")
	DefaultNamespace(u, true)
	if u.GetNamespace() != "apps" {
		t.Errorf("an explicit namespace changed to %q", u.GetNamespace())
	}
	DefaultNamespace(u, false)
	if u.GetNamespace() != "" {
		t.Errorf("cluster-scoped object kept namespace %q", u.GetNamespace())
	}
}
