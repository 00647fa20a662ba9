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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
)

const seedDir = "../../testdata/seeds"

// fixture is one object read from testdata/seeds.
type fixture struct {
	file string
	obj  *unstructured.Unstructured
}

// readFixtures returns the objects of every YAML file in testdata/seeds whose name matches glob.
func readFixtures(t *testing.T, glob string) []fixture {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(seedDir, glob))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	var out []fixture
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			obj := &unstructured.Unstructured{}
			if err := dec.Decode(&obj.Object); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if len(obj.Object) == 0 {
				continue
			}
			out = append(out, fixture{file: filepath.Base(f), obj: obj})
		}
	}
	if len(out) == 0 {
		t.Fatalf("no fixtures match %s", glob)
	}
	return out
}

// resourceFor maps an object to its dynamic client, defaulting the namespace of namespaced kinds.
func resourceFor(t *testing.T, obj *unstructured.Unstructured) dynamic.ResourceInterface {
	t.Helper()
	gvk := obj.GroupVersionKind()
	m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		mapper.Reset()
		if m, err = mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
			t.Fatalf("%s: no resource serves it: %v", gvk, err)
		}
	}
	if m.Scope.Name() == "namespace" {
		if obj.GetNamespace() == "" {
			obj.SetNamespace("default")
		}
		return dyn.Resource(m.Resource).Namespace(obj.GetNamespace())
	}
	return dyn.Resource(m.Resource)
}

// apply server-side applies obj (without status) and returns the object the server stored.
func apply(ctx context.Context, t *testing.T, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	t.Helper()
	obj = obj.DeepCopy()
	delete(obj.Object, "status")
	return resourceFor(t, obj).Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: "schema-test", Force: true})
}

// missing lists the paths of want that got lacks or holds with another value, i.e. what the server
// pruned or rewrote. Extra fields in got (defaults, metadata) are fine.
func missing(want, got any, path string) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{path}
		}
		var out []string
		for k, v := range w {
			out = append(out, missing(v, g[k], path+"."+k)...)
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s (list of %d, got %v)", path, len(w), got)}
		}
		var out []string
		for i := range w {
			out = append(out, missing(w[i], g[i], fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	default:
		if !reflect.DeepEqual(normalise(want), normalise(got)) {
			return []string{fmt.Sprintf("%s (want %v, got %v)", path, want, got)}
		}
		return nil
	}
}

// normalise makes numbers comparable whichever decoder produced them.
func normalise(v any) any {
	data, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(data, &out)
	return out
}

func describe(f fixture) string {
	return fmt.Sprintf("%s (%s %s)", f.file, f.obj.GetKind(), f.obj.GetName())
}

// applyOrder puts Namespaces and MemberClusters first so that later objects find them.
func applyOrder(fs []fixture) []fixture {
	rank := func(f fixture) int {
		switch f.obj.GetKind() {
		case "Namespace":
			return 0
		case "MemberCluster":
			return 1
		}
		return 2
	}
	slices.SortStableFunc(fs, func(a, b fixture) int { return rank(a) - rank(b) })
	return fs
}

func isStatusFixture(f fixture) bool { return strings.Contains(f.file, "-status-") }
