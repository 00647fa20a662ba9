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
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Kinds of the override API.
const (
	ClusterResourceOverrideKind         = "ClusterResourceOverride"
	ResourceOverrideKind                = "ResourceOverride"
	ClusterResourceOverrideSnapshotKind = "ClusterResourceOverrideSnapshot"
	ResourceOverrideSnapshotKind        = "ResourceOverrideSnapshot"
)

// Variables an override's JSON patch values may hold, replaced per member cluster.
const (
	// OverrideClusterNameVariable is replaced by the member cluster's name.
	OverrideClusterNameVariable = "${MEMBER-CLUSTER-NAME}"
	// OverrideClusterLabelKeyVariablePrefix starts "${MEMBER-CLUSTER-LABEL-KEY-<key>}", replaced
	// by the value of the cluster's label <key>; a cluster without the label fails the override.
	OverrideClusterLabelKeyVariablePrefix = "${MEMBER-CLUSTER-LABEL-KEY-"
)

// RestoreOverridesAnnotation set to "true" on an update run makes it give each cluster the override
// snapshots the most recent earlier run of the same resource snapshot index gave it, instead of
// the latest ones: `stagecoach rollback placement` sets it. A run rolling back a failed run
// (RollbackOfAnnotation) does so too.
const RestoreOverridesAnnotation = "stagecoach.dev/restore-overrides"

// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:resource:scope="Cluster",categories={fleet,fleet-placement}
// +kubebuilder:validation:XValidation:rule="!has(self.spec.placement) || self.spec.placement.scope != 'Namespaced'",message="clusterResourceOverride placement reference cannot be Namespaced scope"

// ClusterResourceOverride changes cluster-scoped resources (or, through their Namespace, every
// resource in a namespace) that a ClusterResourcePlacement delivers, per member cluster. Every
// change of its spec is kept as a ClusterResourceOverrideSnapshot; bindings name the snapshots
// their cluster gets.
type ClusterResourceOverride struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec ClusterResourceOverrideSpec `json:"spec"`
}

// ClusterResourceOverrideSpec says which resources are changed and how.
// +kubebuilder:validation:XValidation:rule="(has(oldSelf.placement) && has(self.placement) && oldSelf.placement == self.placement) || (!has(oldSelf.placement) && !has(self.placement))",message="The placement field is immutable"
type ClusterResourceOverrideSpec struct {
	// Placement names the placement whose resources are changed; unset, the override applies to
	// every placement that selects the resources. Immutable.
	// +optional
	Placement *PlacementRef `json:"placement,omitempty"`

	// ClusterResourceSelectors name the cluster-scoped resources to change, each by group,
	// version, kind and name. A Namespace selects every resource in it.
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=20
	// +required
	ClusterResourceSelectors []ResourceSelectorTerm `json:"clusterResourceSelectors"`

	// Policy holds the override rules.
	// +required
	Policy *OverridePolicy `json:"policy"`
}

// ResourceScope is the scope of the placement an override refers to.
type ResourceScope string

const (
	// ClusterScoped refers to a ClusterResourcePlacement.
	ClusterScoped ResourceScope = "Cluster"
	// NamespaceScoped refers to a ResourcePlacement in the override's namespace.
	NamespaceScoped ResourceScope = "Namespaced"
)

// PlacementRef names a placement.
type PlacementRef struct {
	// Name of the placement.
	// +required
	Name string `json:"name"`

	// Scope of the placement: Cluster (a ClusterResourcePlacement) or Namespaced (a
	// ResourcePlacement in the override's namespace).
	// +kubebuilder:validation:Enum=Cluster;Namespaced
	// +kubebuilder:default=Cluster
	// +optional
	Scope ResourceScope `json:"scope,omitempty"`
}

// OverridePolicy is the list of rules of an override.
type OverridePolicy struct {
	// OverrideRules are applied in order; when two rules change the same field on a cluster, the
	// later wins. From 1 to 20.
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=20
	// +required
	OverrideRules []OverrideRule `json:"overrideRules"`
}

// OverrideRule changes the selected resources on the clusters it selects.
type OverrideRule struct {
	// ClusterSelector picks the clusters the rule applies to by label: unset picks none, an empty
	// list of terms picks all.
	// +optional
	ClusterSelector *ClusterSelector `json:"clusterSelector,omitempty"`

	// OverrideType is JSONPatch (apply jsonPatchOverrides) or Delete (the resource is not
	// placed on the cluster).
	// +kubebuilder:validation:Enum=JSONPatch;Delete
	// +kubebuilder:default=JSONPatch
	// +optional
	OverrideType OverrideType `json:"overrideType,omitempty"`

	// JSONPatchOverrides are RFC 6902 operations applied to the resource, in order; their values
	// may hold ${MEMBER-CLUSTER-NAME} and ${MEMBER-CLUSTER-LABEL-KEY-<key>}.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=20
	// +optional
	JSONPatchOverrides []JSONPatchOverride `json:"jsonPatchOverrides,omitempty"`
}

// OverrideType is how a rule changes a resource.
type OverrideType string

const (
	// JSONPatchOverrideType applies the rule's JSON patch.
	JSONPatchOverrideType OverrideType = "JSONPatch"
	// DeleteOverrideType keeps the resource off the cluster.
	DeleteOverrideType OverrideType = "Delete"
)

// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:resource:scope="Namespaced",categories={fleet,fleet-placement}

// ResourceOverride changes namespaced resources of its namespace that a placement delivers, per
// member cluster. Every change of its spec is kept as a ResourceOverrideSnapshot.
type ResourceOverride struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec ResourceOverrideSpec `json:"spec"`
}

// ResourceOverrideSpec says which resources of the namespace are changed and how.
// +kubebuilder:validation:XValidation:rule="(has(oldSelf.placement) && has(self.placement) && oldSelf.placement == self.placement) || (!has(oldSelf.placement) && !has(self.placement))",message="The placement field is immutable"
type ResourceOverrideSpec struct {
	// Placement names the placement whose resources are changed; unset, every placement that
	// selects them. Immutable.
	// +optional
	Placement *PlacementRef `json:"placement,omitempty"`

	// ResourceSelectors name the resources of the override's namespace to change. From 1 to 20.
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=20
	// +required
	ResourceSelectors []ResourceSelector `json:"resourceSelectors"`

	// Policy holds the override rules.
	// +required
	Policy *OverridePolicy `json:"policy"`
}

// ResourceSelector names one namespaced resource in the override's namespace.
type ResourceSelector struct {
	// Group of the resource; "" for the core group.
	// +required
	Group string `json:"group"`

	// Version of the resource.
	// +required
	Version string `json:"version"`

	// Kind of the resource.
	// +required
	Kind string `json:"kind"`

	// Name of the resource.
	// +required
	Name string `json:"name"`
}

// JSONPatchOverride is one RFC 6902 operation.
type JSONPatchOverride struct {
	// Operator is add, remove or replace.
	// +kubebuilder:validation:Enum=add;remove;replace
	// +required
	Operator JSONPatchOverrideOperator `json:"op"`

	// Path is the JSON pointer to the field; typeMeta, status and metadata other than labels and
	// annotations cannot be changed.
	// +required
	Path string `json:"path"`

	// Value is the value to add or replace with; none for remove.
	// +optional
	Value apiextensionsv1.JSON `json:"value,omitempty"`
}

// JSONPatchOverrideOperator is an RFC 6902 operation.
type JSONPatchOverrideOperator string

const (
	// JSONPatchOverrideOpAdd adds a value (replacing an existing member of an object).
	JSONPatchOverrideOpAdd JSONPatchOverrideOperator = "add"
	// JSONPatchOverrideOpRemove removes the value; it must exist.
	JSONPatchOverrideOpRemove JSONPatchOverrideOperator = "remove"
	// JSONPatchOverrideOpReplace replaces the value; it must exist.
	JSONPatchOverrideOpReplace JSONPatchOverrideOperator = "replace"
)

// +kubebuilder:object:root=true

// ClusterResourceOverrideList is a list of ClusterResourceOverrides.
type ClusterResourceOverrideList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterResourceOverride `json:"items"`
}

// +kubebuilder:object:root=true

// ResourceOverrideList is a list of ResourceOverrides.
type ResourceOverrideList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ResourceOverride `json:"items"`
}

func init() { SchemeBuilder.Register(addOverrideTypes) }

func addOverrideTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion,
		&ClusterResourceOverride{}, &ClusterResourceOverrideList{},
		&ResourceOverride{}, &ResourceOverrideList{},
	)
	return nil
}
