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
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// scope is what differs between the two placement families: a ClusterResourcePlacement with its
// cluster-scoped snapshots and bindings, and a ResourcePlacement with namespaced ones in its own
// namespace. Everything else is shared.
type scope struct {
	// kind is ClusterResourcePlacement or ResourcePlacement.
	kind       string
	namespaced bool
	finalizer  string
	conditions conditionTypes

	newPlacement            func() client.Object
	newPlacementList        func() client.ObjectList
	newResourceSnapshot     func() client.Object
	newResourceSnapshotList func() client.ObjectList
	newPolicySnapshot       func() client.Object
	newPolicySnapshotList   func() client.ObjectList
	newBinding              func() client.Object
	newBindingList          func() client.ObjectList
}

// conditionTypes are the placement-level condition types of a scope.
type conditionTypes struct {
	scheduled, rolloutStarted, applied, available string
}

var clusterScope = scope{
	kind:      placementv1beta1.ClusterResourcePlacementKind,
	finalizer: placementv1beta1.PlacementCleanupFinalizer,
	conditions: conditionTypes{
		scheduled:      string(placementv1beta1.ClusterResourcePlacementScheduledConditionType),
		rolloutStarted: string(placementv1beta1.ClusterResourcePlacementRolloutStartedConditionType),
		applied:        string(placementv1beta1.ClusterResourcePlacementAppliedConditionType),
		available:      string(placementv1beta1.ClusterResourcePlacementAvailableConditionType),
	},
	newPlacement:            func() client.Object { return &placementv1beta1.ClusterResourcePlacement{} },
	newPlacementList:        func() client.ObjectList { return &placementv1beta1.ClusterResourcePlacementList{} },
	newResourceSnapshot:     func() client.Object { return &placementv1beta1.ClusterResourceSnapshot{} },
	newResourceSnapshotList: func() client.ObjectList { return &placementv1beta1.ClusterResourceSnapshotList{} },
	newPolicySnapshot:       func() client.Object { return &placementv1beta1.ClusterSchedulingPolicySnapshot{} },
	newPolicySnapshotList:   func() client.ObjectList { return &placementv1beta1.ClusterSchedulingPolicySnapshotList{} },
	newBinding:              func() client.Object { return &placementv1beta1.ClusterResourceBinding{} },
	newBindingList:          func() client.ObjectList { return &placementv1beta1.ClusterResourceBindingList{} },
}

var namespacedScope = scope{
	kind:       placementv1beta1.ResourcePlacementKind,
	namespaced: true,
	finalizer:  placementv1beta1.ResourcePlacementCleanupFinalizer,
	conditions: conditionTypes{
		scheduled:      string(placementv1beta1.ResourcePlacementScheduledConditionType),
		rolloutStarted: string(placementv1beta1.ResourcePlacementRolloutStartedConditionType),
		applied:        string(placementv1beta1.ResourcePlacementAppliedConditionType),
		available:      string(placementv1beta1.ResourcePlacementAvailableConditionType),
	},
	newPlacement:            func() client.Object { return &placementv1beta1.ResourcePlacement{} },
	newPlacementList:        func() client.ObjectList { return &placementv1beta1.ResourcePlacementList{} },
	newResourceSnapshot:     func() client.Object { return &placementv1beta1.ResourceSnapshot{} },
	newResourceSnapshotList: func() client.ObjectList { return &placementv1beta1.ResourceSnapshotList{} },
	newPolicySnapshot:       func() client.Object { return &placementv1beta1.SchedulingPolicySnapshot{} },
	newPolicySnapshotList:   func() client.ObjectList { return &placementv1beta1.SchedulingPolicySnapshotList{} },
	newBinding:              func() client.Object { return &placementv1beta1.ResourceBinding{} },
	newBindingList:          func() client.ObjectList { return &placementv1beta1.ResourceBindingList{} },
}

// placementObj is a ClusterResourcePlacement or a ResourcePlacement, with its spec and status
// at hand.
type placementObj struct {
	client.Object
	Spec   *placementv1beta1.PlacementSpec
	Status *placementv1beta1.PlacementStatus
}

func asPlacement(o client.Object) placementObj {
	switch p := o.(type) {
	case *placementv1beta1.ClusterResourcePlacement:
		return placementObj{Object: p, Spec: &p.Spec, Status: &p.Status}
	case *placementv1beta1.ResourcePlacement:
		return placementObj{Object: p, Spec: &p.Spec, Status: &p.Status}
	}
	panic(fmt.Sprintf("not a placement: %T", o))
}

func (p placementObj) deepCopy() placementObj {
	return asPlacement(p.DeepCopyObject().(client.Object))
}

// bindingObj is a ClusterResourceBinding or a ResourceBinding.
type bindingObj struct {
	client.Object
	Spec   *placementv1beta1.ResourceBindingSpec
	Status *placementv1beta1.ResourceBindingStatus
}

func asBinding(o client.Object) bindingObj {
	b := o.(placementv1beta1.BindingObj)
	return bindingObj{Object: o, Spec: b.BindingSpec(), Status: b.BindingStatus()}
}

func (b bindingObj) deepCopy() bindingObj { return asBinding(b.DeepCopyObject().(client.Object)) }

// resourceSnapshotObj is a ClusterResourceSnapshot or a ResourceSnapshot.
type resourceSnapshotObj struct {
	client.Object
	Spec *placementv1beta1.ResourceSnapshotSpec
}

func asResourceSnapshot(o client.Object) resourceSnapshotObj {
	switch s := o.(type) {
	case *placementv1beta1.ClusterResourceSnapshot:
		return resourceSnapshotObj{Object: s, Spec: &s.Spec}
	case *placementv1beta1.ResourceSnapshot:
		return resourceSnapshotObj{Object: s, Spec: &s.Spec}
	}
	panic(fmt.Sprintf("not a resource snapshot: %T", o))
}

// policySnapshotObj is a ClusterSchedulingPolicySnapshot or a SchedulingPolicySnapshot.
type policySnapshotObj struct {
	client.Object
	Spec   *placementv1beta1.SchedulingPolicySnapshotSpec
	Status *placementv1beta1.SchedulingPolicySnapshotStatus
}

func asPolicySnapshot(o client.Object) policySnapshotObj {
	switch s := o.(type) {
	case *placementv1beta1.ClusterSchedulingPolicySnapshot:
		return policySnapshotObj{Object: s, Spec: &s.Spec, Status: &s.Status}
	case *placementv1beta1.SchedulingPolicySnapshot:
		return policySnapshotObj{Object: s, Spec: &s.Spec, Status: &s.Status}
	}
	panic(fmt.Sprintf("not a scheduling policy snapshot: %T", o))
}

func (s policySnapshotObj) deepCopy() policySnapshotObj {
	return asPolicySnapshot(s.DeepCopyObject().(client.Object))
}

// ownedBy selects the objects derived from placement p: they carry its name in the
// PlacementTrackingLabel and, for a ResourcePlacement, live in its namespace.
func (s scope) ownedBy(p client.Object) []client.ListOption {
	opts := []client.ListOption{client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: p.GetName()}}
	if s.namespaced {
		opts = append(opts, client.InNamespace(p.GetNamespace()))
	}
	return opts
}

// list lists the objects of list's kind derived from p and converts each with as.
func list[T any](ctx context.Context, c client.Reader, s scope, p client.Object, l client.ObjectList, as func(client.Object) T) ([]T, error) {
	if err := c.List(ctx, l, s.ownedBy(p)...); err != nil {
		return nil, err
	}
	items, err := meta.ExtractList(l)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(items))
	for _, item := range items {
		out = append(out, as(item.(client.Object)))
	}
	return out, nil
}

func (s scope) listBindings(ctx context.Context, c client.Reader, p client.Object) ([]bindingObj, error) {
	return list(ctx, c, s, p, s.newBindingList(), asBinding)
}

func (s scope) listResourceSnapshots(ctx context.Context, c client.Reader, p client.Object) ([]resourceSnapshotObj, error) {
	return list(ctx, c, s, p, s.newResourceSnapshotList(), asResourceSnapshot)
}

func (s scope) listPolicySnapshots(ctx context.Context, c client.Reader, p client.Object) ([]policySnapshotObj, error) {
	return list(ctx, c, s, p, s.newPolicySnapshotList(), asPolicySnapshot)
}
