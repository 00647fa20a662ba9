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
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Deletion is immediate: finalizers and graceful deletion are not simulated, and neither is the
// garbage collector (ownerReferences). Deleting a namespace deletes what it holds; deleting a
// CustomResourceDefinition deletes its objects and stops serving its resource.

// protectedNamespaces cannot be deleted, as in a real cluster.
var protectedNamespaces = []string{"default", "kube-public", "kube-system"}

func (q *request) deleteOptions() (*metav1.DeleteOptions, error) {
	var opts metav1.DeleteOptions
	data, mediaType, err := q.body()
	if err != nil {
		return nil, err
	}
	switch {
	case len(data) == 0:
	case mediaType == protobufContentType:
		obj, _, err := typedDecoder.Decode(data, nil, nil)
		decoded, ok := obj.(*metav1.DeleteOptions)
		if err != nil || !ok {
			return nil, errBadRequest("the body is not DeleteOptions: %v", err)
		}
		opts = *decoded
	default:
		if err := json.Unmarshal(data, &opts); err != nil {
			return nil, errBadRequest("the body is not DeleteOptions: %v", err)
		}
	}
	// DeleteOptions have no generated query conversion; dryRun is the one that matters here.
	if dryRun := q.query["dryRun"]; len(dryRun) > 0 {
		opts.DryRun = dryRun
	}
	return &opts, nil
}

func (q *request) delete() error {
	if q.subresource != "" {
		return errMethodNotSupported(q.rt, "delete")
	}
	opts, err := q.deleteOptions()
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
	if err := mayDelete(q.rt, old, opts.Preconditions); err != nil {
		return err
	}
	if !isDryRun(opts.DryRun) {
		q.c.remove(d, q.rt, key, old)
	}
	writeJSON(q.w, http.StatusOK, &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusSuccess,
		Details:  &metav1.StatusDetails{Name: q.name, Group: q.rt.group, Kind: q.rt.resource, UID: old.GetUID()},
	})
	return nil
}

// mayDelete checks a deletion's preconditions.
func mayDelete(rt *resourceType, old *unstructured.Unstructured, pre *metav1.Preconditions) error {
	if rt.groupResource() == namespacesResource && slices.Contains(protectedNamespaces, old.GetName()) {
		return apierrors.NewForbidden(rt.groupResource(), old.GetName(), errors.New("this namespace may not be deleted"))
	}
	if pre == nil {
		return nil
	}
	if pre.UID != nil && *pre.UID != old.GetUID() {
		return apierrors.NewConflict(rt.groupResource(), old.GetName(),
			fmt.Errorf("precondition failed: UID in precondition: %v, UID in object meta: %v", *pre.UID, old.GetUID()))
	}
	if pre.ResourceVersion != nil && *pre.ResourceVersion != old.GetResourceVersion() {
		return apierrors.NewConflict(rt.groupResource(), old.GetName(),
			fmt.Errorf("precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *pre.ResourceVersion, old.GetResourceVersion()))
	}
	return nil
}

func (q *request) deleteCollection() error {
	opts, err := q.deleteOptions()
	if err != nil {
		return err
	}
	listOpts, err := q.listOptions()
	if err != nil {
		return err
	}
	sel, err := q.selection(listOpts)
	if err != nil {
		return err
	}
	d := q.c.lock()
	defer q.c.unlock()
	var deleted []*unstructured.Unstructured
	for _, obj := range d.selected(q.rt, sel) {
		if mayDelete(q.rt, obj, nil) != nil {
			continue
		}
		if !isDryRun(opts.DryRun) {
			obj = q.c.remove(d, q.rt, objectKey{obj.GetNamespace(), obj.GetName()}, obj)
		}
		deleted = append(deleted, obj)
	}
	writeList(q.w, q.rt, q.version, d.rv, deleted)
	return nil
}

// remove deletes an object and what goes with it. The cluster is locked.
func (c *Cluster) remove(d *clusterData, rt *resourceType, key objectKey, old *unstructured.Unstructured) *unstructured.Unstructured {
	switch rt.groupResource() {
	case namespacesResource:
		for gr, objs := range d.objects {
			t := d.typeOf(gr)
			if t == nil || !t.namespaced {
				continue
			}
			for k, obj := range objs {
				if k.namespace == key.name {
					d.record(gr, k, obj, nil)
				}
			}
		}
	case crdResource:
		c.unregisterCRD(d, old)
	}
	return d.record(rt.groupResource(), key, old, nil)
}
