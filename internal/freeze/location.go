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

package freeze

import (
	"context"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// OwnerNamespaceLabel is the namespace of a Profile that copies were made for: a Profile cannot
// own objects of another namespace, so its copies are found by label and deleted with it.
const OwnerNamespaceLabel = "stagecoach.dev/frozen-for-namespace"

// namespace is where copies are made: the controller's own, so that it writes Secrets there
// only. Copies that an earlier release made beside their originals are still read and collected.
var namespace = "stagecoach-system"

// SetNamespace sets the namespace copies are made in; the controller sets it once, at start.
func SetNamespace(ns string) {
	if ns != "" {
		namespace = ns
	}
}

// Namespace is the namespace copies are made in.
func Namespace() string { return namespace }

// copySuffix is how every copy's name ends (copyName): only such a name is looked up among
// the copies, so that reading an original costs no extra read.
var copySuffix = regexp.MustCompile(`-[0-9a-f]{10}$`)

// GetCopy reads the copy called name that was made of content of namespace from, into obj (a
// ConfigMap or Secret), from the controller's namespace. It reports false, and leaves obj as it
// was, when there is none: the caller then reads from itself (an original, or a copy an earlier
// release made in the original's namespace). Only a copy whose original was in from is read,
// so that a reference never reaches another namespace's content, nor the controller's own
// objects. c must be the controller's reader: tenants may not read its namespace.
// A copy that allow, when set, refuses is not read either, as if there were none.
func GetCopy(ctx context.Context, c client.Reader, from, name string, obj client.Object, allow func(client.Object) bool) (bool, error) {
	if !copySuffix.MatchString(name) {
		return false, nil
	}
	fresh, ok := reflect.New(reflect.TypeOf(obj).Elem()).Interface().(client.Object)
	if !ok {
		return false, nil
	}
	err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, fresh)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading the frozen copy %s/%s: %w", namespace, name, err)
	}
	if ns, ok := sourceNamespace(fresh); !ok || ns != from || (allow != nil && !allow(fresh)) {
		return false, nil
	}
	reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(fresh).Elem())
	return true, nil
}

// sourceNamespace is the namespace of the original a copy was made of.
func sourceNamespace(obj client.Object) (string, bool) {
	from, ok := obj.GetAnnotations()[SourceAnnotation]
	if !ok {
		return "", false
	}
	_, nsName, _ := strings.Cut(from, " ")
	ns, _, ok := strings.Cut(nsName, "/")
	return ns, ok
}

// earlier reports whether err refuses a write to a copy an earlier release made beside its
// original: the controller writes only in its own namespace now, and garbage collection deletes
// such a copy with its owner.
func earlier(obj client.Object, err error) bool {
	return obj.GetNamespace() != namespace && apierrors.IsForbidden(err)
}

// specRef is how a spec refers to a copy: by its original's namespace, wherever the copy is.
func specRef(obj client.Object) Ref {
	ns := obj.GetNamespace()
	if src, ok := sourceNamespace(obj); ok && ns == namespace {
		ns = src
	}
	return Ref{kindOf(obj), ns, obj.GetName()}
}

// place puts a new copy in the controller's namespace, labelled for its owner. A cluster-scoped
// owner owns it, and garbage collection deletes it with the owner; a Profile cannot own an object
// of another namespace, and its copies are deleted by Collect when it goes.
func place(cp client.Object, owner Owner, scheme *runtime.Scheme) error {
	cp.SetNamespace(namespace)
	labels := cp.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	for k, v := range owner.labels() {
		labels[k] = v
	}
	cp.SetLabels(labels)
	if owner.Object.GetNamespace() != "" {
		return nil
	}
	return controllerutil.SetOwnerReference(owner.Object, cp, scheme)
}
