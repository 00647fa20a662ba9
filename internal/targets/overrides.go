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

package targets

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/override"
)

// ClusterOverrides names, per member cluster, the latest override snapshots that concern the
// placement (ns "" for a ClusterResourcePlacement) delivering the objects objs returns (called
// only when some override exists), as Kubefleet picks them for a cluster's binding. A cluster without any gets zero Names; one whose MemberCluster is gone
// gets none either.
func ClusterOverrides(ctx context.Context, c client.Reader, namespace, placement string, objs func() ([]*unstructured.Unstructured, error), clusters []string) (
	map[string]override.Names, error) {
	latest := client.MatchingLabels{placementv1beta1.IsLatestSnapshotLabel: "true"}
	cros := &placementv1beta1.ClusterResourceOverrideSnapshotList{}
	if err := c.List(ctx, cros, latest); err != nil {
		return nil, err
	}
	ros := &placementv1beta1.ResourceOverrideSnapshotList{}
	if err := c.List(ctx, ros, latest); err != nil {
		return nil, err
	}
	out := make(map[string]override.Names, len(clusters))
	if len(cros.Items) == 0 && len(ros.Items) == 0 {
		return out, nil
	}
	croPtrs := make([]*placementv1beta1.ClusterResourceOverrideSnapshot, 0, len(cros.Items))
	for i := range cros.Items {
		croPtrs = append(croPtrs, &cros.Items[i])
	}
	roPtrs := make([]*placementv1beta1.ResourceOverrideSnapshot, 0, len(ros.Items))
	for i := range ros.Items {
		roPtrs = append(roPtrs, &ros.Items[i])
	}
	selected, err := objs()
	if err != nil {
		return nil, err
	}
	applicable := override.Applicable(override.PlacementKey(namespace, placement), selected, croPtrs, roPtrs)
	if applicable.Empty() {
		return out, nil
	}
	for _, name := range clusters {
		mc := &clusterv1beta1.MemberCluster{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, mc); err != nil {
			if client.IgnoreNotFound(err) == nil {
				continue
			}
			return nil, err
		}
		names, err := applicable.ForCluster(override.Cluster{Name: mc.Name, Labels: mc.Labels})
		if err != nil {
			return nil, err
		}
		out[name] = names
	}
	return out, nil
}
