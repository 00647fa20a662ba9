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

	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// ownedBy selects the objects derived from placement p: they carry its name in the
// PlacementTrackingLabel and live in its namespace, which for a ClusterResourcePlacement is none.
func ownedBy(p client.Object) []client.ListOption {
	return []client.ListOption{
		client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: p.GetName()},
		client.InNamespace(p.GetNamespace()),
	}
}

func listBindings(ctx context.Context, c client.Reader, f placementv1beta1.Family, p client.Object) ([]placementv1beta1.BindingObj, error) {
	l := f.NewBindingList()
	if err := c.List(ctx, l, ownedBy(p)...); err != nil {
		return nil, err
	}
	return l.BindingObjs(), nil
}

func listResourceSnapshots(ctx context.Context, c client.Reader, f placementv1beta1.Family, p client.Object) ([]placementv1beta1.ResourceSnapshotObj, error) {
	l := f.NewResourceSnapshotList()
	if err := c.List(ctx, l, ownedBy(p)...); err != nil {
		return nil, err
	}
	return l.ResourceSnapshotObjs(), nil
}

func listPolicySnapshots(ctx context.Context, c client.Reader, f placementv1beta1.Family, p client.Object) ([]placementv1beta1.PolicySnapshotObj, error) {
	l := f.NewPolicySnapshotList()
	if err := c.List(ctx, l, ownedBy(p)...); err != nil {
		return nil, err
	}
	return l.PolicySnapshotObjs(), nil
}
