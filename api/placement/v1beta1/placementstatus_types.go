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
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,shortName=crps,categories={fleet,fleet-placement}
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:JSONPath=`.sourceStatus.observedResourceIndex`,name="Resource-Index",type=string
// +kubebuilder:printcolumn:JSONPath=`.lastUpdatedTime`,name="Last-Updated",type=string
// +kubebuilder:printcolumn:JSONPath=`.metadata.creationTimestamp`,name="Age",type=date

// ClusterResourcePlacementStatus is a copy, in the namespace a ClusterResourcePlacement places,
// of that placement's status, so that who may read the namespace may read how its placement
// goes. The placement controller writes it, with the placement's name, when the placement's
// statusReportingScope is NamespaceAccessible, keeps it current and, as its owner, has it
// deleted with the placement.
type ClusterResourcePlacementStatus struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// PlacementStatus is the placement's status, without its StatusSynced condition.
	// +required
	PlacementStatus `json:"sourceStatus,omitempty"`

	// LastUpdatedTime is when the controller last wrote this object.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=date-time
	// +required
	LastUpdatedTime metav1.Time `json:"lastUpdatedTime,omitempty"`
}

// +kubebuilder:object:root=true

// ClusterResourcePlacementStatusList is a list of ClusterResourcePlacementStatus.
type ClusterResourcePlacementStatusList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterResourcePlacementStatus `json:"items"`
}
