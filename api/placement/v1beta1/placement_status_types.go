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

// PlacementStatus is what Stagecoach last observed about a placement. ClusterResourcePlacement and
// ResourcePlacement share it.
type PlacementStatus struct {
	// SelectedResources lists the resources of the revision given by observedResourceIndex.
	// +listType=atomic
	// +optional
	SelectedResources []ResourceIdentifier `json:"selectedResources,omitempty"`

	// ObservedResourceIndex is the resource snapshot index the placement reports on. List the
	// snapshots of an index with
	// `kubectl get clusterresourcesnapshots -l kubernetes-fleet.io/resource-index=<index>`.
	// With strategy type RollingUpdate it is the latest index. With strategy type External, where
	// update runs decide which cluster gets which index, it is set only while every picked cluster
	// runs the same index, and empty otherwise.
	// +optional
	ObservedResourceIndex string `json:"observedResourceIndex,omitempty"`

	// PerClusterPlacementStatuses holds one entry per picked cluster. PickN and PickFixed
	// placements that could not pick enough clusters also have entries without a clusterName.
	// +listType=atomic
	// +optional
	PerClusterPlacementStatuses []PerClusterPlacementStatus `json:"placementStatuses,omitempty"`

	// ClusterCounts counts the entries of placementStatuses by how far the placement has got on
	// each cluster. It is set only when there are more entries than placementStatuses may list
	// (500 by default); placementStatuses then lists the failed clusters first, then those not
	// scheduled, those not available yet, and the available ones, and the placement's bindings
	// are there for every cluster. A Stagecoach extension.
	// +optional
	ClusterCounts *PlacementClusterCounts `json:"clusterCounts,omitempty"`

	// Conditions are the observed conditions of the placement, such as
	// ClusterResourcePlacementScheduled and ClusterResourcePlacementAvailable (the
	// ResourcePlacement... equivalents for a ResourcePlacement). All but the Scheduled condition
	// describe the revision given by observedResourceIndex.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// PlacementClusterCounts counts the clusters of a placement by how far it has got on them.
type PlacementClusterCounts struct {
	// Total is the number of entries placementStatuses would have if it listed them all.
	Total int32 `json:"total"`

	// Available is the number of picked clusters where every resource is available.
	Available int32 `json:"available"`

	// Failed is the number of picked clusters where the resources failed to apply or are not
	// available.
	Failed int32 `json:"failed"`

	// Pending is the number of the other picked clusters: rollout not started, resources not
	// applied yet, or their availability not known yet.
	Pending int32 `json:"pending"`

	// NotScheduled is the number of entries for clusters the policy asks for and could not get.
	NotScheduled int32 `json:"notScheduled"`
}

// ResourceIdentifier identifies one Kubernetes resource.
type ResourceIdentifier struct {
	// Group is the API group of the resource; empty for the core group.
	// +optional
	Group string `json:"group,omitempty"`

	// Version is the API version of the resource.
	// +required
	Version string `json:"version"`

	// Kind is the kind of the resource.
	// +required
	Kind string `json:"kind"`

	// Name is the name of the resource.
	// +required
	Name string `json:"name"`

	// Namespace is the namespace of the resource; empty for cluster-scoped resources.
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// Envelope identifies the envelope object the resource was wrapped in, if any.
	// +optional
	Envelope *EnvelopeIdentifier `json:"envelope,omitempty"`
}

// EnvelopeType is the kind of object used as an envelope: an object that carries other resources to
// be applied on member clusters rather than on the hub.
// +enum
type EnvelopeType string

const (
	// ConfigMapEnvelopeType is a ConfigMap used as an envelope.
	ConfigMapEnvelopeType EnvelopeType = "ConfigMap"

	// ClusterResourceEnvelopeType is a ClusterResourceEnvelope.
	ClusterResourceEnvelopeType EnvelopeType = "ClusterResourceEnvelope"

	// ResourceEnvelopeType is a ResourceEnvelope.
	ResourceEnvelopeType EnvelopeType = "ResourceEnvelope"
)

// EnvelopeIdentifier identifies the envelope object that carried a resource.
type EnvelopeIdentifier struct {
	// Name of the envelope object.
	// +required
	Name string `json:"name"`

	// Namespace of the envelope object; empty when it is cluster-scoped.
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// Type of the envelope object: ConfigMap (the default), ClusterResourceEnvelope or
	// ResourceEnvelope.
	// +kubebuilder:validation:Enum=ConfigMap;ClusterResourceEnvelope;ResourceEnvelope
	// +kubebuilder:default=ConfigMap
	// +optional
	Type EnvelopeType `json:"type"`
}

// PerClusterPlacementStatus is the state of a placement on one member cluster.
type PerClusterPlacementStatus struct {
	// ClusterName is the member cluster. Empty for a PickN or PickFixed slot no cluster could fill.
	// +optional
	ClusterName string `json:"clusterName,omitempty"`

	// ObservedResourceIndex is the resource snapshot index this cluster runs or is being updated to.
	// +optional
	ObservedResourceIndex string `json:"observedResourceIndex,omitempty"`

	// ApplicableResourceOverrides lists the ResourceOverride snapshots applied to this cluster's
	// copy of the resources.
	// +listType=atomic
	// +optional
	ApplicableResourceOverrides []NamespacedName `json:"applicableResourceOverrides,omitempty"`

	// ApplicableClusterResourceOverrides lists the ClusterResourceOverride snapshots applied to this
	// cluster's copy of the resources.
	// +listType=atomic
	// +optional
	ApplicableClusterResourceOverrides []string `json:"applicableClusterResourceOverrides,omitempty"`

	// FailedPlacements lists resources that failed to apply or are not available; at most 100 are
	// listed.
	// +kubebuilder:validation:MaxItems=100
	// +listType=atomic
	// +optional
	FailedPlacements []FailedResourcePlacement `json:"failedPlacements,omitempty"`

	// DriftedPlacements lists resources changed on the member cluster since they were applied; at
	// most 100 are listed.
	// +kubebuilder:validation:MaxItems=100
	// +listType=atomic
	// +optional
	DriftedPlacements []DriftedResourcePlacement `json:"driftedPlacements,omitempty"`

	// DiffedPlacements lists resources that differ from the hub manifests, as found by the
	// ReportDiff apply type or by a WhenToTakeOver check; at most 100 are listed.
	// +kubebuilder:validation:MaxItems=100
	// +listType=atomic
	// +optional
	DiffedPlacements []DiffedResourcePlacement `json:"diffedPlacements,omitempty"`

	// Conditions are the observed conditions on this cluster (Scheduled, RolloutStarted,
	// Overridden, WorkSynchronized, Applied, Available, DiffReported), for the revision given by
	// observedResourceIndex.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// FailedResourcePlacement is a resource that failed to apply or is not available on a cluster.
type FailedResourcePlacement struct {
	// ResourceIdentifier is the resource that failed.
	ResourceIdentifier `json:",inline"`

	// Condition is the failed condition, saying what went wrong.
	// +required
	Condition metav1.Condition `json:"condition"`
}

// PatchDetail is one drifted or different field, in the manner of an RFC 6902 JSON patch operation.
type PatchDetail struct {
	// Path is the JSON pointer to the field.
	// +required
	Path string `json:"path"`

	// ValueInMember is the value on the member cluster; empty when the field is absent there.
	// +optional
	ValueInMember string `json:"valueInMember,omitempty"`

	// ValueInHub is the value in the hub manifest; empty when the field is absent there.
	// +optional
	ValueInHub string `json:"valueInHub,omitempty"`
}

// DriftedResourcePlacement is a resource that was changed on a member cluster after it was applied.
type DriftedResourcePlacement struct {
	// ResourceIdentifier is the drifted resource.
	ResourceIdentifier `json:",inline"`

	// ObservationTime is when the drift was last observed.
	// +required
	ObservationTime metav1.Time `json:"observationTime"`

	// TargetClusterObservedGeneration is the generation of the resource on the member cluster that
	// has the drift.
	// +required
	TargetClusterObservedGeneration int64 `json:"targetClusterObservedGeneration"`

	// FirstDriftedObservedTime is when the drift was first observed.
	// +required
	FirstDriftedObservedTime metav1.Time `json:"firstDriftedObservedTime"`

	// ObservedDrifts are the drifted fields; the list may be truncated.
	// +listType=atomic
	// +optional
	ObservedDrifts []PatchDetail `json:"observedDrifts,omitempty"`
}

// DiffedResourcePlacement is a resource that differs from its hub manifest on a member cluster.
type DiffedResourcePlacement struct {
	// ResourceIdentifier is the resource that differs.
	ResourceIdentifier `json:",inline"`

	// ObservationTime is when the difference was last observed.
	// +required
	ObservationTime metav1.Time `json:"observationTime"`

	// TargetClusterObservedGeneration is the generation of the resource on the member cluster that
	// differs; unset when the resource does not exist there yet.
	// +optional
	TargetClusterObservedGeneration *int64 `json:"targetClusterObservedGeneration"`

	// FirstDiffedObservedTime is when the difference was first observed.
	// +required
	FirstDiffedObservedTime metav1.Time `json:"firstDiffedObservedTime"`

	// ObservedDiffs are the differing fields; the list may be truncated.
	// +listType=atomic
	// +optional
	ObservedDiffs []PatchDetail `json:"observedDiffs,omitempty"`
}
