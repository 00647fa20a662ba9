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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Every kind here comes as twins, a cluster-scoped one and a namespaced one with the same spec and
// status. The interfaces below reach the shared parts, so code that serves both families never
// branches on the concrete type; Family picks the twin.

// PlacementObj is a ClusterResourcePlacement or a ResourcePlacement.
// +kubebuilder:object:generate=false
type PlacementObj interface {
	metav1.Object
	runtime.Object
	PlacementSpec() *PlacementSpec
	PlacementStatus() *PlacementStatus
}

// PlacementObjList is a ClusterResourcePlacementList or a ResourcePlacementList.
// +kubebuilder:object:generate=false
type PlacementObjList interface {
	metav1.ListInterface
	runtime.Object
	PlacementObjs() []PlacementObj
}

// ResourceSnapshotObj is a ClusterResourceSnapshot or a ResourceSnapshot.
// +kubebuilder:object:generate=false
type ResourceSnapshotObj interface {
	metav1.Object
	runtime.Object
	ResourceSnapshotSpec() *ResourceSnapshotSpec
}

// ResourceSnapshotObjList is a ClusterResourceSnapshotList or a ResourceSnapshotList.
// +kubebuilder:object:generate=false
type ResourceSnapshotObjList interface {
	metav1.ListInterface
	runtime.Object
	ResourceSnapshotObjs() []ResourceSnapshotObj
}

// PolicySnapshotObj is a ClusterSchedulingPolicySnapshot or a SchedulingPolicySnapshot.
// +kubebuilder:object:generate=false
type PolicySnapshotObj interface {
	metav1.Object
	runtime.Object
	PolicySnapshotSpec() *SchedulingPolicySnapshotSpec
	PolicySnapshotStatus() *SchedulingPolicySnapshotStatus
}

// PolicySnapshotObjList is a ClusterSchedulingPolicySnapshotList or a SchedulingPolicySnapshotList.
// +kubebuilder:object:generate=false
type PolicySnapshotObjList interface {
	metav1.ListInterface
	runtime.Object
	PolicySnapshotObjs() []PolicySnapshotObj
}

// BindingObj is a ClusterResourceBinding or a ResourceBinding.
// +kubebuilder:object:generate=false
type BindingObj interface {
	metav1.Object
	runtime.Object
	BindingSpec() *ResourceBindingSpec
	BindingStatus() *ResourceBindingStatus
}

// BindingObjList is a ClusterResourceBindingList or a ResourceBindingList.
// +kubebuilder:object:generate=false
type BindingObjList interface {
	metav1.ListInterface
	runtime.Object
	BindingObjs() []BindingObj
}

// UpdateStrategyObj is a ClusterStagedUpdateStrategy or a StagedUpdateStrategy.
// +kubebuilder:object:generate=false
type UpdateStrategyObj interface {
	metav1.Object
	runtime.Object
	UpdateStrategySpec() *UpdateStrategySpec
}

// UpdateRunObj is a ClusterStagedUpdateRun or a StagedUpdateRun.
// +kubebuilder:object:generate=false
type UpdateRunObj interface {
	metav1.Object
	runtime.Object
	UpdateRunSpec() *UpdateRunSpec
	UpdateRunStatus() *UpdateRunStatus
}

// UpdateRunObjList is a ClusterStagedUpdateRunList or a StagedUpdateRunList.
// +kubebuilder:object:generate=false
type UpdateRunObjList interface {
	metav1.ListInterface
	runtime.Object
	UpdateRunObjs() []UpdateRunObj
}

// ApprovalRequestObj is a ClusterApprovalRequest or an ApprovalRequest.
// +kubebuilder:object:generate=false
type ApprovalRequestObj interface {
	metav1.Object
	runtime.Object
	ApprovalRequestSpec() *ApprovalRequestSpec
	ApprovalRequestStatus() *ApprovalRequestStatus
}

// PlacementSpec returns the placement's spec.
func (p *ClusterResourcePlacement) PlacementSpec() *PlacementSpec { return &p.Spec }

// PlacementStatus returns the placement's status.
func (p *ClusterResourcePlacement) PlacementStatus() *PlacementStatus { return &p.Status }

// PlacementSpec returns the placement's spec.
func (p *ResourcePlacement) PlacementSpec() *PlacementSpec { return &p.Spec }

// PlacementStatus returns the placement's status.
func (p *ResourcePlacement) PlacementStatus() *PlacementStatus { return &p.Status }

// PlacementObjs returns the list's items.
func (l *ClusterResourcePlacementList) PlacementObjs() []PlacementObj {
	return items[PlacementObj](l.Items)
}

// PlacementObjs returns the list's items.
func (l *ResourcePlacementList) PlacementObjs() []PlacementObj { return items[PlacementObj](l.Items) }

// ResourceSnapshotSpec returns the snapshot's spec.
func (s *ClusterResourceSnapshot) ResourceSnapshotSpec() *ResourceSnapshotSpec { return &s.Spec }

// ResourceSnapshotSpec returns the snapshot's spec.
func (s *ResourceSnapshot) ResourceSnapshotSpec() *ResourceSnapshotSpec { return &s.Spec }

// ResourceSnapshotObjs returns the list's items.
func (l *ClusterResourceSnapshotList) ResourceSnapshotObjs() []ResourceSnapshotObj {
	return items[ResourceSnapshotObj](l.Items)
}

// ResourceSnapshotObjs returns the list's items.
func (l *ResourceSnapshotList) ResourceSnapshotObjs() []ResourceSnapshotObj {
	return items[ResourceSnapshotObj](l.Items)
}

// PolicySnapshotSpec returns the snapshot's spec.
func (s *ClusterSchedulingPolicySnapshot) PolicySnapshotSpec() *SchedulingPolicySnapshotSpec {
	return &s.Spec
}

// PolicySnapshotStatus returns the snapshot's status.
func (s *ClusterSchedulingPolicySnapshot) PolicySnapshotStatus() *SchedulingPolicySnapshotStatus {
	return &s.Status
}

// PolicySnapshotSpec returns the snapshot's spec.
func (s *SchedulingPolicySnapshot) PolicySnapshotSpec() *SchedulingPolicySnapshotSpec { return &s.Spec }

// PolicySnapshotStatus returns the snapshot's status.
func (s *SchedulingPolicySnapshot) PolicySnapshotStatus() *SchedulingPolicySnapshotStatus {
	return &s.Status
}

// PolicySnapshotObjs returns the list's items.
func (l *ClusterSchedulingPolicySnapshotList) PolicySnapshotObjs() []PolicySnapshotObj {
	return items[PolicySnapshotObj](l.Items)
}

// PolicySnapshotObjs returns the list's items.
func (l *SchedulingPolicySnapshotList) PolicySnapshotObjs() []PolicySnapshotObj {
	return items[PolicySnapshotObj](l.Items)
}

// BindingSpec returns the binding's spec.
func (b *ClusterResourceBinding) BindingSpec() *ResourceBindingSpec { return &b.Spec }

// BindingStatus returns the binding's status.
func (b *ClusterResourceBinding) BindingStatus() *ResourceBindingStatus { return &b.Status }

// BindingSpec returns the binding's spec.
func (b *ResourceBinding) BindingSpec() *ResourceBindingSpec { return &b.Spec }

// BindingStatus returns the binding's status.
func (b *ResourceBinding) BindingStatus() *ResourceBindingStatus { return &b.Status }

// BindingObjs returns the list's items.
func (l *ClusterResourceBindingList) BindingObjs() []BindingObj { return items[BindingObj](l.Items) }

// BindingObjs returns the list's items.
func (l *ResourceBindingList) BindingObjs() []BindingObj { return items[BindingObj](l.Items) }

// UpdateStrategySpec returns the strategy's spec.
func (s *ClusterStagedUpdateStrategy) UpdateStrategySpec() *UpdateStrategySpec { return &s.Spec }

// UpdateStrategySpec returns the strategy's spec.
func (s *StagedUpdateStrategy) UpdateStrategySpec() *UpdateStrategySpec { return &s.Spec }

// UpdateRunSpec returns the run's spec.
func (r *ClusterStagedUpdateRun) UpdateRunSpec() *UpdateRunSpec { return &r.Spec }

// UpdateRunStatus returns the run's status.
func (r *ClusterStagedUpdateRun) UpdateRunStatus() *UpdateRunStatus { return &r.Status }

// UpdateRunSpec returns the run's spec.
func (r *StagedUpdateRun) UpdateRunSpec() *UpdateRunSpec { return &r.Spec }

// UpdateRunStatus returns the run's status.
func (r *StagedUpdateRun) UpdateRunStatus() *UpdateRunStatus { return &r.Status }

// UpdateRunObjs returns the list's items.
func (l *ClusterStagedUpdateRunList) UpdateRunObjs() []UpdateRunObj {
	return items[UpdateRunObj](l.Items)
}

// UpdateRunObjs returns the list's items.
func (l *StagedUpdateRunList) UpdateRunObjs() []UpdateRunObj { return items[UpdateRunObj](l.Items) }

// ApprovalRequestSpec returns the request's spec.
func (a *ClusterApprovalRequest) ApprovalRequestSpec() *ApprovalRequestSpec { return &a.Spec }

// ApprovalRequestStatus returns the request's status.
func (a *ClusterApprovalRequest) ApprovalRequestStatus() *ApprovalRequestStatus { return &a.Status }

// ApprovalRequestSpec returns the request's spec.
func (a *ApprovalRequest) ApprovalRequestSpec() *ApprovalRequestSpec { return &a.Spec }

// ApprovalRequestStatus returns the request's status.
func (a *ApprovalRequest) ApprovalRequestStatus() *ApprovalRequestStatus { return &a.Status }

// items returns pointers to a list's items as the interface I they implement.
func items[I any, T any](list []T) []I {
	out := make([]I, len(list))
	for i := range list {
		out[i] = any(&list[i]).(I)
	}
	return out
}
