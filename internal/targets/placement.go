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
	"fmt"
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/inplace"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

// Every function here reads objects of one family, in namespace (none for the cluster-scoped
// family), that belong to the named placement. Bindings and member clusters, thousands of them,
// are read in place from informers when it is not nil, else listed through c.

// SnapshotIndices lists, in increasing order, the resource snapshot indices of the placement
// that have a first ("master") snapshot, as c sees them (a cache, or the API server): the
// indices a run may name.
func SnapshotIndices(ctx context.Context, c client.Reader, family placementv1beta1.Family, namespace, placement string) ([]int, error) {
	list := family.NewResourceSnapshotList()
	if err := c.List(ctx, list, client.InNamespace(namespace),
		client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: placement}); err != nil {
		return nil, err
	}
	var indices []int
	for _, s := range list.ResourceSnapshotObjs() {
		if _, master := s.GetAnnotations()[placementv1beta1.ResourceGroupHashAnnotation]; !master {
			continue
		}
		if i, err := strconv.Atoi(s.GetLabels()[placementv1beta1.ResourceIndexLabel]); err == nil {
			indices = append(indices, i)
		}
	}
	slices.Sort(indices)
	return indices, nil
}

// Bindings lists the placement's bindings, by target cluster. Read in place, they are the
// cache's own: whoever writes one copies it first.
func Bindings(ctx context.Context, c client.Reader, informers cache.Informers, family placementv1beta1.Family, namespace, placement string) (
	map[string]placementv1beta1.BindingObj, error) {
	objs, err := inplace.Objects(ctx, informers, c, family.NewBinding(), family.NewBindingList(), namespace,
		labels.SelectorFromSet(labels.Set{placementv1beta1.PlacementTrackingLabel: placement}))
	if err != nil {
		return nil, err
	}
	out := make(map[string]placementv1beta1.BindingObj, len(objs))
	for _, o := range objs {
		b, ok := o.(placementv1beta1.BindingObj)
		if !ok {
			return nil, fmt.Errorf("listing the bindings of %s: got a %T", placement, o)
		}
		out[b.BindingSpec().TargetCluster] = b
	}
	return out, nil
}

// PlacementClusters returns the clusters a run of the placement would update if it started now,
// with their labels, sorted by name, and those it would remove the placement's resources from
// (its unscheduled bindings), sorted.
func PlacementClusters(ctx context.Context, c client.Reader, informers cache.Informers, family placementv1beta1.Family, namespace, placement string) (
	members []rollout.Member, unscheduled []string, err error) {
	bindings, err := Bindings(ctx, c, informers, family, namespace, placement)
	if err != nil {
		return nil, nil, err
	}
	var selected []string
	for cluster, b := range bindings {
		if b.BindingSpec().State == placementv1beta1.BindingStateUnscheduled {
			unscheduled = append(unscheduled, cluster)
		} else {
			selected = append(selected, cluster)
		}
	}
	slices.Sort(selected)
	slices.Sort(unscheduled)
	byName, err := memberLabels(ctx, c, informers, selected)
	if err != nil {
		return nil, nil, err
	}
	members = make([]rollout.Member, 0, len(selected))
	for _, name := range selected {
		members = append(members, rollout.Member{Name: name, Labels: byName[name]})
	}
	return members, unscheduled, nil
}

// memberLabels returns the labels of the member clusters named in sorted, a sorted list. The
// maps may be the cache's own: read them, never change them.
func memberLabels(ctx context.Context, c client.Reader, informers cache.Informers, sorted []string) (map[string]map[string]string, error) {
	// Every member cluster of a fleet of thousands: read in place, not copied.
	list, err := inplace.List[clusterv1beta1.MemberCluster](ctx, informers, c, &clusterv1beta1.MemberClusterList{}, nil)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]string{}
	for _, m := range list {
		if _, ok := slices.BinarySearch(sorted, m.Name); ok {
			out[m.Name] = m.Labels
		}
	}
	return out, nil
}
