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
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

func (q *request) get() error {
	d := q.c.lock()
	obj := d.object(q.rt.groupResource(), objectKey{q.namespace, q.name})
	q.c.unlock()
	if obj == nil {
		return apierrors.NewNotFound(q.rt.groupResource(), q.name)
	}
	writeObject(q.w, http.StatusOK, obj, q.apiVersion())
	return nil
}

// list answers with every matching object, sorted by namespace and name. limit and continue are
// ignored: the whole list always fits one answer.
func (q *request) list() error {
	opts, err := q.listOptions()
	if err != nil {
		return err
	}
	sel, err := q.selection(opts)
	if err != nil {
		return err
	}
	d := q.c.lock()
	items := d.selected(q.rt, sel)
	rv := d.rv
	q.c.unlock()
	writeList(q.w, q.rt, q.version, rv, items)
	return nil
}

// selection says which objects of a resource a list, watch or deletecollection is about.
type selection struct {
	namespace string
	name      string
	labels    labels.Selector // nil selects all
	fields    fields.Selector // nil selects all
}

func (q *request) selection(opts *metav1.ListOptions) (selection, error) {
	sel := selection{namespace: q.namespace, name: q.name}
	if opts.LabelSelector != "" {
		s, err := labels.Parse(opts.LabelSelector)
		if err != nil {
			return sel, errBadRequest("labelSelector: %v", err)
		}
		sel.labels = s
	}
	if opts.FieldSelector != "" {
		s, err := fields.ParseSelector(opts.FieldSelector)
		if err != nil {
			return sel, errBadRequest("fieldSelector: %v", err)
		}
		sel.fields = s
	}
	return sel, nil
}

// matches says whether obj, with the given labels, is selected.
func (s selection) matches(obj *unstructured.Unstructured, objLabels map[string]string) bool {
	if s.namespace != "" && obj.GetNamespace() != s.namespace || s.name != "" && obj.GetName() != s.name {
		return false
	}
	if s.labels != nil && !s.labels.Matches(labels.Set(objLabels)) {
		return false
	}
	if s.fields != nil {
		set := fields.Set{}
		for _, r := range s.fields.Requirements() {
			set[r.Field] = fieldValue(obj.Object, r.Field)
		}
		if !s.fields.Matches(set) {
			return false
		}
	}
	return true
}

// fieldValue reads a field selector's field, such as metadata.name or status.phase, from any
// object. A real API server supports a few fields per resource; the simulator supports any.
func fieldValue(obj map[string]any, path string) string {
	var v any = obj
	for part := range strings.SplitSeq(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[part]
	}
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		return fmt.Sprint(v)
	}
}

// selected returns the matching objects of a resource, sorted by namespace and name.
func (d *clusterData) selected(rt *resourceType, sel selection) []*unstructured.Unstructured {
	var items []*unstructured.Unstructured
	for key, obj := range d.objects[rt.groupResource()] {
		if sel.namespace != "" && key.namespace != sel.namespace || sel.name != "" && key.name != sel.name {
			continue
		}
		if sel.matches(obj, obj.GetLabels()) {
			items = append(items, obj)
		}
	}
	slices.SortFunc(items, func(a, b *unstructured.Unstructured) int {
		return cmp.Or(cmp.Compare(a.GetNamespace(), b.GetNamespace()), cmp.Compare(a.GetName(), b.GetName()))
	})
	return items
}
