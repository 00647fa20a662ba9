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
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BindingState is the state of a binding.
// +enum
type BindingState string

const (
	// BindingStateScheduled means the cluster is picked, but nothing is to be applied to it yet.
	BindingStateScheduled BindingState = "Scheduled"
	// BindingStateBound means the resources of Spec.ResourceSnapshotName are to be applied to the cluster.
	BindingStateBound BindingState = "Bound"
	// BindingStateUnscheduled means the cluster is no longer picked; the resources it received are to be
	// removed from it (at once for RollingUpdate, in the deletion stage of an update run for External).
	BindingStateUnscheduled BindingState = "Unscheduled"
)

// Binding condition types.
const (
	// BindingRolloutStartedCondition is True once the current spec has started rolling out to the cluster.
	BindingRolloutStartedCondition = "RolloutStarted"
	// BindingOverriddenCondition is True when the binding's overrides were applied to its
	// resources (reason OverriddenSucceeded) or it names none (NoOverrideSpecified), False
	// (OverriddenFailed) when one of them cannot be applied.
	BindingOverriddenCondition = "Overridden"
	// BindingAppliedCondition is True when every resource of the snapshot is applied on the cluster.
	BindingAppliedCondition = "Applied"
	// BindingAvailableCondition is True when every applied resource is available on the cluster.
	BindingAvailableCondition = "Available"
	// BindingDiffReportedCondition is True when the differences between the snapshot and the
	// cluster are reported in diffedPlacements (apply type ReportDiff, which applies nothing).
	BindingDiffReportedCondition = "DiffReported"
)

// PreviousBindingStateAnnotation records, on an Unscheduled binding, the state it had before, so
// that picking the cluster again restores it.
const PreviousBindingStateAnnotation = FleetPrefix + "previous-binding-state"

// BindingFinalizer keeps a binding until the resources it applied are removed from its cluster.
const BindingFinalizer = FleetPrefix + "work-cleanup"

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=crb,categories={fleet,fleet-placement}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:JSONPath=`.spec.targetCluster`,name="Cluster",type=string
// +kubebuilder:printcolumn:JSONPath=`.spec.state`,name="State",type=string
// +kubebuilder:printcolumn:JSONPath=`.spec.resourceSnapshotName`,name="Resource-Snapshot",type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="Applied")].status`,name="Applied",type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="Available")].status`,name="Available",type=string
// +kubebuilder:printcolumn:JSONPath=`.metadata.creationTimestamp`,name="Age",type=date

// ClusterResourceBinding binds a ClusterResourcePlacement to one member cluster it picked, and
// says which resource snapshot that cluster is to run. The placement's scheduler creates it; the
// placement's rollout (RollingUpdate) or an update run (External) binds it to a snapshot; the
// binding controller applies that snapshot to the cluster and reports back in its status.
//
// Its name is "<placement>-<cluster>"; it carries the PlacementTrackingLabel.
type ClusterResourceBinding struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec ResourceBindingSpec `json:"spec"`

	// +optional
	Status ResourceBindingStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ClusterResourceBindingList is a list of ClusterResourceBindings.
type ClusterResourceBindingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterResourceBinding `json:"items"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,shortName=rb,categories={fleet,fleet-placement}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:JSONPath=`.spec.targetCluster`,name="Cluster",type=string
// +kubebuilder:printcolumn:JSONPath=`.spec.state`,name="State",type=string
// +kubebuilder:printcolumn:JSONPath=`.spec.resourceSnapshotName`,name="Resource-Snapshot",type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="Applied")].status`,name="Applied",type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="Available")].status`,name="Available",type=string
// +kubebuilder:printcolumn:JSONPath=`.metadata.creationTimestamp`,name="Age",type=date

// ResourceBinding is the ClusterResourceBinding of a ResourcePlacement, in its namespace.
type ResourceBinding struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec ResourceBindingSpec `json:"spec"`

	// +optional
	Status ResourceBindingStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ResourceBindingList is a list of ResourceBindings.
type ResourceBindingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ResourceBinding `json:"items"`
}

// ResourceBindingSpec says what a member cluster is to run for a placement.
type ResourceBindingSpec struct {
	// State is Scheduled, Bound or Unscheduled.
	// +kubebuilder:validation:Enum=Scheduled;Bound;Unscheduled
	// +required
	State BindingState `json:"state"`

	// ResourceSnapshotName is the first snapshot of the resource snapshot group the cluster is to
	// run ("<placement>-<index>-snapshot"); empty until the binding is bound.
	// +optional
	ResourceSnapshotName string `json:"resourceSnapshotName,omitempty"`

	// ResourceOverrideSnapshots are the ResourceOverride snapshots applied to the snapshot's
	// resources on this cluster, sorted by namespace and name.
	// +optional
	ResourceOverrideSnapshots []NamespacedName `json:"resourceOverrideSnapshots,omitempty"`

	// ClusterResourceOverrideSnapshots are the ClusterResourceOverride snapshots applied on this
	// cluster, sorted by name.
	// +optional
	ClusterResourceOverrideSnapshots []string `json:"clusterResourceOverrideSnapshots,omitempty"`

	// SchedulingPolicySnapshotName is the scheduling policy snapshot that picked the cluster.
	// +optional
	SchedulingPolicySnapshotName string `json:"schedulingPolicySnapshotName,omitempty"`

	// TargetCluster is the name of the MemberCluster.
	// +required
	TargetCluster string `json:"targetCluster"`

	// ClusterDecision is why the cluster was picked.
	// +optional
	ClusterDecision ClusterDecision `json:"clusterDecision,omitempty"`

	// ApplyStrategy is how the resources are applied, copied from the placement (or frozen by the
	// update run that bound it).
	// +optional
	ApplyStrategy *ApplyStrategy `json:"applyStrategy,omitempty"`
}

// ClusterDecision is the scheduler's decision about one cluster.
type ClusterDecision struct {
	// ClusterName is the MemberCluster's name.
	// +required
	ClusterName string `json:"clusterName"`

	// Selected is true when the cluster is picked.
	// +required
	Selected bool `json:"selected"`

	// Reason says why the cluster was or was not picked.
	// +optional
	Reason string `json:"reason,omitempty"`
}

// ResourceBindingStatus is what the binding controller observed on the cluster.
type ResourceBindingStatus struct {
	// Conditions: RolloutStarted, Applied, Available (DiffReported instead of the last two with
	// apply type ReportDiff). Each carries the binding generation it
	// describes as observedGeneration.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// ObservedResourceSnapshotName is the snapshot the Applied and Available conditions describe.
	// +optional
	ObservedResourceSnapshotName string `json:"observedResourceSnapshotName,omitempty"`

	// FailedPlacements lists resources that could not be applied or are not available, at most 100.
	// +kubebuilder:validation:MaxItems=100
	// +listType=atomic
	// +optional
	FailedPlacements []FailedResourcePlacement `json:"failedPlacements,omitempty"`

	// DiffedPlacements lists, with apply type ReportDiff, the resources whose state on the
	// cluster differs from the snapshot, at most 100.
	// +kubebuilder:validation:MaxItems=100
	// +listType=atomic
	// +optional
	DiffedPlacements []DiffedResourcePlacement `json:"diffedPlacements,omitempty"`

	// DriftedPlacements lists, with comparisonOption FullComparison, the applied resources whose
	// state on the cluster has fields no manifest sets, as found right after the last apply, at
	// most 100.
	// +kubebuilder:validation:MaxItems=100
	// +listType=atomic
	// +optional
	DriftedPlacements []DriftedResourcePlacement `json:"driftedPlacements,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=csps,categories={fleet,fleet-placement}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:JSONPath=`.metadata.generation`,name="Gen",type=string
// +kubebuilder:printcolumn:JSONPath=`.metadata.creationTimestamp`,name="Age",type=date

// ClusterSchedulingPolicySnapshot keeps one revision of a ClusterResourcePlacement's scheduling
// policy and the clusters it picked. It is named "<placement>-<index>" (PolicySnapshotNameFmt) and
// carries the PlacementTrackingLabel, PolicyIndexLabel and IsLatestSnapshotLabel labels. A new
// index is cut when the policy changes other than in numberOfClusters.
type ClusterSchedulingPolicySnapshot struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec SchedulingPolicySnapshotSpec `json:"spec"`

	// +optional
	Status SchedulingPolicySnapshotStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ClusterSchedulingPolicySnapshotList is a list of ClusterSchedulingPolicySnapshots.
type ClusterSchedulingPolicySnapshotList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterSchedulingPolicySnapshot `json:"items"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,shortName=sps,categories={fleet,fleet-placement}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:JSONPath=`.metadata.generation`,name="Gen",type=string
// +kubebuilder:printcolumn:JSONPath=`.metadata.creationTimestamp`,name="Age",type=date

// SchedulingPolicySnapshot is the ClusterSchedulingPolicySnapshot of a ResourcePlacement.
type SchedulingPolicySnapshot struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec SchedulingPolicySnapshotSpec `json:"spec"`

	// +optional
	Status SchedulingPolicySnapshotStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// SchedulingPolicySnapshotList is a list of SchedulingPolicySnapshots.
type SchedulingPolicySnapshotList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []SchedulingPolicySnapshot `json:"items"`
}

// SchedulingPolicySnapshotSpec is one revision of a scheduling policy.
type SchedulingPolicySnapshotSpec struct {
	// Policy is the placement's policy at that revision; nil means PickAll.
	// +optional
	Policy *PlacementPolicy `json:"policy,omitempty"`

	// PolicyHash is the hex SHA-256 of the policy without numberOfClusters.
	// +required
	PolicyHash string `json:"policyHash"`
}

// SchedulingPolicySnapshotStatus is the outcome of scheduling with the policy.
type SchedulingPolicySnapshotStatus struct {
	// ObservedCRPGeneration is the placement generation the decisions were made for.
	// +optional
	ObservedCRPGeneration int64 `json:"observedCRPGeneration,omitempty"`

	// Conditions: Scheduled.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// ClusterDecisions lists the picked clusters (and, for PickN, up to 20 that were not).
	// +listType=atomic
	// +optional
	ClusterDecisions []ClusterDecision `json:"targetClusters,omitempty"`
}

// BindingFailure says why a binding bound to the snapshot fails, or "": its Applied or Available
// condition is False for the snapshot at the binding's generation.
func BindingFailure(b BindingObj, snapshot string) string {
	if b.BindingStatus().ObservedResourceSnapshotName != snapshot {
		return ""
	}
	for _, t := range []string{BindingAppliedCondition, BindingAvailableCondition} {
		c := meta.FindStatusCondition(b.BindingStatus().Conditions, t)
		if c != nil && c.Status == metav1.ConditionFalse && c.ObservedGeneration == b.GetGeneration() {
			return c.Message
		}
	}
	return ""
}
