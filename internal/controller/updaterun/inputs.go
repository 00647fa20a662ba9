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

package updaterun

import (
	"context"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
	"github.com/stagecoach-dev/stagecoach/internal/targets"
)

// inputs reads what a run works from: its placement, strategy, snapshots and bindings, all of
// the run's family and in its namespace (none for the cluster-scoped family), and the member
// clusters.
type inputs struct {
	client.Client
	informers cache.Informers // the member clusters and bindings, read in place
	family    placementv1beta1.Family
	namespace string
}

// describe names an object of the run's family for messages: "ClusterResourcePlacement x" or
// "ResourcePlacement ns/x".
func (in inputs) describe(kind, name string) string {
	return in.family.Describe(kind, in.namespace, name)
}

// placement reads the run's placement; nil when it does not exist. scheduled reports whether
// the placement's scheduler has decided on its current generation (Scheduled True or False).
func (in inputs) placement(ctx context.Context, name string) (spec *placementv1beta1.PlacementSpec, scheduled bool, err error) {
	p := in.family.NewPlacement()
	if err := in.Get(ctx, in.family.Key(in.namespace, name), p); err != nil {
		return nil, false, client.IgnoreNotFound(err)
	}
	c := meta.FindStatusCondition(p.PlacementStatus().Conditions, in.family.PlacementConditions().Scheduled)
	scheduled = c != nil && c.Status != metav1.ConditionUnknown && c.ObservedGeneration == p.GetGeneration()
	return p.PlacementSpec(), scheduled, nil
}

// strategy reads the run's strategy; nil when it does not exist.
func (in inputs) strategy(ctx context.Context, name string) (*placementv1beta1.UpdateStrategySpec, error) {
	s := in.family.NewUpdateStrategy()
	if err := in.Get(ctx, in.family.Key(in.namespace, name), s); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	return s.UpdateStrategySpec(), nil
}

// snapshotIndices lists, in increasing order, the resource snapshot indices of the placement
// that have a first ("master") snapshot, as reader sees them (the cache, or the API server).
func (in inputs) snapshotIndices(ctx context.Context, reader client.Reader, placement string) ([]int, error) {
	return targets.SnapshotIndices(ctx, reader, in.family, in.namespace, placement)
}

// latestPolicyIndex returns the index of the placement's latest scheduling policy snapshot, ""
// when there is none yet.
func (in inputs) latestPolicyIndex(ctx context.Context, placement string) (string, error) {
	list := in.family.NewPolicySnapshotList()
	if err := in.List(ctx, list, client.InNamespace(in.namespace), client.MatchingLabels{
		placementv1beta1.PlacementTrackingLabel: placement, placementv1beta1.IsLatestSnapshotLabel: "true"}); err != nil {
		return "", err
	}
	snaps := list.PolicySnapshotObjs()
	if len(snaps) == 0 {
		return "", nil
	}
	return snaps[0].GetLabels()[placementv1beta1.PolicyIndexLabel], nil
}

// bindings lists the placement's bindings, by target cluster. A placement of thousands of
// clusters, on every pass: read in place, not copied. Whoever writes a binding copies it first
// (bind).
func (in inputs) bindings(ctx context.Context, placement string) (map[string]placementv1beta1.BindingObj, error) {
	return targets.Bindings(ctx, in.Client, in.informers, in.family, in.namespace, placement)
}

// clusters returns the clusters a run of the placement would update if it started now, with
// their labels, sorted by name, and those it would remove the placement's resources from.
func (in inputs) clusters(ctx context.Context, placement string) (members []rollout.Member, unscheduled []string, err error) {
	return targets.PlacementClusters(ctx, in.Client, in.informers, in.family, in.namespace, placement)
}

// approval returns an empty approval request of the run's family, named.
func (in inputs) approval(name string) placementv1beta1.ApprovalRequestObj {
	a := in.family.NewApprovalRequest()
	a.SetName(name)
	a.SetNamespace(in.namespace)
	return a
}

func joinInts(v []int) string {
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = strconv.Itoa(n)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
