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
	"cmp"
	"context"
	"slices"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/override"
)

// ClusterOverrides names, per member cluster, the latest override snapshots that concern the
// placement (ns "" for a ClusterResourcePlacement) delivering the objects objs returns (called
// only when some override exists), as Kubefleet picks them for a cluster's binding. A cluster
// without any gets zero Names; one whose MemberCluster is gone gets none either.
func ClusterOverrides(ctx context.Context, c client.Reader, namespace, placement string, objs func() ([]*unstructured.Unstructured, error), clusters []string) (
	map[string]override.Names, error) {
	return ClusterOverridesAt(ctx, c, nil, namespace, placement, objs, clusters)
}

// ClusterOverridesAt is ClusterOverrides with the snapshots that were latest at a time: for each
// override, its newest snapshot created by then (none if the override is newer); nil is now.
// Where the history limit has deleted that snapshot, the override's latest one stands in.
func ClusterOverridesAt(ctx context.Context, c client.Reader, at *time.Time, namespace, placement string,
	objs func() ([]*unstructured.Unstructured, error), clusters []string) (map[string]override.Names, error) {
	var opts []client.ListOption
	if at == nil {
		opts = append(opts, client.MatchingLabels{placementv1beta1.IsLatestSnapshotLabel: "true"})
	}
	cros := &placementv1beta1.ClusterResourceOverrideSnapshotList{}
	if err := c.List(ctx, cros, opts...); err != nil {
		return nil, err
	}
	ros := &placementv1beta1.ResourceOverrideSnapshotList{}
	// A ResourcePlacement's objects are all in its namespace, and a ResourceOverride selects
	// only objects of its own: the other namespaces' snapshots cannot concern it.
	if err := c.List(ctx, ros, append(opts, client.InNamespace(namespace))...); err != nil {
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
	if at != nil {
		croPtrs, roPtrs = latestAt(croPtrs, *at), latestAt(roPtrs, *at)
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

// latestAt keeps, of each override's snapshots, the one that was latest at the time.
func latestAt[T client.Object](snaps []T, at time.Time) []T {
	type key struct{ namespace, override string }
	byOverride := map[key][]T{}
	for _, s := range snaps {
		k := key{s.GetNamespace(), s.GetLabels()[placementv1beta1.OverrideTrackingLabel]}
		byOverride[k] = append(byOverride[k], s)
	}
	index := func(s T) int {
		i, err := strconv.Atoi(s.GetLabels()[placementv1beta1.OverrideIndexLabel])
		if err != nil {
			return -1
		}
		return i
	}
	var out []T
	for _, group := range byOverride {
		slices.SortFunc(group, func(a, b T) int { return cmp.Compare(index(a), index(b)) })
		var pick T
		found := false
		for _, s := range group {
			if !s.GetCreationTimestamp().After(at) {
				pick, found = s, true
			}
		}
		switch {
		case found:
			out = append(out, pick)
		case index(group[0]) > 0:
			// Older snapshots are gone: the one that was latest then no longer exists.
			for _, s := range group {
				if s.GetLabels()[placementv1beta1.IsLatestSnapshotLabel] == "true" {
					out = append(out, s)
				}
			}
		}
	}
	return out
}
