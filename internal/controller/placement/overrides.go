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

package placement

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/targets"
)

// The override snapshots a RollingUpdate placement's clusters get are part of what it rolls out:
// a binding whose overrides differ from the latest applicable ones is not up to date, and is
// moved under maxUnavailable and maxSurge like one on an older resource snapshot.

// overridePhase works out the override snapshots each cluster of a RollingUpdate placement is
// to get with the newest resource snapshot. An External placement leaves that to update runs.
func (r *kindReconciler) overridePhase(ctx context.Context, ps *pass) error {
	if ps.spec.Strategy.Type != placementv1beta1.RollingUpdateRolloutStrategyType {
		return nil
	}
	clusters := make([]string, 0, len(ps.bindings))
	for _, b := range ps.bindings {
		clusters = append(clusters, b.BindingSpec().TargetCluster)
	}
	var err error
	ps.overrides, err = targets.ClusterOverrides(ctx, r.client, ps.p.GetNamespace(), ps.p.GetName(),
		func() ([]*unstructured.Unstructured, error) { return ps.selection.objects, nil }, clusters)
	return err
}

// overridesCurrent reports whether the binding names the override snapshots its cluster is to get.
func (ps *pass) overridesCurrent(b placementv1beta1.BindingObj) bool {
	spec := b.BindingSpec()
	return ps.overrides[spec.TargetCluster].Equal(spec.ClusterResourceOverrideSnapshots, spec.ResourceOverrideSnapshots)
}

// setOverrides writes the override snapshots the binding's cluster is to get into its spec.
func (ps *pass) setOverrides(b placementv1beta1.BindingObj) {
	n := ps.overrides[b.BindingSpec().TargetCluster]
	b.BindingSpec().ClusterResourceOverrideSnapshots = n.Cluster
	b.BindingSpec().ResourceOverrideSnapshots = n.Namespaced
}

// overridePlacements wakes the placements an override snapshot may concern: every placement of
// the family for a ClusterResourceOverride, those of its namespace (and every
// ClusterResourcePlacement) for a ResourceOverride.
func (r *kindReconciler) overridePlacements(ctx context.Context, obj client.Object) []reconcile.Request {
	ns := obj.GetNamespace()
	if !r.family.Namespaced {
		ns = ""
	}
	return r.placementRequests(ctx, ns, func(placementv1beta1.PlacementObj) bool { return true })
}
