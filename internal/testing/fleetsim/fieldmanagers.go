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
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/applyconfigurations"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// Field managers track managedFields the way an API server does: server-side apply merges with
// them and detects conflicts, and every other write records an Update entry. Built-in kinds use
// the real schemas client-go carries (lists of containers merge by name, and so on); custom
// resources use a schema deduced from the object, as an API server does for a CRD without one:
// every list is atomic.
var (
	typedConverter   = sync.OnceValue(func() managedfields.TypeConverter { return applyconfigurations.NewTypeConverter(typedScheme) })
	deducedConverter = managedfields.NewDeducedTypeConverter()
)

type fieldManagerKey struct {
	gvk         schema.GroupVersionKind
	subresource string
	// resets says which fields the manager resets; CRDs of the same kind in different clusters
	// may differ there.
	resets string
}

// fieldManagers are shared by all clusters: a field manager holds no per-object state.
var fieldManagers sync.Map // fieldManagerKey → *managedfields.FieldManager

// fieldManager returns the field manager of a kind, for writes to the object ("") or its
// status ("status").
func fieldManager(rt *resourceType, version, subresource string) (*managedfields.FieldManager, error) {
	gvk := rt.groupVersionKind(version)
	key := fieldManagerKey{gvk, subresource, fmt.Sprint(rt.status, rt.versions)}
	if fm, ok := fieldManagers.Load(key); ok {
		return fm.(*managedfields.FieldManager), nil
	}
	converter := deducedConverter
	if rt.builtin && typedScheme.Recognizes(gvk) {
		converter = typedConverter()
	}
	fm, err := managedfields.NewDefaultFieldManager(converter, versionConverter{}, noDefaults{}, unstructuredCreater{},
		gvk, gvk.GroupVersion(), subresource, resetFields(rt, subresource))
	if err != nil {
		return nil, fmt.Errorf("field manager for %s: %w", gvk, err)
	}
	actual, _ := fieldManagers.LoadOrStore(key, fm)
	return actual.(*managedfields.FieldManager), nil
}

// resetFields are the fields a write cannot own because the API server resets them: the status
// of a resource with a status subresource, and everything but the status in a write to it.
func resetFields(rt *resourceType, subresource string) map[fieldpath.APIVersion]fieldpath.Filter {
	if !rt.status {
		return nil
	}
	filter := fieldpath.NewExcludeSetFilter(fieldpath.NewSet(fieldpath.MakePathOrDie("status")))
	if subresource == "status" {
		filter = fieldpath.NewIncludeMatcherFilter(fieldpath.MakePrefixMatcherOrDie("status"))
	}
	filters := map[fieldpath.APIVersion]fieldpath.Filter{}
	for _, v := range rt.versions {
		filters[fieldpath.APIVersion(rt.apiVersion(v))] = filter
	}
	return filters
}

// versionConverter converts between the served versions of a resource, which differ only by
// apiVersion in the simulator.
type versionConverter struct{}

func (versionConverter) Convert(in, out, _ any) error {
	src, ok := in.(*unstructured.Unstructured)
	dst, ok2 := out.(*unstructured.Unstructured)
	if !ok || !ok2 {
		return fmt.Errorf("fleetsim converts unstructured objects only, not %T to %T", in, out)
	}
	dst.Object = runtime.DeepCopyJSON(src.Object)
	return nil
}

func (versionConverter) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	u, ok := in.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("fleetsim converts unstructured objects only, not %T", in)
	}
	gvk, ok := target.KindForGroupVersionKinds([]schema.GroupVersionKind{u.GroupVersionKind()})
	if !ok {
		return nil, fmt.Errorf("cannot convert %s to %v", u.GroupVersionKind(), target)
	}
	out := u.DeepCopy()
	out.SetGroupVersionKind(gvk)
	return out, nil
}

func (versionConverter) ConvertFieldLabel(_ schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}

type noDefaults struct{}

func (noDefaults) Default(runtime.Object) {}

type unstructuredCreater struct{}

func (unstructuredCreater) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u, nil
}
