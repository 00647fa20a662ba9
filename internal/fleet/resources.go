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

package fleet

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// Mapping finds the API resource serving a kind on the cluster, re-reading discovery once in
// case the kind was installed a moment ago (by the chart just deployed, say).
func (r *Remote) Mapping(gvk schema.GroupVersionKind) (*meta.RESTMapping, error) {
	m, err := r.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		r.Mapper.Reset()
		m, err = r.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	if meta.IsNoMatchError(err) {
		return nil, fmt.Errorf("the cluster does not serve kind %s", GVKString(gvk))
	}
	return m, err
}

// Resource is the dynamic client of a mapping's resource: in namespace when the resource is
// namespaced (every namespace when it is ""), cluster-wide otherwise.
func (r *Remote) Resource(m *meta.RESTMapping, namespace string) dynamic.ResourceInterface {
	res := r.Dynamic.Resource(m.Resource)
	if m.Scope.Name() == meta.RESTScopeNameNamespace && namespace != "" {
		return res.Namespace(namespace)
	}
	return res
}

// GetObject reads one live object, for health scripts calling getResource(apiVersion, kind,
// namespace, name); nil when it does not exist.
func (r *Remote) GetObject(ctx context.Context, apiVersion, kind, namespace, name string) (map[string]any, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	m, err := r.Mapping(gv.WithKind(kind))
	if err != nil {
		return nil, err
	}
	obj, err := r.Resource(m, namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return obj.Object, nil
}

// GVKString writes a kind as group/version/Kind, or version/Kind for the core group.
func GVKString(gvk schema.GroupVersionKind) string {
	if gvk.Group == "" {
		return gvk.Version + "/" + gvk.Kind
	}
	return gvk.Group + "/" + gvk.Version + "/" + gvk.Kind
}

// LabelSelector writes label filters as a label selector: k=v, k!=v, k, !k.
func LabelSelector(filters []libv1beta1.LabelFilter) string {
	var parts []string
	for _, f := range filters {
		switch f.Operation {
		case libv1beta1.OperationEqual:
			parts = append(parts, f.Key+"="+f.Value)
		case libv1beta1.OperationDifferent:
			parts = append(parts, f.Key+"!="+f.Value)
		case libv1beta1.OperationHas:
			parts = append(parts, f.Key)
		case libv1beta1.OperationDoesNotHave:
			parts = append(parts, "!"+f.Key)
		}
	}
	return strings.Join(parts, ",")
}
