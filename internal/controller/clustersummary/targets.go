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

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

// checkTargets returns the live objects a health check examines: the one it names, or every
// object of its kind in its namespace matching its label filters. Finding none is an error:
// a check that examines nothing would pass vacuously.
func checkTargets(ctx context.Context, remote *fleet.Remote, check *libv1beta1.ValidateHealth) ([]unstructured.Unstructured, error) {
	gvk := schema.GroupVersionKind{Group: check.Group, Version: check.Version, Kind: check.TargetKind()}
	m, err := remote.Mapping(gvk)
	if err != nil {
		return nil, err
	}
	rc := remote.Resource(m, check.Namespace)
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
	list, err := rc.List(ctx, metav1.ListOptions{LabelSelector: fleet.LabelSelector(check.LabelFilters)})
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

func qualified(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
