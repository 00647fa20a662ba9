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

package clustersummary

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

// resourceFor finds the API resource serving a kind on the cluster, re-reading discovery once
// in case the kind was installed a moment ago (by the chart just deployed, say).
func resourceFor(remote *fleet.Remote, gvk schema.GroupVersionKind) (*meta.RESTMapping, error) {
	m, err := remote.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		remote.Mapper.Reset()
		m, err = remote.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	if meta.IsNoMatchError(err) {
		return nil, fmt.Errorf("the cluster does not serve kind %s", gvkString(gvk))
	}
	return m, err
}

func resourceClient(remote *fleet.Remote, m *meta.RESTMapping, namespace string) dynamic.ResourceInterface {
	if m.Scope.Name() == meta.RESTScopeNameNamespace && namespace != "" {
		return remote.Dynamic.Resource(m.Resource).Namespace(namespace)
	}
	return remote.Dynamic.Resource(m.Resource)
}

// checkTargets returns the live objects a health check examines: the one it names, or every
// object of its kind in its namespace matching its label filters. Finding none is an error:
// a check that examines nothing would pass vacuously.
func checkTargets(ctx context.Context, remote *fleet.Remote, check *libv1beta1.ValidateHealth) ([]unstructured.Unstructured, error) {
	gvk := schema.GroupVersionKind{Group: check.Group, Version: check.Version, Kind: check.TargetKind()}
	m, err := resourceFor(remote, gvk)
	if err != nil {
		return nil, err
	}
	rc := resourceClient(remote, m, check.Namespace)
	if name := check.TargetName(); name != "" {
		obj, err := rc.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("%s %s does not exist", gvk.Kind, qualified(check.Namespace, name))
		}
		if err != nil {
			return nil, err
		}
		return []unstructured.Unstructured{*obj}, nil
	}
	list, err := rc.List(ctx, metav1.ListOptions{LabelSelector: labelSelector(check.LabelFilters)})
	if err != nil {
		return nil, err
	}
	if len(list.Items) == 0 {
		where := "the cluster"
		if check.Namespace != "" {
			where = "namespace " + check.Namespace
		}
		return nil, fmt.Errorf("no %s found in %s", gvk.Kind, where)
	}
	return list.Items, nil
}

// labelSelector writes label filters as a label selector: k=v, k!=v, k, !k.
func labelSelector(filters []libv1beta1.LabelFilter) string {
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

// getResource reads one live object from the managed cluster for scripts calling
// getResource(apiVersion, kind, namespace, name); nil when it does not exist.
func getResource(remote *fleet.Remote) func(ctx context.Context, apiVersion, kind, namespace, name string) (map[string]any, error) {
	return func(ctx context.Context, apiVersion, kind, namespace, name string) (map[string]any, error) {
		gv, err := schema.ParseGroupVersion(apiVersion)
		if err != nil {
			return nil, err
		}
		m, err := resourceFor(remote, gv.WithKind(kind))
		if err != nil {
			return nil, err
		}
		obj, err := resourceClient(remote, m, namespace).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return obj.Object, nil
	}
}

func gvkString(gvk schema.GroupVersionKind) string {
	if gvk.Group == "" {
		return gvk.Version + "/" + gvk.Kind
	}
	return gvk.Group + "/" + gvk.Version + "/" + gvk.Kind
}

func qualified(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
