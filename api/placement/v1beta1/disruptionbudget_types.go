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
	"k8s.io/apimachinery/pkg/util/intstr"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,categories={fleet,fleet-placement},shortName=crpdb
// +kubebuilder:storageversion

// ClusterResourcePlacementDisruptionBudget limits the evictions of the ClusterResourcePlacement
// of the same name: how many of its clusters may be unavailable, or must stay available, for an
// eviction to go ahead. Involuntary disruptions (a policy change, a failing cluster) are not
// held back by it but count against it.
type ClusterResourcePlacementDisruptionBudget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the budget: maxUnavailable or minAvailable, not both.
	// +kubebuilder:validation:XValidation:rule="!(has(self.maxUnavailable) && has(self.minAvailable))",message="Both MaxUnavailable and MinAvailable cannot be specified"
	// +required
	Spec PlacementDisruptionBudgetSpec `json:"spec"`
}

// PlacementDisruptionBudgetSpec is a disruption budget. Percentages are of a PickN placement's
// numberOfClusters, rounded up. A PickAll placement takes minAvailable as a number only; with
// maxUnavailable or a percentage its evictions are refused. PickFixed placements are never
// evicted from, so a budget for one has no effect.
type PlacementDisruptionBudgetSpec struct {
	// MaxUnavailable is how many of the placement's clusters may be unavailable, counting the
	// one to evict, for an eviction to go ahead: a number or a percentage ("10%"). 0 forbids
	// every eviction.
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:XValidation:rule="type(self) == string ? self.matches('^(100|[0-9]{1,2})%$') : self >= 0",message="If supplied value is String should match regex '^(100|[0-9]{1,2})%$' or If supplied value is Integer must be greater than or equal to 0"
	// +optional
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`

	// MinAvailable is how many of the placement's clusters must stay available after an
	// eviction: a number or a percentage. 0 allows every eviction.
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:XValidation:rule="type(self) == string ? self.matches('^(100|[0-9]{1,2})%$') : self >= 0",message="If supplied value is String should match regex '^(100|[0-9]{1,2})%$' or If supplied value is Integer must be greater than or equal to 0"
	// +optional
	MinAvailable *intstr.IntOrString `json:"minAvailable,omitempty"`
}

// +kubebuilder:object:root=true

// ClusterResourcePlacementDisruptionBudgetList is a list of
// ClusterResourcePlacementDisruptionBudgets.
type ClusterResourcePlacementDisruptionBudgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterResourcePlacementDisruptionBudget `json:"items"`
}
