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
	"net/http"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// change is a write about to be made to one object.
type change struct {
	rt  *resourceType
	key objectKey
	// old is the stored object; nil for a create.
	old *unstructured.Unstructured
	// obj is the object as the client's write makes it, managedFields included.
	obj         *unstructured.Unstructured
	subresource string
	dryRun      bool
}

// save completes a write with what the API server sets itself, validates it and stores it,
// returning the object as stored: the old one when the write changes nothing, as an API server
// does not bump the resourceVersion of a no-op. The cluster is locked.
func (c *Cluster) save(d *clusterData, ch change) (*unstructured.Unstructured, error) {
	obj := withOwnMetadata(ch.obj)
	obj.SetAPIVersion(ch.rt.apiVersion(ch.rt.storageVersion))
	if ch.old == nil {
		if ch.rt.namespaced && !d.namespaceExists(ch.key.namespace) {
			return nil, apierrors.NewNotFound(namespacesResource, ch.key.namespace)
		}
		initMetadata(ch.rt, obj)
	} else {
		obj = keepServerFields(ch.rt, ch.old, obj, ch.subresource)
	}
	setDefaults(d, ch.rt, ch.old, obj)
	if errs := validate(ch.rt, ch.old, obj); len(errs) > 0 {
		return nil, apierrors.NewInvalid(ch.rt.groupVersionKind(ch.rt.storageVersion).GroupKind(), obj.GetName(), errs)
	}
	if ch.old != nil && unchanged(ch.old, obj) {
		return ch.old, nil
	}
	if ch.dryRun {
		rv := ""
		if ch.old != nil {
			rv = ch.old.GetResourceVersion()
		}
		obj.SetResourceVersion(rv)
		return obj, nil
	}
	stored := d.record(ch.rt.groupResource(), ch.key, ch.old, obj)
	c.afterWrite(d, ch.rt, ch.old, stored)
	return stored, nil
}

// initMetadata sets what the server sets on a new object.
func initMetadata(rt *resourceType, obj *unstructured.Unstructured) {
	meta := obj.Object["metadata"].(map[string]any)
	for _, f := range []string{"resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"} {
		delete(meta, f)
	}
	meta["uid"] = string(uuid.NewUUID())
	meta["creationTimestamp"] = timestamp(time.Now())
	meta["generation"] = int64(1)
	if rt.status {
		// A create does not set the status of a resource that has a status subresource.
		delete(obj.Object, "status")
	}
}

// keepServerFields carries over what a write to an existing object cannot change: identity,
// creation time, the status (unless the write is to /status, which changes nothing else), and
// the generation, which counts changes outside metadata and status.
func keepServerFields(rt *resourceType, old, obj *unstructured.Unstructured, subresource string) *unstructured.Unstructured {
	if subresource == "status" {
		next := withOwnMetadata(old)
		setOrDelete(next.Object, "status", obj.Object["status"])
		next.SetManagedFields(obj.GetManagedFields())
		return next
	}
	meta := obj.Object["metadata"].(map[string]any)
	oldMeta, _ := old.Object["metadata"].(map[string]any)
	for _, f := range []string{"uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"} {
		setOrDelete(meta, f, oldMeta[f])
	}
	if rt.status {
		setOrDelete(obj.Object, "status", old.Object["status"])
	}
	generation := old.GetGeneration()
	if generation == 0 {
		generation = 1
	}
	if specChanged(old.Object, obj.Object) {
		generation++
	}
	meta["generation"] = generation
	return obj
}

func setOrDelete(m map[string]any, key string, v any) {
	if v == nil {
		delete(m, key)
		return
	}
	m[key] = v
}

// manager is the field manager of a write that names none: the client's program name, as an
// API server takes it from the User-Agent.
func (q *request) manager(fieldManager string) string {
	if fieldManager != "" {
		return fieldManager
	}
	agent, _, _ := strings.Cut(q.r.UserAgent(), "/")
	return agent
}

func isDryRun(dryRun []string) bool { return len(dryRun) > 0 }

// placeObject checks the body's namespace and name against the path's, filling them in.
func (q *request) placeObject(obj *unstructured.Unstructured) error {
	if q.rt.namespaced {
		switch ns := obj.GetNamespace(); {
		case ns == "":
			obj.SetNamespace(q.namespace)
		case ns != q.namespace:
			return errBadRequest("the namespace of the provided object does not match the namespace sent on the request")
		}
	} else {
		obj.SetNamespace("")
	}
	if q.name != "" {
		switch name := obj.GetName(); {
		case name == "":
			obj.SetName(q.name)
		case name != q.name:
			return errBadRequest("the name of the object (%s) does not match the name on the URL (%s)", name, q.name)
		}
	}
	return nil
}

func (q *request) create() error {
	if q.subresource != "" || q.rt.namespaced && q.namespace == "" {
		return errMethodNotSupported(q.rt, "create")
	}
	opts, err := q.createOptions()
	if err != nil {
		return err
	}
	obj, err := q.decodeObject()
	if err != nil {
		return err
	}
	if err := q.placeObject(obj); err != nil {
		return err
	}
	fm, err := fieldManager(q.rt, q.version, "")
	if err != nil {
		return err
	}
	d := q.c.lock()
	defer q.c.unlock()
	if obj.GetName() == "" {
		if obj.GetGenerateName() == "" {
			return apierrors.NewInvalid(q.rt.groupVersionKind(q.version).GroupKind(), "",
				field.ErrorList{field.Required(field.NewPath("metadata", "name"), "name or generateName is required")})
		}
		obj.SetName(uniqueName(d, q.rt, obj))
	}
	key := objectKey{obj.GetNamespace(), obj.GetName()}
	if d.object(q.rt.groupResource(), key) != nil {
		return apierrors.NewAlreadyExists(q.rt.groupResource(), key.name)
	}
	live, _ := unstructuredCreater{}.New(q.rt.groupVersionKind(q.version))
	managed := fm.UpdateNoErrors(live, obj, q.manager(opts.FieldManager)).(*unstructured.Unstructured)
	stored, err := q.c.save(d, change{rt: q.rt, key: key, obj: managed, dryRun: isDryRun(opts.DryRun)})
	if err != nil {
		return err
	}
	writeObject(q.w, http.StatusCreated, stored, q.apiVersion())
	return nil
}

// uniqueName picks a free name from generateName.
func uniqueName(d *clusterData, rt *resourceType, obj *unstructured.Unstructured) string {
	for {
		name := obj.GetGenerateName() + rand.String(5)
		if d.object(rt.groupResource(), objectKey{obj.GetNamespace(), name}) == nil {
			return name
		}
	}
}

func (q *request) update() error {
	opts, err := q.updateOptions()
	if err != nil {
		return err
	}
	obj, err := q.decodeObject()
	if err != nil {
		return err
	}
	if err := q.placeObject(obj); err != nil {
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
	if old == nil {
		return apierrors.NewNotFound(q.rt.groupResource(), q.name)
	}
	if err := checkResourceVersion(q.rt, old, obj); err != nil {
		return err
	}
	managed := fm.UpdateNoErrors(asVersion(old, q.apiVersion()), obj, q.manager(opts.FieldManager)).(*unstructured.Unstructured)
	stored, err := q.c.save(d, change{rt: q.rt, key: key, old: old, obj: managed, subresource: q.subresource, dryRun: isDryRun(opts.DryRun)})
	if err != nil {
		return err
	}
	writeObject(q.w, http.StatusOK, stored, q.apiVersion())
	return nil
}

// checkResourceVersion refuses a write based on an older version of the object.
func checkResourceVersion(rt *resourceType, old, obj *unstructured.Unstructured) error {
	if rv := obj.GetResourceVersion(); rv != "" && rv != old.GetResourceVersion() {
		return apierrors.NewConflict(rt.groupResource(), old.GetName(),
			fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
	}
	return nil
}

func errMethodNotSupported(rt *resourceType, verb string) error {
	return apierrors.NewMethodNotSupported(rt.groupResource(), verb)
}
