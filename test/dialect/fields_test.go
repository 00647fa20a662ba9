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

// Package dialect holds the test that keeps docs/sveltos-fields.md complete: every field of the
// Sveltos dialect that a user can write, with what Stagecoach does with it. None may be
// accepted and then ignored.
package dialect

import (
	"bufio"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

const doc = "../../docs/sveltos-fields.md"

// kinds are the Sveltos kinds users write, with the type of their spec.
var kinds = map[string]reflect.Type{
	"ClusterProfile":   reflect.TypeFor[configv1beta1.Spec](),
	"ClusterPromotion": reflect.TypeFor[configv1beta1.ClusterPromotionSpec](),
	"SveltosCluster":   reflect.TypeFor[libv1beta1.SveltosClusterSpec](),
}

// apiPackages are the packages whose structs are walked into; a field of any other type (a
// Kubernetes type such as a LabelSelector or an ObjectReference) is one field.
var apiPackages = []string{
	reflect.TypeFor[configv1beta1.Spec]().PkgPath(),
	reflect.TypeFor[libv1beta1.SveltosClusterSpec]().PkgPath(),
}

// fieldPaths lists the JSON paths of every field under t: "spec.helmCharts[].options.wait". A
// struct met before (a health check, say, which several fields hold) is walked into only the
// first time: later fields holding it are one row, which says where its fields are described.
func fieldPaths(prefix string, t reflect.Type, seen map[reflect.Type]bool) []string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		if t.Kind() == reflect.Slice {
			prefix += "[]"
		}
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || !slices.Contains(apiPackages, t.PkgPath()) || seen[t] {
		return []string{prefix}
	}
	seen[t] = true
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" { // inlined
			out = append(out, fieldPaths(prefix, f.Type, seen)...)
			continue
		}
		out = append(out, fieldPaths(prefix+"."+name, f.Type, seen)...)
	}
	return out
}

// row is a line of the doc's tables: | `kind` | `path` | what Stagecoach does |.
var row = regexp.MustCompile("^\\| `([A-Za-z]+)` \\| `([^`]+)` \\| (.+) \\|$")

// allowed are the first words a row's third column may start with.
var allowed = []string{"Implemented", "Refused", "Extension", "Metadata"}

func TestEveryFieldIsImplementedOrRefused(t *testing.T) {
	f, err := os.Open(doc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	documented := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := row.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		key := m[1] + " " + m[2]
		if _, dup := documented[key]; dup {
			t.Errorf("%s: %s is listed twice", doc, key)
		}
		documented[key] = m[3]
		word, _, _ := strings.Cut(m[3], ":")
		if !slices.Contains(allowed, word) {
			t.Errorf("%s: %s says %q; it must start with one of %v (a field is never accepted and ignored)", doc, key, m[3], allowed)
		}
	}
	want := map[string]bool{}
	// A promotion's profileSpec has the fields of a ClusterProfile's spec (a test of the API
	// package keeps them so): they are described once, under ClusterProfile.
	seen := map[reflect.Type]bool{reflect.TypeFor[configv1beta1.ProfileSpec](): true}
	for _, kind := range []string{"ClusterProfile", "ClusterPromotion", "SveltosCluster"} {
		for _, p := range fieldPaths("spec", kinds[kind], seen) {
			key := kind + " " + p
			want[key] = true
			if _, ok := documented[key]; !ok {
				t.Errorf("%s: no row for %s field %s", doc, kind, p)
			}
		}
	}
	for key := range documented {
		if !want[key] {
			t.Errorf("%s: %s is not a field", doc, key)
		}
	}
}
