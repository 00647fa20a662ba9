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

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,categories={fleet,fleet-placement},shortName=crpe
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="Valid")].status`,name="Valid",type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="Executed")].status`,name="Executed",type=string

// ClusterResourcePlacementEviction asks to take what a ClusterResourcePlacement placed off one
// member cluster: the binding of the placement to that cluster is deleted, and the cluster's
// resources are withdrawn as those of a cluster the placement no longer picks. It is a
// voluntary disruption and obeys the placement's ClusterResourcePlacementDisruptionBudget.
//
// An eviction is acted on once. It ends Valid False (nothing to evict), or Valid True with
// Executed True (the binding is deleted) or Executed False (the budget or the binding's state
// forbids it, and the message says which); to try again, delete and re-create it. Evicting does
// not stop the scheduler from picking the cluster again: taint the cluster first (a placement
// keeps the clusters it has, whatever their taints, but picks no new tainted cluster).
// PickFixed placements cannot be evicted from: remove the cluster from clusterNames instead.
type ClusterResourcePlacementEviction struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec names the placement and the cluster. It cannot change.
	// +required
	Spec PlacementEvictionSpec `json:"spec"`

	// Status says whether the eviction is valid and whether it was executed.
	// +optional
	Status PlacementEvictionStatus `json:"status,omitempty"`
}

// PlacementEvictionSpec names the placement and the cluster to evict it from.
type PlacementEvictionSpec struct {
	// PlacementName is the name of the ClusterResourcePlacement.
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="The PlacementName field is immutable"
	// +kubebuilder:validation:MaxLength=255
	PlacementName string `json:"placementName"`

	// ClusterName is the name of the member cluster.
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="The ClusterName field is immutable"
	// +kubebuilder:validation:MaxLength=255
	ClusterName string `json:"clusterName"`
}

// PlacementEvictionStatus holds the conditions Valid and Executed.
type PlacementEvictionStatus struct {
	// Conditions: Valid, and, once valid, Executed.
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true

// ClusterResourcePlacementEvictionList is a list of ClusterResourcePlacementEvictions.
type ClusterResourcePlacementEvictionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterResourcePlacementEviction `json:"items"`
}

// Condition types of an eviction.
const (
	// EvictionValidCondition is False when there is nothing the eviction can act on; that is
	// final, even if the placement or binding appears later.
	EvictionValidCondition = "Valid"
	// EvictionExecutedCondition is True once the binding is deleted, and False when the
	// eviction was refused; either is final.
	EvictionExecutedCondition = "Executed"
)

// Reasons of the eviction's conditions, as Kubefleet gives them.
const (
	EvictionValidReason       = "ClusterResourcePlacementEvictionValid"
	EvictionInvalidReason     = "ClusterResourcePlacementEvictionInvalid"
	EvictionExecutedReason    = "ClusterResourcePlacementEvictionExecuted"
	EvictionNotExecutedReason = "ClusterResourcePlacementEvictionNotExecuted"
)

// Messages of the eviction's conditions. They are Kubefleet's, word for word, so that runbooks
// and scripts written against Kubefleet read Stagecoach's evictions the same way.
const (
	EvictionInvalidMissingPlacementMessage    = "Failed to find ClusterResourcePlacement targeted by eviction"
	EvictionInvalidDeletingPlacementMessage   = "Found deleting ClusterResourcePlacement targeted by eviction"
	EvictionInvalidPickFixedMessage           = "Found ClusterResourcePlacement with PickFixed placement type targeted by eviction"
	EvictionInvalidMissingBindingMessage      = "Failed to find scheduler decision for placement in cluster targeted by eviction"
	EvictionInvalidMultipleBindingsMessage    = "Found more than one scheduler decision for placement in cluster targeted by eviction"
	EvictionValidMessage                      = "Eviction is valid"
	EvictionAllowedNoBudgetMessage            = "Eviction is allowed, no ClusterResourcePlacementDisruptionBudget specified"
	EvictionAllowedPlacementRemovedMessage    = "Eviction is allowed, resources propagated by placement is currently being removed from cluster targeted by eviction"
	EvictionAllowedPlacementFailedMessage     = "Eviction is allowed, placement has failed"
	EvictionBlockedMisconfiguredBudgetMessage = "Eviction is blocked by misconfigured ClusterResourcePlacementDisruptionBudget, " +
		"either MaxUnavailable is specified or MinAvailable is specified as a percentage for PickAll ClusterResourcePlacement"
	EvictionBlockedMissingPlacementMessage = "Eviction is blocked, placement has not propagated resources to target cluster yet"
	// EvictionAllowedByBudgetMessageFmt and EvictionBlockedByBudgetMessageFmt take the
	// available and the total number of the placement's bindings.
	EvictionAllowedByBudgetMessageFmt = "Eviction is allowed by specified ClusterResourcePlacementDisruptionBudget, availablePlacements: %d, totalPlacements: %d"
	EvictionBlockedByBudgetMessageFmt = "Eviction is blocked by specified ClusterResourcePlacementDisruptionBudget, availablePlacements: %d, totalPlacements: %d"
)

// Done reports whether the eviction has been acted on for good: it is invalid, or it has an
// Executed condition either way.
func (e *ClusterResourcePlacementEviction) Done() bool {
	if c := meta.FindStatusCondition(e.Status.Conditions, EvictionValidCondition); c != nil &&
		c.Status == metav1.ConditionFalse && c.ObservedGeneration == e.Generation {
		return true
	}
	return meta.FindStatusCondition(e.Status.Conditions, EvictionExecutedCondition) != nil
}
