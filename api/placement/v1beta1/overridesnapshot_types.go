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

// Labels, names and limits of override snapshots.
const (
	// OverrideIndexLabel is a snapshot's index among its override's snapshots, from 0.
	OverrideIndexLabel = FleetPrefix + "override-index"

	// OverrideSnapshotNameFmt is a snapshot's name: "<override>-<index>".
	OverrideSnapshotNameFmt = "%s-%d"

	// OverrideTrackingLabel names the override a snapshot was taken of.
	OverrideTrackingLabel = FleetPrefix + "parent-resource-override"

	// OverrideFinalizer keeps an override until its snapshots are deleted.
	OverrideFinalizer = FleetPrefix + "override-cleanup"

	// OverrideSnapshotHistoryLimit is how many snapshots of one override are kept, the latest
	// included.
	OverrideSnapshotHistoryLimit = 10
)

// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:resource:scope="Cluster",categories={fleet,fleet-placement}

// ClusterResourceOverrideSnapshot keeps one revision of a ClusterResourceOverride's spec. It is
// named "<override>-<index>" and labelled with OverrideTrackingLabel, OverrideIndexLabel and
// IsLatestSnapshotLabel. Its spec is immutable.
type ClusterResourceOverrideSnapshot struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec ClusterResourceOverrideSnapshotSpec `json:"spec"`
}

// ClusterResourceOverrideSnapshotSpec is the override's spec at that revision.
type ClusterResourceOverrideSnapshotSpec struct {
	// OverrideSpec is the ClusterResourceOverride's spec.
	OverrideSpec ClusterResourceOverrideSpec `json:"overrideSpec"`

	// OverrideHash is the SHA-256 of OverrideSpec.
	// +required
	OverrideHash []byte `json:"overrideHash"`
}

// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:resource:scope="Namespaced",categories={fleet,fleet-placement}

// ResourceOverrideSnapshot keeps one revision of a ResourceOverride's spec, in its namespace,
// named and labelled as a ClusterResourceOverrideSnapshot. Its spec is immutable.
type ResourceOverrideSnapshot struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec ResourceOverrideSnapshotSpec `json:"spec"`
}

// ResourceOverrideSnapshotSpec is the override's spec at that revision.
type ResourceOverrideSnapshotSpec struct {
	// OverrideSpec is the ResourceOverride's spec.
	OverrideSpec ResourceOverrideSpec `json:"overrideSpec"`

	// OverrideHash is the SHA-256 of OverrideSpec.
	// +required
	OverrideHash []byte `json:"overrideHash"`
}

// +kubebuilder:object:root=true

// ClusterResourceOverrideSnapshotList is a list of ClusterResourceOverrideSnapshots.
type ClusterResourceOverrideSnapshotList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterResourceOverrideSnapshot `json:"items"`
}

// +kubebuilder:object:root=true

// ResourceOverrideSnapshotList is a list of ResourceOverrideSnapshots.
type ResourceOverrideSnapshotList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ResourceOverrideSnapshot `json:"items"`
}

func init() { SchemeBuilder.Register(addOverrideSnapshotTypes) }

func addOverrideSnapshotTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion,
		&ClusterResourceOverrideSnapshot{}, &ClusterResourceOverrideSnapshotList{},
		&ResourceOverrideSnapshot{}, &ResourceOverrideSnapshotList{},
	)
	return nil
}
