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

	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

// DryRun works out what applying a placement's resource snapshot group, whose first snapshot is
// named snapshot, to a member cluster would change there, with the placement's apply strategy,
// as one of its bindings would apply it. Nothing is written anywhere. c reads the snapshots on
// the management cluster; remote is the member cluster.
func DryRun(ctx context.Context, c client.Client, family placementv1beta1.Family, remote *fleet.Remote,
	namespace, placement, snapshot string, strategy *placementv1beta1.ApplyStrategy) ([]manifests.Diff, error) {
	b := family.NewBinding()
	b.SetNamespace(namespace)
	b.SetLabels(map[string]string{placementv1beta1.PlacementTrackingLabel: placement})
	b.BindingSpec().ResourceSnapshotName = snapshot
	r := &kindReconciler{Reconciler: &Reconciler{client: c}, family: family}

	req := manifests.Request{DryRun: true, Owner: r.owner(b)}
	if err := withStrategy(&req, strategy); err != nil {
		return nil, err
	}
	objs, err := r.loadGroup(ctx, b)
	if err != nil {
		return nil, err
	}
	if family.Namespaced {
		if err := confine(objs, namespace, remote.Mapper); err != nil {
			return nil, err
		}
	}
	req.Objects = objs
	res, err := manifests.Apply(ctx, remote, req)
	return res.Diffs, err
}
