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

package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// The types below mirror api/placement/v1beta1 field for field; keep them in step.

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=crs,categories={fleet,fleet-placement}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:JSONPath=`.metadata.generation`,name="Gen",type=string
// +kubebuilder:printcolumn:JSONPath=`.metadata.creationTimestamp`,name="Age",type=date

// ClusterResourceSnapshot keeps one revision of the resources a ClusterResourcePlacement selected.
// See the v1beta1 ClusterResourceSnapshot for naming, labels and annotations.
type ClusterResourceSnapshot struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec holds the selected resources.
	// +required
	Spec ResourceSnapshotSpec `json:"spec"`

	// Status is what was observed about the snapshot.
	// +optional
	Status ResourceSnapshotStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ClusterResourceSnapshotList is a list of ClusterResourceSnapshots.
type ClusterResourceSnapshotList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterResourceSnapshot `json:"items"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,shortName=rs,categories={fleet,fleet-placement}
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:JSONPath=`.metadata.generation`,name="Gen",type=string
// +kubebuilder:printcolumn:JSONPath=`.metadata.creationTimestamp`,name="Age",type=date

// ResourceSnapshot keeps one revision of the resources a ResourcePlacement selected, in the
// placement's namespace.
type ResourceSnapshot struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec holds the selected resources.
	// +required
	Spec ResourceSnapshotSpec `json:"spec"`

	// Status is what was observed about the snapshot.
	// +optional
	Status ResourceSnapshotStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ResourceSnapshotList is a list of ResourceSnapshots.
type ResourceSnapshotList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ResourceSnapshot `json:"items"`
}

// ResourceSnapshotSpec holds the selected resources of one snapshot.
type ResourceSnapshotSpec struct {
	// SelectedResources are the selected objects, cleaned of server-set fields (status,
	// resourceVersion, uid, managedFields, ...), as they will be applied on member clusters.
	// +listType=atomic
	// +required
	SelectedResources []ResourceContent `json:"selectedResources"`
}

// ResourceContent is one complete Kubernetes object, with apiVersion, kind and metadata.
type ResourceContent struct {
	// +kubebuilder:validation:EmbeddedResource
	// +kubebuilder:pruning:PreserveUnknownFields
	runtime.RawExtension `json:"-,inline"`
}

// ResourceSnapshotStatus is what was observed about a snapshot.
type ResourceSnapshotStatus struct {
	// Conditions are the observed conditions of the snapshot.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}
