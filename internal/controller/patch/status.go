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

// Package patch is how every Stagecoach reconciler writes what it learnt: the status, patched
// once at the end of a reconcile (in a defer), under an optimistic lock where the status is a
// state machine; the conditions inside it; and finalizers, patched rather than updated.
package patch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// RetryAfterRace is how soon a reconcile that lost a race runs again: its read was stale (a
// write conflicted, or an object it was about to create exists already), and a fresh read is
// all it takes.
const RetryAfterRace = 50 * time.Millisecond

// StatusWriter writes the status of one object at the end of one reconcile. Make it right after
// reading the object, before anything changes it, and defer Write:
//
//	w, err := patch.NewStatusWriter(r.Client, obj, patch.WithOptimisticLock())
//	if err != nil { return ctrl.Result{}, err }
//	defer w.Write(ctx, &result, &retErr)
type StatusWriter struct {
	client client.Client
	obj    client.Object
	// before is the status as read.
	before reflect.Value
	lock   bool
	// observed is false when the reconcile did not act on the current spec.
	observed bool
}

// Option tunes a StatusWriter.
type Option func(*StatusWriter)

// WithOptimisticLock makes the write fail with a conflict, and the reconcile run again, when the
// object changed since this reconcile read it (or last wrote it). Use it for every status that is
// a state machine: a reconcile that read a stale object from the cache must never write its stale
// view over a newer one.
func WithOptimisticLock() Option { return func(w *StatusWriter) { w.lock = true } }

// NewStatusWriter remembers obj's status as read. obj must be a pointer to a struct with a
// Status field, as every API kind with a status subresource is.
func NewStatusWriter(c client.Client, obj client.Object, opts ...Option) (*StatusWriter, error) {
	status, err := statusOf(obj)
	if err != nil {
		return nil, err
	}
	w := &StatusWriter{client: c, obj: obj, before: deepCopy(status), observed: true}
	for _, o := range opts {
		o(w)
	}
	return w, nil
}

// NotObserved says the reconcile did not act on the object's current spec (it waited on a
// cluster, say): status.observedGeneration keeps its value, so nobody takes the rest of the
// status for a description of the current spec.
func (w *StatusWriter) NotObserved() { w.observed = false }

// Write patches the status if the reconcile changed it, and reports whether the status the
// reconcile computed is now stored (written, or unchanged). A reconcile that returned no error
// has observed the object's generation: status.observedGeneration, where the kind has one, says
// so. A conflict or an already existing object, met during the reconcile or by the write itself,
// means a stale read: the reconcile runs again shortly, without an error. A status whose object
// is gone is not written.
func (w *StatusWriter) Write(ctx context.Context, result *ctrl.Result, retErr *error) (stored bool) {
	if *retErr == nil && w.observed {
		setObservedGeneration(w.obj)
	}
	err := w.patch(ctx)
	if err != nil {
		*retErr = errors.Join(*retErr, err)
	}
	if LostRace(*retErr) {
		*result, *retErr = RetryRace(ctx, *retErr)
	}
	return err == nil
}

// RetryRace turns a lost race (err is a conflict or an already existing object: the reconcile
// read a stale cache) into a reconcile again shortly, without an error; any other err is
// returned as it is.
func RetryRace(ctx context.Context, err error) (ctrl.Result, error) {
	if !LostRace(err) {
		return ctrl.Result{}, err
	}
	ctrl.LoggerFrom(ctx).V(1).Info("stale read, reconciling again", "error", err.Error())
	return ctrl.Result{RequeueAfter: RetryAfterRace}, nil
}

// Flush writes the status as changed so far at once, and Write then writes only what changes
// after. A reconcile about to change something outside the API server (a managed cluster) flushes
// a status that says what it is about to do, so that a process that dies while doing it leaves a
// status that says so, rather than the one from before.
//
// The object the reconcile holds is left as it is, but for its resourceVersion: the API server's
// answer is read into a copy, so that pointers into its status stay valid.
func (w *StatusWriter) Flush(ctx context.Context) error {
	sent := w.obj.DeepCopyObject().(client.Object)
	if err := w.patchFrom(ctx, sent); err != nil {
		return err
	}
	w.obj.SetResourceVersion(sent.GetResourceVersion())
	after, _ := statusOf(w.obj) // checked by NewStatusWriter
	w.before = deepCopy(after)
	return nil
}

func (w *StatusWriter) patch(ctx context.Context) error { return w.patchFrom(ctx, w.obj) }

// patchFrom patches the status of obj, the reconcile's object or a copy of it, into which the
// API server's answer is read.
func (w *StatusWriter) patchFrom(ctx context.Context, obj client.Object) error {
	after, _ := statusOf(obj) // checked by NewStatusWriter
	changed, err := differ(w.before.Interface(), after.Interface())
	if err != nil || !changed {
		return err
	}
	// The patch is computed against the object as it is now with the status as it was read, so
	// that it carries the status and nothing else, and the lock checks the version of the
	// object this reconcile last saw: its read, or its own last write (a finalizer, say).
	base := obj.DeepCopyObject().(client.Object)
	baseStatus, _ := statusOf(base)
	baseStatus.Set(w.before)
	p := client.MergeFrom(base)
	if w.lock {
		p = client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})
	}
	if err := w.client.Status().Patch(ctx, obj, p); err != nil {
		return client.IgnoreNotFound(fmt.Errorf("writing the status: %w", err))
	}
	return nil
}

// LostRace reports errors that a prompt retry resolves: a write based on a stale read.
func LostRace(err error) bool {
	return err != nil && (apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err))
}

func statusOf(obj client.Object) (reflect.Value, error) {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, fmt.Errorf("%T is not a pointer to a struct", obj)
	}
	status := v.Elem().FieldByName("Status")
	if !status.IsValid() {
		return reflect.Value{}, fmt.Errorf("%T has no Status", obj)
	}
	return status, nil
}

// deepCopy copies a status with its generated DeepCopy or, lacking one, through JSON, the form
// it is written in.
func deepCopy(status reflect.Value) reflect.Value {
	if m := status.Addr().MethodByName("DeepCopy"); m.IsValid() && m.Type().NumIn() == 0 {
		return m.Call(nil)[0].Elem()
	}
	out := reflect.New(status.Type())
	data, err := json.Marshal(status.Interface())
	if err == nil {
		err = json.Unmarshal(data, out.Interface())
	}
	if err != nil {
		panic(fmt.Sprintf("copying a %s: %v", status.Type(), err)) // API types always round-trip
	}
	return out.Elem()
}

// differ compares two statuses as they would be written: times to the second, empty and absent
// lists alike where the API omits them.
func differ(a, b any) (bool, error) {
	x, err := json.Marshal(a)
	if err != nil {
		return false, err
	}
	y, err := json.Marshal(b)
	if err != nil {
		return false, err
	}
	return !bytes.Equal(x, y), nil
}

func setObservedGeneration(obj client.Object) {
	status, _ := statusOf(obj)
	if f := status.FieldByName("ObservedGeneration"); f.IsValid() && f.Kind() == reflect.Int64 && f.CanSet() {
		f.SetInt(obj.GetGeneration())
	}
}

// ChangeStatus applies change to the status of obj — an object the reconcile does not own, such
// as the binding of a placement — and writes it at once if that changed anything.
func ChangeStatus(ctx context.Context, c client.Client, obj client.Object, change func(), opts ...Option) error {
	w, err := NewStatusWriter(c, obj, opts...)
	if err != nil {
		return err
	}
	change()
	return w.patch(ctx)
}
