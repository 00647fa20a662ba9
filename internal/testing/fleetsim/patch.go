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
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func (q *request) patch() error {
	opts, err := q.patchOptions()
	if err != nil {
		return err
	}
	data, mediaType, err := q.body()
	if err != nil {
		return err
	}
	switch types.PatchType(mediaType) {
	case types.ApplyYAMLPatchType, types.ApplyCBORPatchType:
		if types.PatchType(mediaType) == types.ApplyCBORPatchType {
			return errUnsupportedMediaType(mediaType)
		}
		return q.apply(data, opts)
	case types.JSONPatchType, types.MergePatchType, types.StrategicMergePatchType:
	default:
		return errUnsupportedMediaType(mediaType)
	}
	fm, err := fieldManager(q.rt, q.version, q.subresource)
	if err != nil {
		return err
	}
	d := q.c.lock()
	defer q.c.unlock()
	key := objectKey{q.namespace, q.name}
	old := d.object(q.rt.groupResource(), key)
	if old == nil {
		return apierrors.NewNotFound(q.rt.groupResource(), q.name)
	}
	current := asVersion(old, q.apiVersion())
	obj, err := q.patched(current, types.PatchType(mediaType), data, opts.FieldValidation == metav1.FieldValidationStrict)
	if err != nil {
		return err
	}
	if err := checkResourceVersion(q.rt, old, obj); err != nil {
		return err
	}
	managed := fm.UpdateNoErrors(current, obj, q.manager(opts.FieldManager)).(*unstructured.Unstructured)
	stored, err := q.c.save(d, change{rt: q.rt, key: key, old: old, obj: managed, subresource: q.subresource, dryRun: isDryRun(opts.DryRun)})
	if err != nil {
		return err
	}
	writeObject(q.w, http.StatusOK, stored, q.apiVersion())
	return nil
}

// patched applies a JSON, merge or strategic merge patch to current.
func (q *request) patched(current *unstructured.Unstructured, pt types.PatchType, patch []byte, strict bool) (*unstructured.Unstructured, error) {
	doc, err := json.Marshal(current.Object)
	if err != nil {
		return nil, err
	}
	switch pt {
	case types.JSONPatchType:
		var p jsonpatch.Patch
		if p, err = jsonpatch.DecodePatch(patch); err == nil {
			doc, err = p.Apply(doc)
		}
	case types.MergePatchType:
		doc, err = jsonpatch.MergePatch(doc, patch)
	case types.StrategicMergePatchType:
		doc, err = q.strategicMergePatch(doc, patch)
	}
	if err != nil {
		var status apierrors.APIStatus
		if errors.As(err, &status) {
			return nil, err
		}
		return nil, apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "patch", q.rt.groupResource(), q.name,
			fmt.Sprintf("the patch cannot be applied: %v", err), 0, false)
	}
	obj, err := parseObject(doc)
	if err != nil {
		return nil, err
	}
	if obj.GroupVersionKind() != current.GroupVersionKind() || obj.GetName() != current.GetName() || obj.GetNamespace() != current.GetNamespace() {
		return nil, errBadRequest("a patch cannot change the apiVersion, kind, name or namespace of an object")
	}
	return obj, normalize(q.rt, obj, strict)
}

// strategicMergePatch uses the patch strategies of the kind's Go type; custom resources have
// none, and an API server refuses the patch as this does.
func (q *request) strategicMergePatch(doc, patch []byte) ([]byte, error) {
	gvk := q.rt.groupVersionKind(q.version)
	if !q.rt.builtin || !typedScheme.Recognizes(gvk) {
		return nil, errUnsupportedMediaType(string(types.StrategicMergePatchType) +
			" (strategic merge patch is not supported for custom resources; use a merge, JSON or apply patch)")
	}
	typed, err := typedScheme.New(gvk)
	if err != nil {
		return nil, err
	}
	return strategicpatch.StrategicMergePatch(doc, patch, typed)
}

// apply is server-side apply: the field manager merges the applied configuration into the live
// object, or reports the fields other managers own as a 409 conflict.
func (q *request) apply(data []byte, opts *metav1.PatchOptions) error {
	if opts.FieldManager == "" {
		return apierrors.NewInvalid(schema.GroupKind{Group: "meta.k8s.io", Kind: "PatchOptions"}, "",
			field.ErrorList{field.Required(field.NewPath("fieldManager"), "is required for apply patch")})
	}
	patch, err := parseObject(data)
	if err != nil {
		return err
	}
	want := q.rt.groupVersionKind(q.version)
	if got := patch.GroupVersionKind(); got != want {
		return errBadRequest("the applied configuration is a %q %q, but %s serves %s %s", got.GroupVersion(), got.Kind,
			q.r.URL.Path, want.GroupVersion(), want.Kind)
	}
	if err := q.placeObject(patch); err != nil {
		return err
	}
	fm, err := fieldManager(q.rt, q.version, q.subresource)
	if err != nil {
		return err
	}
	d := q.c.lock()
	defer q.c.unlock()
	key := objectKey{q.namespace, q.name}
	old := d.object(q.rt.groupResource(), key)
	var live *unstructured.Unstructured
	switch {
	case old != nil:
		live = asVersion(old, q.apiVersion())
	case q.subresource != "":
		return apierrors.NewNotFound(q.rt.groupResource(), q.name)
	default:
		obj, _ := unstructuredCreater{}.New(want)
		live = obj.(*unstructured.Unstructured)
	}
	if old != nil {
		if err := checkResourceVersion(q.rt, old, patch); err != nil {
			return err
		}
	}
	out, err := fm.Apply(live, patch, opts.FieldManager, opts.Force != nil && *opts.Force)
	if err != nil {
		var status apierrors.APIStatus
		if errors.As(err, &status) {
			return err
		}
		return errBadRequest("%v", err)
	}
	stored, err := q.c.save(d, change{rt: q.rt, key: key, old: old, obj: out.(*unstructured.Unstructured),
		subresource: q.subresource, dryRun: isDryRun(opts.DryRun)})
	if err != nil {
		return err
	}
	code := http.StatusOK
	if old == nil {
		code = http.StatusCreated
	}
	writeObject(q.w, code, stored, q.apiVersion())
	return nil
}
