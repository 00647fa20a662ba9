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
	"reflect"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// A CustomResourceDefinition makes its cluster serve its resource at once: it is Established in
// the write that creates it, and its resource is in discovery from then on. Schemas are not
// used: custom objects are stored as given (no pruning, defaulting or validation) and every
// served version presents the same object.

// crdSpec is what the simulator reads of a CustomResourceDefinition.
type crdSpec struct {
	group, kind, listKind, plural, singular, scope string
	shortNames, categories                         []string
	served                                         []string
	storage                                        string
	status                                         bool
}

func readCRD(obj *unstructured.Unstructured) crdSpec {
	var s crdSpec
	s.group, _, _ = unstructured.NestedString(obj.Object, "spec", "group")
	s.scope, _, _ = unstructured.NestedString(obj.Object, "spec", "scope")
	s.kind, _, _ = unstructured.NestedString(obj.Object, "spec", "names", "kind")
	s.listKind, _, _ = unstructured.NestedString(obj.Object, "spec", "names", "listKind")
	s.plural, _, _ = unstructured.NestedString(obj.Object, "spec", "names", "plural")
	s.singular, _, _ = unstructured.NestedString(obj.Object, "spec", "names", "singular")
	s.shortNames, _, _ = unstructured.NestedStringSlice(obj.Object, "spec", "names", "shortNames")
	s.categories, _, _ = unstructured.NestedStringSlice(obj.Object, "spec", "names", "categories")
	if s.listKind == "" && s.kind != "" {
		s.listKind = s.kind + "List"
	}
	if s.singular == "" {
		s.singular = lower(s.kind)
	}
	versions, _, _ := unstructured.NestedSlice(obj.Object, "spec", "versions")
	for _, v := range versions {
		version, _ := v.(map[string]any)
		name, _ := version["name"].(string)
		if version["served"] == true {
			s.served = append(s.served, name)
		}
		if version["storage"] == true {
			s.storage = name
		}
		if _, ok, _ := unstructured.NestedFieldNoCopy(version, "subresources", "status"); ok {
			s.status = true
		}
	}
	return s
}

func validateCRD(obj *unstructured.Unstructured) field.ErrorList {
	s := readCRD(obj)
	spec := field.NewPath("spec")
	var errs field.ErrorList
	if s.group == "" {
		errs = append(errs, field.Required(spec.Child("group"), ""))
	}
	if s.plural == "" {
		errs = append(errs, field.Required(spec.Child("names", "plural"), ""))
	}
	if s.kind == "" {
		errs = append(errs, field.Required(spec.Child("names", "kind"), ""))
	}
	if s.scope != "Namespaced" && s.scope != "Cluster" {
		errs = append(errs, field.NotSupported(spec.Child("scope"), s.scope, []string{"Cluster", "Namespaced"}))
	}
	if s.storage == "" {
		errs = append(errs, field.Invalid(spec.Child("versions"), nil, "must have exactly one version marked as storage version"))
	}
	if want := s.plural + "." + s.group; obj.GetName() != want {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), obj.GetName(), "must be spec.names.plural+\".\"+spec.group"))
	}
	return errs
}

// setCRDStatus accepts the names and establishes the CRD, keeping the status it had when that
// says the same, so that re-applying a CRD changes nothing.
func setCRDStatus(old, obj *unstructured.Unstructured) {
	s := readCRD(obj)
	names := map[string]any{"kind": s.kind, "listKind": s.listKind, "plural": s.plural, "singular": s.singular}
	if len(s.shortNames) > 0 {
		names["shortNames"] = toAny(s.shortNames)
	}
	if len(s.categories) > 0 {
		names["categories"] = toAny(s.categories)
	}
	stored := []string{}
	if old != nil {
		stored, _, _ = unstructured.NestedStringSlice(old.Object, "status", "storedVersions")
	}
	if s.storage != "" && !slices.Contains(stored, s.storage) {
		stored = append(stored, s.storage)
	}
	if old != nil {
		oldNames, _, _ := unstructured.NestedFieldNoCopy(old.Object, "status", "acceptedNames")
		oldStored, _, _ := unstructured.NestedStringSlice(old.Object, "status", "storedVersions")
		if reflect.DeepEqual(oldNames, names) && slices.Equal(oldStored, stored) {
			setOrDelete(obj.Object, "status", old.Object["status"])
			return
		}
	}
	now := timestamp(time.Now())
	obj.Object["status"] = map[string]any{
		"acceptedNames":  names,
		"storedVersions": toAny(stored),
		"conditions": []any{
			map[string]any{"type": "NamesAccepted", "status": "True", "reason": "NoConflicts", "message": "no conflicts found", "lastTransitionTime": now},
			map[string]any{"type": "Established", "status": "True", "reason": "InitialNamesAccepted", "message": "the initial names have been accepted", "lastTransitionTime": now},
		},
	}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// registerCRD serves (or serves anew) the resource of a stored CRD. A CRD naming a built-in
// resource is stored but changes nothing.
func (d *clusterData) registerCRD(crd *unstructured.Unstructured) {
	s := readCRD(crd)
	gr := schema.GroupResource{Group: s.group, Resource: s.plural}
	if builtinByGroupResource[gr] != nil {
		return
	}
	if d.custom == nil {
		d.custom = map[schema.GroupResource]*resourceType{}
	}
	d.custom[gr] = &resourceType{
		group: s.group, resource: s.plural, kind: s.kind, listKind: s.listKind, singular: s.singular,
		versions: s.served, storageVersion: s.storage, namespaced: s.scope == "Namespaced", status: s.status,
		shortNames: s.shortNames, categories: s.categories,
	}
}

// unregisterCRD stops serving a CRD's resource and deletes its objects.
func (c *Cluster) unregisterCRD(d *clusterData, crd *unstructured.Unstructured) {
	s := readCRD(crd)
	gr := schema.GroupResource{Group: s.group, Resource: s.plural}
	if d.custom[gr] == nil {
		return
	}
	for key, obj := range d.objects[gr] {
		d.record(gr, key, obj, nil)
	}
	delete(d.objects, gr)
	delete(d.custom, gr)
	d.dropWatchers(gr)
}
