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

package binding

import (
	"context"
	"regexp"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// A ClusterResourceBinding belongs to a ClusterResourcePlacement and reads
// ClusterResourceSnapshots; a ResourceBinding belongs to the ResourcePlacement of the same name in
// its namespace and reads ResourceSnapshots there. The binding's Family says which.

// masterSnapshotName matches "<placement>-<index>-snapshot".
var masterSnapshotName = regexp.MustCompile(`^(.+)-[0-9]+-snapshot$`)

// placementOf names the binding's placement: its PlacementTrackingLabel or, lacking that, the
// placement its snapshot name is formatted from. Empty when neither says.
func placementOf(b placementv1beta1.BindingObj) string {
	if p := b.GetLabels()[placementv1beta1.PlacementTrackingLabel]; p != "" {
		return p
	}
	if m := masterSnapshotName.FindStringSubmatch(b.BindingSpec().ResourceSnapshotName); m != nil {
		return m[1]
	}
	return ""
}

// owner is who the deploy engine deploys the binding's resources for: the placement, not the
// binding, so that whichever binding of the placement applies a snapshot next prunes what that
// snapshot lacks. Empty when the binding names no placement.
func (r *kindReconciler) owner(b placementv1beta1.BindingObj) string {
	p := placementOf(b)
	if p == "" {
		return ""
	}
	return r.family.Describe(r.family.PlacementKind(), b.GetNamespace(), p)
}

// placement reads the binding's placement; nil if it has none or it is gone.
func (r *kindReconciler) placement(ctx context.Context, b placementv1beta1.BindingObj) (placementv1beta1.PlacementObj, error) {
	name := placementOf(b)
	if name == "" {
		return nil, nil
	}
	p := r.family.NewPlacement()
	if err := r.client.Get(ctx, r.family.Key(b.GetNamespace(), name), p); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	return p, nil
}

// placementLive reports whether the binding's placement exists and is not being deleted.
func (r *kindReconciler) placementLive(ctx context.Context, b placementv1beta1.BindingObj) (bool, error) {
	p, err := r.placement(ctx, b)
	return p != nil && p.GetDeletionTimestamp().IsZero(), err
}

// abandoned reports whether the binding's placement is being deleted with deleteStrategy
// propagationPolicy Abandon, which leaves the placed resources on the member clusters.
func (r *kindReconciler) abandoned(ctx context.Context, b placementv1beta1.BindingObj) (bool, error) {
	p, err := r.placement(ctx, b)
	return p != nil && !p.GetDeletionTimestamp().IsZero() && placementv1beta1.Abandons(p), err
}

// siblings returns the other bindings of b's placement.
func (r *kindReconciler) siblings(ctx context.Context, b placementv1beta1.BindingObj) ([]placementv1beta1.BindingObj, error) {
	list := r.family.NewBindingList()
	if err := r.client.List(ctx, list, client.InNamespace(b.GetNamespace()),
		client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: placementOf(b)}); err != nil {
		return nil, err
	}
	return slices.DeleteFunc(list.BindingObjs(), func(o placementv1beta1.BindingObj) bool { return o.GetName() == b.GetName() }), nil
}
