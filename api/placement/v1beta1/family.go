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

package v1beta1

import (
	"fmt"

	"k8s.io/apimachinery/pkg/types"
)

// Family is one of the two sets of kinds that work together: the cluster-scoped family
// (ClusterResourcePlacement, ClusterResourceSnapshot, ClusterSchedulingPolicySnapshot,
// ClusterResourceBinding, ClusterStagedUpdateStrategy, ClusterStagedUpdateRun,
// ClusterApprovalRequest) or the namespaced family, whose members refer to each other within one
// namespace. Code that serves both asks the family for kinds, names and new objects instead of
// branching on scope itself.
// +kubebuilder:object:generate=false
type Family struct {
	// Namespaced is true for the ResourcePlacement family.
	Namespaced bool
}

var (
	// ClusterFamily is the ClusterResourcePlacement family.
	ClusterFamily = Family{}
	// NamespacedFamily is the ResourcePlacement family.
	NamespacedFamily = Family{Namespaced: true}
)

// Families returns both families, the cluster-scoped one first.
func Families() []Family { return []Family{ClusterFamily, NamespacedFamily} }

// FamilyOf returns the family of an object of any kind of this package.
func FamilyOf(obj any) Family {
	switch obj.(type) {
	case *ClusterResourcePlacement, *ClusterResourceSnapshot, *ClusterSchedulingPolicySnapshot,
		*ClusterResourceBinding, *ClusterStagedUpdateStrategy, *ClusterStagedUpdateRun, *ClusterApprovalRequest:
		return ClusterFamily
	case *ResourcePlacement, *ResourceSnapshot, *SchedulingPolicySnapshot,
		*ResourceBinding, *StagedUpdateStrategy, *StagedUpdateRun, *ApprovalRequest:
		return NamespacedFamily
	}
	panic(fmt.Sprintf("%T is not a placement kind", obj))
}

// pick returns cluster for the cluster-scoped family and namespaced for the other.
func pick[T any](f Family, cluster, namespaced T) T {
	if f.Namespaced {
		return namespaced
	}
	return cluster
}

// PlacementKind is ClusterResourcePlacement or ResourcePlacement.
func (f Family) PlacementKind() string {
	return pick(f, ClusterResourcePlacementKind, ResourcePlacementKind)
}

// ResourceSnapshotKind is ClusterResourceSnapshot or ResourceSnapshot.
func (f Family) ResourceSnapshotKind() string {
	return pick(f, ClusterResourceSnapshotKind, ResourceSnapshotKind)
}

// PolicySnapshotKind is ClusterSchedulingPolicySnapshot or SchedulingPolicySnapshot.
func (f Family) PolicySnapshotKind() string {
	return pick(f, ClusterSchedulingPolicySnapshotKind, SchedulingPolicySnapshotKind)
}

// BindingKind is ClusterResourceBinding or ResourceBinding.
func (f Family) BindingKind() string { return pick(f, ClusterResourceBindingKind, ResourceBindingKind) }

// UpdateStrategyKind is ClusterStagedUpdateStrategy or StagedUpdateStrategy.
func (f Family) UpdateStrategyKind() string {
	return pick(f, ClusterStagedUpdateStrategyKind, StagedUpdateStrategyKind)
}

// UpdateRunKind is ClusterStagedUpdateRun or StagedUpdateRun.
func (f Family) UpdateRunKind() string {
	return pick(f, ClusterStagedUpdateRunKind, StagedUpdateRunKind)
}

// ApprovalRequestKind is ClusterApprovalRequest or ApprovalRequest.
func (f Family) ApprovalRequestKind() string {
	return pick(f, ClusterApprovalRequestKind, ApprovalRequestKind)
}

// PlacementFinalizer is the finalizer that keeps a placement of the family until what it placed
// is withdrawn.
func (f Family) PlacementFinalizer() string {
	return pick(f, PlacementCleanupFinalizer, ResourcePlacementCleanupFinalizer)
}

// PlacementConditionTypes names the placement-level conditions of a family.
// +kubebuilder:object:generate=false
type PlacementConditionTypes struct {
	Scheduled, RolloutStarted, Applied, Available, DiffReported string
}

// PlacementConditions returns the family's placement-level condition types.
func (f Family) PlacementConditions() PlacementConditionTypes {
	if f.Namespaced {
		return PlacementConditionTypes{
			Scheduled:      string(ResourcePlacementScheduledConditionType),
			RolloutStarted: string(ResourcePlacementRolloutStartedConditionType),
			Applied:        string(ResourcePlacementAppliedConditionType),
			Available:      string(ResourcePlacementAvailableConditionType),
			DiffReported:   string(ResourcePlacementDiffReportedConditionType),
		}
	}
	return PlacementConditionTypes{
		Scheduled:      string(ClusterResourcePlacementScheduledConditionType),
		RolloutStarted: string(ClusterResourcePlacementRolloutStartedConditionType),
		Applied:        string(ClusterResourcePlacementAppliedConditionType),
		Available:      string(ClusterResourcePlacementAvailableConditionType),
		DiffReported:   string(ClusterResourcePlacementDiffReportedConditionType),
	}
}

// Namespace is where the family's objects related to one in namespace live: namespace itself,
// or "" for the cluster-scoped family.
func (f Family) Namespace(namespace string) string { return pick(f, "", namespace) }

// Key names an object of the family: the namespace is dropped for the cluster-scoped family.
func (f Family) Key(namespace, name string) types.NamespacedName {
	return types.NamespacedName{Namespace: f.Namespace(namespace), Name: name}
}

// Describe names an object of the family for people: "ClusterResourcePlacement web" or
// "ResourcePlacement team-a/web".
func (f Family) Describe(kind, namespace, name string) string {
	if f.Namespaced {
		return kind + " " + namespace + "/" + name
	}
	return kind + " " + name
}

// NewPlacement returns an empty placement of the family.
func (f Family) NewPlacement() PlacementObj {
	return pick[PlacementObj](f, &ClusterResourcePlacement{}, &ResourcePlacement{})
}

// NewPlacementList returns an empty placement list of the family.
func (f Family) NewPlacementList() PlacementObjList {
	return pick[PlacementObjList](f, &ClusterResourcePlacementList{}, &ResourcePlacementList{})
}

// NewResourceSnapshot returns an empty resource snapshot of the family.
func (f Family) NewResourceSnapshot() ResourceSnapshotObj {
	return pick[ResourceSnapshotObj](f, &ClusterResourceSnapshot{}, &ResourceSnapshot{})
}

// NewResourceSnapshotList returns an empty resource snapshot list of the family.
func (f Family) NewResourceSnapshotList() ResourceSnapshotObjList {
	return pick[ResourceSnapshotObjList](f, &ClusterResourceSnapshotList{}, &ResourceSnapshotList{})
}

// NewPolicySnapshot returns an empty scheduling policy snapshot of the family.
func (f Family) NewPolicySnapshot() PolicySnapshotObj {
	return pick[PolicySnapshotObj](f, &ClusterSchedulingPolicySnapshot{}, &SchedulingPolicySnapshot{})
}

// NewPolicySnapshotList returns an empty scheduling policy snapshot list of the family.
func (f Family) NewPolicySnapshotList() PolicySnapshotObjList {
	return pick[PolicySnapshotObjList](f, &ClusterSchedulingPolicySnapshotList{}, &SchedulingPolicySnapshotList{})
}

// NewBinding returns an empty binding of the family.
func (f Family) NewBinding() BindingObj {
	return pick[BindingObj](f, &ClusterResourceBinding{}, &ResourceBinding{})
}

// NewBindingList returns an empty binding list of the family.
func (f Family) NewBindingList() BindingObjList {
	return pick[BindingObjList](f, &ClusterResourceBindingList{}, &ResourceBindingList{})
}

// NewUpdateStrategy returns an empty staged update strategy of the family.
func (f Family) NewUpdateStrategy() UpdateStrategyObj {
	return pick[UpdateStrategyObj](f, &ClusterStagedUpdateStrategy{}, &StagedUpdateStrategy{})
}

// NewUpdateRun returns an empty staged update run of the family.
func (f Family) NewUpdateRun() UpdateRunObj {
	return pick[UpdateRunObj](f, &ClusterStagedUpdateRun{}, &StagedUpdateRun{})
}

// NewUpdateRunList returns an empty staged update run list of the family.
func (f Family) NewUpdateRunList() UpdateRunObjList {
	return pick[UpdateRunObjList](f, &ClusterStagedUpdateRunList{}, &StagedUpdateRunList{})
}

// NewApprovalRequest returns an empty approval request of the family.
func (f Family) NewApprovalRequest() ApprovalRequestObj {
	return pick[ApprovalRequestObj](f, &ClusterApprovalRequest{}, &ApprovalRequest{})
}
