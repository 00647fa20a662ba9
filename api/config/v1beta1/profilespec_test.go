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

package v1beta1

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"sigs.k8s.io/randfill"
	"sigs.k8s.io/yaml"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// specOnlyFields are the Spec fields a ClusterPromotion's profileSpec leaves out: the stage
// provides the cluster selection, and the last two are deprecated.
var specOnlyFields = map[string]bool{
	"ClusterSelector":  true,
	"ClusterRefs":      true,
	"SetRefs":          true,
	"ExtraLabels":      true,
	"ExtraAnnotations": true,
}

// TestProfileSpecMatchesSpec keeps ProfileSpec field-for-field identical to Spec, apart from
// the fields listed in specOnlyFields, so that a field added to one cannot be forgotten in the
// other.
func TestProfileSpecMatchesSpec(t *testing.T) {
	specType := reflect.TypeFor[Spec]()
	profileType := reflect.TypeFor[ProfileSpec]()

	for i := range specType.NumField() {
		sf := specType.Field(i)
		pf, ok := profileType.FieldByName(sf.Name)
		if specOnlyFields[sf.Name] {
			if ok {
				t.Errorf("ProfileSpec has field %s, which only Spec may have", sf.Name)
			}
			continue
		}
		if !ok {
			t.Errorf("ProfileSpec lacks Spec field %s %s", sf.Name, sf.Type)
			continue
		}
		if pf.Type != sf.Type {
			t.Errorf("field %s: ProfileSpec has type %s, Spec has %s", sf.Name, pf.Type, sf.Type)
		}
		if pf.Tag != sf.Tag {
			t.Errorf("field %s: ProfileSpec has tag %q, Spec has %q", sf.Name, pf.Tag, sf.Tag)
		}
	}
	for i := range profileType.NumField() {
		name := profileType.Field(i).Name
		if _, ok := specType.FieldByName(name); !ok {
			t.Errorf("ProfileSpec has field %s, which Spec lacks", name)
		}
	}
}

// TestProfileSpecToSpecCopiesEveryField fills a ProfileSpec with random values and checks that
// ToSpec carries every one of them over.
func TestProfileSpecToSpecCopiesEveryField(t *testing.T) {
	filler := randfill.New().NilChance(0).NumElements(1, 2)
	for range 20 {
		var p ProfileSpec
		filler.Fill(&p)
		selector := libv1beta1.Selector{}
		selector.MatchLabels = map[string]string{"env": "dev"}

		spec := p.ToSpec(selector)

		if !reflect.DeepEqual(spec.ClusterSelector, selector) {
			t.Fatalf("ToSpec did not set the cluster selector")
		}
		specValue := reflect.ValueOf(spec)
		profileValue := reflect.ValueOf(p)
		for i := range profileValue.NumField() {
			name := profileValue.Type().Field(i).Name
			got := specValue.FieldByName(name).Interface()
			want := profileValue.Field(i).Interface()
			if !reflect.DeepEqual(got, want) {
				t.Errorf("ToSpec did not copy %s: got %v, want %v", name, got, want)
			}
		}
	}
}

// TestProfileSpecSchemaMatchesSpecSchema compares the generated CRD schemas: the
// ClusterPromotion's spec.profileSpec must equal the ClusterProfile's spec without the
// spec-only fields, markers included (descriptions aside). Run "make generate" after changing
// the types.
func TestProfileSpecSchemaMatchesSpecSchema(t *testing.T) {
	profileSpec := crdSchema(t, "config.projectsveltos.io_clusterpromotions.yaml",
		"spec", "profileSpec")
	spec := crdSchema(t, "config.projectsveltos.io_clusterprofiles.yaml", "spec")

	props, _ := spec["properties"].(map[string]any)
	for _, name := range []string{"clusterSelector", "clusterRefs", "setRefs", "extraLabels", "extraAnnotations"} {
		if _, ok := props[name]; !ok {
			t.Fatalf("ClusterProfile spec schema has no %s property", name)
		}
		delete(props, name)
	}
	stripDescriptions(profileSpec)
	stripDescriptions(spec)
	if !reflect.DeepEqual(profileSpec, spec) {
		got, _ := yaml.Marshal(profileSpec)
		want, _ := yaml.Marshal(spec)
		t.Errorf("ClusterPromotion spec.profileSpec schema differs from ClusterProfile spec schema.\nprofileSpec:\n%s\nspec:\n%s", got, want)
	}
}

// crdSchema returns the schema found by following path from the openAPIV3Schema properties of
// the generated CRD in file.
func crdSchema(t *testing.T, file string, path ...string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "config", "crd", file))
	if err != nil {
		t.Fatalf("reading generated CRD: %v", err)
	}
	var crd map[string]any
	if err := yaml.Unmarshal(data, &crd); err != nil {
		t.Fatalf("parsing %s: %v", file, err)
	}
	node := dig(crd, "spec", "versions")
	versions, _ := node.([]any)
	if len(versions) != 1 {
		t.Fatalf("%s: expected one version, found %d", file, len(versions))
	}
	schema, _ := dig(versions[0], "schema", "openAPIV3Schema").(map[string]any)
	for _, p := range path {
		schema, _ = dig(schema, "properties", p).(map[string]any)
	}
	if schema == nil {
		t.Fatalf("%s: no schema at %v", file, path)
	}
	return schema
}

func dig(node any, keys ...string) any {
	for _, k := range keys {
		m, _ := node.(map[string]any)
		node = m[k]
	}
	return node
}

func stripDescriptions(node any) {
	switch n := node.(type) {
	case map[string]any:
		if _, ok := n["description"].(string); ok {
			delete(n, "description")
		}
		for _, v := range n {
			stripDescriptions(v)
		}
	case []any:
		for _, v := range n {
			stripDescriptions(v)
		}
	}
}
