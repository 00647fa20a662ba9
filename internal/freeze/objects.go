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
	"encoding/json"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fluxsource"
)

// Objects that templateResourceRefs name may be of any kind, and may hold secrets. Their copy
// is an immutable Secret of type ObjectCopyType holding the object, as the templates read it,
// as JSON under ObjectCopyKey. A Ref to such an object has the kind "<apiVersion>/<Kind>"
// ("v1/ConfigMap", "apps/v1/Deployment"), which keeps it apart from the ConfigMaps and Secrets
// that policyRefs and valuesFrom read and that are copied as they are.
const (
	ObjectCopyType corev1.SecretType = "stagecoach.dev/frozen-object"
	ObjectCopyKey  string            = "object.json"
)

// IsObject reports whether r names an object that templateResourceRefs read.
func (r Ref) IsObject() bool { return strings.Contains(r.Kind, "/") }

// GroupVersionKind is the kind of an object ref.
func (r Ref) GroupVersionKind() schema.GroupVersionKind {
	i := strings.LastIndex(r.Kind, "/")
	if i < 0 {
		return corev1.SchemeGroupVersion.WithKind(r.Kind)
	}
	return schema.FromAPIVersionAndKind(r.Kind[:i], r.Kind[i+1:])
}

// Copy is the reference to the copy of r called name: a Secret for an object ref, a ConfigMap
// for a Flux source's artifact, and the same kind for a ConfigMap or Secret.
func (r Ref) Copy(name string) Ref {
	kind := r.Kind
	switch {
	case r.IsObject():
		kind = "Secret"
	case fluxsource.IsKind(r.Kind):
		kind = "ConfigMap"
	}
	return Ref{Kind: kind, Namespace: r.Namespace, Name: name}
}

// ObjectRef is the ref of the object of apiVersion and kind that a templateResourceRef or a
// renderer names.
func ObjectRef(apiVersion, kind, namespace, name string) Ref {
	if apiVersion == "" {
		apiVersion = "v1"
	}
	return Ref{Kind: apiVersion + "/" + kind, Namespace: namespace, Name: name}
}

// IsTemplated reports whether a reference's name or namespace is a template, resolved per
// cluster.
func IsTemplated(s string) bool { return strings.Contains(s, "{{") }

// templateRef is the ref of a templateResourceRef that can be read once for every cluster: its
// namespace is set and neither its namespace nor its name is a template.
func templateRef(t *configv1beta1.TemplateResourceRef) (Ref, bool) {
	r := t.Resource
	if r.Namespace == "" || r.Name == "" || IsTemplated(r.Namespace) || IsTemplated(r.Name) || r.Kind == "" {
		return Ref{}, false
	}
	return ObjectRef(r.APIVersion, r.Kind, r.Namespace, r.Name), true
}

// TemplateObject is what a template reads of an object a templateResourceRef names, as Sveltos
// gives it: without what the API server keeps for itself (resourceVersion, uid, managedFields),
// without its status when ignoreStatusChanges is set, and only the watchFields when there are
// any. The object is changed in place.
func TemplateObject(obj map[string]any, ref *configv1beta1.TemplateResourceRef) map[string]any {
	u := unstructured.Unstructured{Object: obj}
	u.SetManagedFields(nil)
	u.SetResourceVersion("")
	u.SetUID("")
	if len(ref.WatchFields) > 0 {
		out := map[string]any{}
		for _, path := range ref.WatchFields {
			fields := strings.Split(path, ".")
			if v, ok, err := unstructured.NestedFieldNoCopy(obj, fields...); err == nil && ok {
				_ = unstructured.SetNestedField(out, runtime.DeepCopyJSONValue(v), fields...)
			}
		}
		return out
	}
	if ref.IgnoreStatusChanges {
		delete(obj, "status")
	}
	return obj
}

// ReadObject reads an object of any kind from the management cluster; nil when it does not
// exist. ConfigMaps and Secrets come from c's cache; other kinds from the API server.
func ReadObject(ctx context.Context, c client.Reader, ref Ref) (*unstructured.Unstructured, error) {
	gvk := ref.GroupVersionKind()
	key := client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}
	var typed client.Object
	switch {
	case gvk == corev1.SchemeGroupVersion.WithKind("ConfigMap"):
		typed = &corev1.ConfigMap{}
	case gvk == corev1.SchemeGroupVersion.WithKind("Secret"):
		typed = &corev1.Secret{}
	}
	if typed == nil {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		if err := c.Get(ctx, key, u); apierrors.IsNotFound(err) {
			return nil, nil
		} else if err != nil {
			return nil, err
		}
		return u, nil
	}
	if err := c.Get(ctx, key, typed); apierrors.IsNotFound(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// isObjectCopy reports whether obj is the copy of an object: by its type, which outlives the
// labels of a copy that was released.
func isObjectCopy(obj client.Object) bool {
	switch o := obj.(type) {
	case *corev1.Secret:
		return o.Type == ObjectCopyType
	case *unstructured.Unstructured:
		t, _, _ := unstructured.NestedString(o.Object, "type")
		return o.GetKind() == "Secret" && o.GetAPIVersion() == "v1" && t == string(ObjectCopyType)
	}
	return false
}

// CopiedObject is the object a copy made for an object ref keeps, or nil when obj is not such
// a copy.
func CopiedObject(obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if !isObjectCopy(obj) {
		return nil, nil
	}
	var secret corev1.Secret
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &secret); err != nil {
		return nil, err
	}
	out := &unstructured.Unstructured{}
	if err := json.Unmarshal(secret.Data[ObjectCopyKey], &out.Object); err != nil {
		return nil, fmt.Errorf("the frozen copy %s/%s is damaged: %w", obj.GetNamespace(), obj.GetName(), err)
	}
	return out, nil
}

// PollInterval is how often a rollout that reads objects no watch covers (Polled) reads them
// again. The controller watches ConfigMaps and Secrets; an object of another kind that
// templateResourceRefs name could be of any kind the management cluster serves, and is read
// again on this period instead.
const PollInterval = 30 * time.Second

// Polled reports whether refs name an object of a kind other than ConfigMap and Secret.
func Polled(refs []Ref) bool {
	for _, r := range refs {
		if r.IsObject() && r.Kind != "v1/ConfigMap" && r.Kind != "v1/Secret" {
			return true
		}
	}
	return false
}
