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
// +kubebuilder:resource:scope=Cluster,shortName=crp,categories={fleet,fleet-placement}
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:JSONPath=`.metadata.generation`,name="Gen",type=string
// +kubebuilder:printcolumn:JSONPath=`.spec.policy.placementType`,name="Type",priority=1,type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="ClusterResourcePlacementScheduled")].status`,name="Scheduled",type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="ClusterResourcePlacementScheduled")].observedGeneration`,name="Scheduled-Gen",type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="ClusterResourcePlacementWorkSynchronized")].status`,name="Work-Synchronized",priority=1,type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="ClusterResourcePlacementWorkSynchronized")].observedGeneration`,name="Work-Synchronized-Gen",priority=1,type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="ClusterResourcePlacementAvailable")].status`,name="Available",type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="ClusterResourcePlacementAvailable")].observedGeneration`,name="Available-Gen",type=string
// +kubebuilder:printcolumn:JSONPath=`.metadata.creationTimestamp`,name="Age",type=date

// ClusterResourcePlacement selects cluster-scoped resources of the hub cluster (and, through
// Namespaces, everything inside them) and places them on the member clusters its policy picks.
//
// With strategy type RollingUpdate the placement rolls every new revision out by itself. With
// strategy type External it only schedules: a ClusterStagedUpdateRun decides which revision each
// cluster gets and when.
//
// Every change to the selected resources produces a new ClusterResourceSnapshot index, named
// "<placement>-<index>-snapshot"; revisionHistoryLimit of them are kept for rollbacks.
type ClusterResourcePlacement struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec says what to place and where.
	// +kubebuilder:validation:XValidation:rule="!(has(oldSelf.policy) && !has(self.policy))",message="policy cannot be removed once set: keep the policy and edit its fields instead",fieldPath=".policy"
	// +kubebuilder:validation:XValidation:rule="!(self.statusReportingScope == 'NamespaceAccessible' && size(self.resourceSelectors.filter(x, x.kind == 'Namespace')) != 1)",message="statusReportingScope NamespaceAccessible needs exactly one resourceSelector of kind Namespace",fieldPath=".statusReportingScope"
	// +kubebuilder:validation:XValidation:rule="!has(oldSelf.statusReportingScope) || self.statusReportingScope == oldSelf.statusReportingScope",message="statusReportingScope is immutable: create a new placement to change it",fieldPath=".statusReportingScope"
	// +required
	Spec PlacementSpec `json:"spec"`

	// Status is what Stagecoach last observed about the placement.
	// +optional
	Status PlacementStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ClusterResourcePlacementList is a list of ClusterResourcePlacements.
type ClusterResourcePlacementList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterResourcePlacement `json:"items"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,shortName=rp,categories={fleet,fleet-placement}
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:JSONPath=`.metadata.generation`,name="Gen",type=string
// +kubebuilder:printcolumn:JSONPath=`.spec.policy.placementType`,name="Type",priority=1,type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="ResourcePlacementScheduled")].status`,name="Scheduled",type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="ResourcePlacementScheduled")].observedGeneration`,name="Scheduled-Gen",type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="ResourcePlacementWorkSynchronized")].status`,name="Work-Synchronized",priority=1,type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="ResourcePlacementWorkSynchronized")].observedGeneration`,name="Work-Synchronized-Gen",priority=1,type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="ResourcePlacementAvailable")].status`,name="Available",type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="ResourcePlacementAvailable")].observedGeneration`,name="Available-Gen",type=string
// +kubebuilder:printcolumn:JSONPath=`.metadata.creationTimestamp`,name="Age",type=date

// ResourcePlacement is the namespaced counterpart of ClusterResourcePlacement: it selects resources
// in its own namespace and places them on member clusters. Its snapshots (ResourceSnapshots) live
// in the same namespace, and a StagedUpdateRun in that namespace rolls it out when its strategy type
// is External.
type ResourcePlacement struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec says what to place and where.
	// +kubebuilder:validation:XValidation:rule="!(has(oldSelf.policy) && !has(self.policy))",message="policy cannot be removed once set: keep the policy and edit its fields instead",fieldPath=".policy"
	// +kubebuilder:validation:XValidation:rule="self.resourceSelectors.all(x, !(size(x.group) == 0 && x.kind == 'Namespace'))",message="a ResourcePlacement selects resources inside its own namespace and cannot select Namespaces: use a ClusterResourcePlacement for that",fieldPath=".resourceSelectors"
	// +required
	Spec PlacementSpec `json:"spec"`

	// Status is what Stagecoach last observed about the placement.
	// +optional
	Status PlacementStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ResourcePlacementList is a list of ResourcePlacements.
type ResourcePlacementList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ResourcePlacement `json:"items"`
}

// PlacementSpec says which resources a placement selects, which member clusters receive them and
// how changes roll out. ClusterResourcePlacement and ResourcePlacement share it.
// +kubebuilder:validation:XValidation:rule="self.resourceSelectors.filter(x, x.kind == 'Namespace' && has(x.selectionScope) && x.selectionScope == 'NamespaceWithResourceSelectors').size() <= 1",message="only one Namespace selector may use selectionScope NamespaceWithResourceSelectors",fieldPath=".resourceSelectors"
// +kubebuilder:validation:XValidation:rule="self.resourceSelectors.all(x, !(x.kind == 'Namespace' && has(x.selectionScope) && x.selectionScope == 'NamespaceWithResourceSelectors') || (has(x.name) && size(x.name) > 0 && !has(x.labelSelector)))",message="a Namespace selector with selectionScope NamespaceWithResourceSelectors must name its namespace with name, not labelSelector",fieldPath=".resourceSelectors"
// +kubebuilder:validation:XValidation:rule="!self.resourceSelectors.exists(x, x.kind == 'Namespace' && has(x.selectionScope) && x.selectionScope == 'NamespaceWithResourceSelectors') || self.resourceSelectors.filter(x, x.kind == 'Namespace').size() == 1",message="a Namespace selector with selectionScope NamespaceWithResourceSelectors cannot be combined with other Namespace selectors",fieldPath=".resourceSelectors"
type PlacementSpec struct {
	// ResourceSelectors pick the hub resources to place; an object is selected when any selector
	// matches it. Between 1 and 100 selectors.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=100
	// +listType=atomic
	// +required
	ResourceSelectors []ResourceSelectorTerm `json:"resourceSelectors"`

	// Policy picks the member clusters. When unset every joined member cluster is picked (PickAll).
	// Once set it cannot be removed, and its placementType cannot change.
	// +kubebuilder:validation:XValidation:rule="self.placementType == oldSelf.placementType",message="placement type is immutable: create a new placement to use another placementType"
	// +optional
	Policy *PlacementPolicy `json:"policy,omitempty"`

	// Strategy says how a new revision of the selected resources reaches the picked clusters.
	// It is always stored (with type RollingUpdate when not given), so that a strategy of type
	// External cannot be dropped by leaving the field out.
	// +kubebuilder:default={}
	// +optional
	Strategy RolloutStrategy `json:"strategy,omitempty"`

	// RevisionHistoryLimit is how many old resource and policy snapshots to keep for rollbacks.
	// Between 1 and 1000; 10 when unset.
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	// +optional
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`

	// StatusReportingScope says where the status of a ClusterResourcePlacement can be read.
	// ClusterScopeOnly (the default) keeps it on the placement only. NamespaceAccessible also
	// copies it into the one namespace the placement selects, for users without cluster-wide read
	// access. It cannot change once set.
	// +kubebuilder:default=ClusterScopeOnly
	// +kubebuilder:validation:Enum=ClusterScopeOnly;NamespaceAccessible
	// +optional
	StatusReportingScope StatusReportingScope `json:"statusReportingScope,omitempty"`
}

// ResourceSelectorTerm selects hub resources by group, version and kind and, optionally, by name or
// by labels. An object must match every field that is set.
// +kubebuilder:validation:XValidation:rule="!(has(self.name) && size(self.name) > 0 && has(self.labelSelector))",message="name and labelSelector are mutually exclusive in a resource selector: set one of them, or neither to select every object of the kind"
type ResourceSelectorTerm struct {
	// Group is the API group of the resources; "" for the core group (Namespaces, ConfigMaps, ...).
	// +kubebuilder:validation:MaxLength=253
	// +required
	Group string `json:"group"`

	// Version is the API version of the resources.
	// +kubebuilder:validation:MaxLength=63
	// +required
	Version string `json:"version"`

	// Kind is the kind of the resources. Selecting a Namespace selects, by default, everything in
	// it as well; see selectionScope.
	// +kubebuilder:validation:MaxLength=63
	// +required
	Kind string `json:"kind"`

	// Name selects the one object with this name. Leave it and labelSelector unset to select every
	// object of the kind.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Name string `json:"name,omitempty"`

	// LabelSelector selects the objects whose labels match.
	// +optional
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`

	// SelectionScope says, for a Namespace selector, what else is selected with the namespace:
	// NamespaceWithResources (the default) selects everything in it, NamespaceOnly only the
	// namespace itself, and NamespaceWithResourceSelectors the namespace plus what the other
	// selectors of the placement pick inside it. Ignored for other kinds.
	// +kubebuilder:validation:Enum=NamespaceOnly;NamespaceWithResources;NamespaceWithResourceSelectors
	// +kubebuilder:default=NamespaceWithResources
	// +optional
	SelectionScope SelectionScope `json:"selectionScope,omitempty"`
}

// SelectionScope says what a Namespace selector selects besides the namespace.
// +enum
type SelectionScope string

const (
	// NamespaceOnly selects the namespace object only.
	NamespaceOnly SelectionScope = "NamespaceOnly"

	// NamespaceWithResources selects the namespace and every object in it.
	NamespaceWithResources SelectionScope = "NamespaceWithResources"

	// NamespaceWithResourceSelectors selects the namespace and the objects in it that the other
	// selectors of the placement pick.
	NamespaceWithResourceSelectors SelectionScope = "NamespaceWithResourceSelectors"
)

// StatusReportingScope says where the status of a ClusterResourcePlacement can be read.
// +enum
type StatusReportingScope string

const (
	// ClusterScopeOnly keeps the status on the cluster-scoped placement only.
	ClusterScopeOnly StatusReportingScope = "ClusterScopeOnly"

	// NamespaceAccessible also copies the status into the namespace the placement selects.
	NamespaceAccessible StatusReportingScope = "NamespaceAccessible"
)
