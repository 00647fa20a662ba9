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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PlacementType says how a placement picks member clusters.
// +enum
type PlacementType string

const (
	// PickAllPlacementType picks every joined member cluster that satisfies the affinity rules.
	PickAllPlacementType PlacementType = "PickAll"

	// PickNPlacementType picks numberOfClusters member clusters, preferring the best-scored ones.
	PickNPlacementType PlacementType = "PickN"

	// PickFixedPlacementType picks exactly the member clusters listed in clusterNames.
	PickFixedPlacementType PlacementType = "PickFixed"
)

// PlacementPolicy says which member clusters receive the selected resources. Only joined clusters
// are ever picked.
// +kubebuilder:validation:XValidation:rule="self.placementType != 'PickFixed' || (!has(self.affinity) && !has(self.numberOfClusters) && !has(self.topologySpreadConstraints) && !has(self.tolerations))",message="a PickFixed policy places on the clusters listed in clusterNames only: remove affinity, numberOfClusters, topologySpreadConstraints and tolerations"
// +kubebuilder:validation:XValidation:rule="self.placementType != 'PickAll' || (!has(self.clusterNames) && !has(self.numberOfClusters) && !has(self.topologySpreadConstraints))",message="a PickAll policy picks every matching cluster: remove clusterNames, numberOfClusters and topologySpreadConstraints (or use PickFixed or PickN)"
// +kubebuilder:validation:XValidation:rule="self.placementType != 'PickN' || !has(self.clusterNames)",message="a PickN policy picks clusters by score: remove clusterNames (or use PickFixed)"
// +kubebuilder:validation:XValidation:rule="self.placementType != 'PickN' || has(self.numberOfClusters)",message="a PickN policy needs numberOfClusters"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.tolerations) || (has(self.tolerations) && oldSelf.tolerations.all(t, t in self.tolerations))",message="tolerations cannot be updated or removed once added: add new ones only"
type PlacementPolicy struct {
	// PlacementType is PickAll (the default), PickN or PickFixed. It cannot change once set.
	// +kubebuilder:validation:Enum=PickAll;PickN;PickFixed
	// +kubebuilder:default=PickAll
	// +optional
	PlacementType PlacementType `json:"placementType,omitempty"`

	// ClusterNames lists the member clusters to place on; PickFixed only. At most 100.
	// +kubebuilder:validation:MaxItems=100
	// +listType=atomic
	// +optional
	ClusterNames []string `json:"clusterNames,omitempty"`

	// NumberOfClusters is how many member clusters to pick; PickN only, and required there.
	// +kubebuilder:validation:Minimum=0
	// +optional
	NumberOfClusters *int32 `json:"numberOfClusters,omitempty"`

	// Affinity restricts and ranks the clusters that may be picked; PickAll and PickN only.
	// +optional
	Affinity *Affinity `json:"affinity,omitempty"`

	// TopologySpreadConstraints spread the picked clusters evenly over topology domains (groups of
	// clusters sharing a label value); PickN only. All constraints must hold.
	// +listType=atomic
	// +optional
	TopologySpreadConstraints []TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`

	// Tolerations let the placement use member clusters carrying matching taints. Tolerations
	// cannot be updated or removed once added. At most 100.
	// +kubebuilder:validation:MaxItems=100
	// +listType=atomic
	// +optional
	Tolerations []Toleration `json:"tolerations,omitempty"`
}

// Affinity groups the cluster affinity rules of a placement.
type Affinity struct {
	// ClusterAffinity restricts and ranks member clusters by their labels and properties.
	// +optional
	ClusterAffinity *ClusterAffinity `json:"clusterAffinity,omitempty"`
}

// ClusterAffinity restricts and ranks member clusters by their labels and properties.
type ClusterAffinity struct {
	// RequiredDuringSchedulingIgnoredDuringExecution lists the terms a cluster must match to be
	// picked. A cluster that stops matching later keeps what was placed on it.
	// +optional
	RequiredDuringSchedulingIgnoredDuringExecution *ClusterSelector `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`

	// PreferredDuringSchedulingIgnoredDuringExecution ranks clusters: each cluster scores the sum of
	// the weights of the terms it matches, and PickN takes the best-scored clusters. Ignored by
	// PickAll.
	// +listType=atomic
	// +optional
	PreferredDuringSchedulingIgnoredDuringExecution []PreferredClusterSelector `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// ClusterSelector matches a cluster when any of its terms matches.
type ClusterSelector struct {
	// ClusterSelectorTerms are ORed. At most 10.
	// +kubebuilder:validation:MaxItems=10
	// +listType=atomic
	// +required
	ClusterSelectorTerms []ClusterSelectorTerm `json:"clusterSelectorTerms"`
}

// PreferredClusterSelector gives a weight to the clusters matching a term.
type PreferredClusterSelector struct {
	// Weight is added to the score of every cluster matching the preference; between -100 and 100.
	// +kubebuilder:validation:Minimum=-100
	// +kubebuilder:validation:Maximum=100
	// +required
	Weight int32 `json:"weight"`

	// Preference is the term clusters are matched against.
	// +required
	Preference ClusterSelectorTerm `json:"preference"`
}

// ClusterSelectorTerm matches member clusters by labels and properties; the parts that are set are
// ANDed.
type ClusterSelectorTerm struct {
	// LabelSelector matches clusters by their labels.
	// +optional
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`

	// PropertySelector matches clusters by their observed properties (such as node count or
	// available CPU). Only in required affinity terms.
	// +optional
	PropertySelector *PropertySelector `json:"propertySelector,omitempty"`

	// PropertySorter weighs clusters by one of their observed properties. Only in preferred
	// affinity terms.
	// +optional
	PropertySorter *PropertySorter `json:"propertySorter,omitempty"`
}

// PropertySelector matches clusters whose properties satisfy every requirement.
type PropertySelector struct {
	// MatchExpressions are ANDed.
	// +listType=atomic
	// +required
	MatchExpressions []PropertySelectorRequirement `json:"matchExpressions"`
}

// PropertySelectorOperator compares an observed cluster property with a value.
// +enum
type PropertySelectorOperator string

const (
	// PropertySelectorGreaterThan matches when the observed value is greater than the given one.
	PropertySelectorGreaterThan PropertySelectorOperator = "Gt"
	// PropertySelectorGreaterThanOrEqualTo matches when the observed value is at least the given one.
	PropertySelectorGreaterThanOrEqualTo PropertySelectorOperator = "Ge"
	// PropertySelectorEqualTo matches when the observed value equals the given one.
	PropertySelectorEqualTo PropertySelectorOperator = "Eq"
	// PropertySelectorNotEqualTo matches when the observed value differs from the given one.
	PropertySelectorNotEqualTo PropertySelectorOperator = "Ne"
	// PropertySelectorLessThan matches when the observed value is less than the given one.
	PropertySelectorLessThan PropertySelectorOperator = "Lt"
	// PropertySelectorLessThanOrEqualTo matches when the observed value is at most the given one.
	PropertySelectorLessThanOrEqualTo PropertySelectorOperator = "Le"
)

// PropertySelectorRequirement compares one cluster property with a value.
type PropertySelectorRequirement struct {
	// Name is the property, in the form of a label name (for example kubernetes-fleet.io/node-count).
	// +required
	Name string `json:"name"`

	// Operator is how the observed value is compared: Gt, Ge, Eq, Ne, Lt or Le.
	// +kubebuilder:validation:Enum=Gt;Ge;Eq;Ne;Lt;Le
	// +required
	Operator PropertySelectorOperator `json:"operator"`

	// Values holds the one value to compare with, written as a Kubernetes quantity.
	// +kubebuilder:validation:MaxItems=1
	// +listType=atomic
	// +required
	Values []string `json:"values"`
}

// PropertySortOrder says whether higher or lower property values are preferred.
// +enum
type PropertySortOrder string

const (
	// Descending prefers clusters with higher values: the highest observed value gets the full
	// weight, the lowest gets none, and the others are scaled linearly in between.
	Descending PropertySortOrder = "Descending"

	// Ascending prefers clusters with lower values: the lowest observed value gets the full weight,
	// the highest gets none, and the others are scaled linearly in between.
	Ascending PropertySortOrder = "Ascending"
)

// PropertySorter weighs clusters by one of their observed properties.
type PropertySorter struct {
	// Name is the property to sort by.
	// +required
	Name string `json:"name"`

	// SortOrder is Ascending or Descending.
	// +kubebuilder:validation:Enum=Ascending;Descending
	// +required
	SortOrder PropertySortOrder `json:"sortOrder"`
}

// UnsatisfiableConstraintAction says what to do when a topology spread constraint cannot be met.
// +enum
type UnsatisfiableConstraintAction string

const (
	// DoNotSchedule leaves clusters unpicked rather than break the constraint.
	DoNotSchedule UnsatisfiableConstraintAction = "DoNotSchedule"

	// ScheduleAnyway picks clusters anyway, preferring those that reduce the skew.
	ScheduleAnyway UnsatisfiableConstraintAction = "ScheduleAnyway"
)

// TopologySpreadConstraint spreads the picked clusters over the values of a cluster label.
type TopologySpreadConstraint struct {
	// MaxSkew is the largest allowed difference between the number of picked clusters in any
	// topology domain and in the least used one. At least 1; 1 when unset.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +optional
	MaxSkew *int32 `json:"maxSkew,omitempty"`

	// TopologyKey is the cluster label whose values define the topology domains.
	// +required
	TopologyKey string `json:"topologyKey"`

	// WhenUnsatisfiable is DoNotSchedule (the default) or ScheduleAnyway.
	// +kubebuilder:validation:Enum=DoNotSchedule;ScheduleAnyway
	// +kubebuilder:default=DoNotSchedule
	// +optional
	WhenUnsatisfiable UnsatisfiableConstraintAction `json:"whenUnsatisfiable,omitempty"`
}

// Toleration lets a placement use member clusters carrying a matching taint.
type Toleration struct {
	// Key is the taint key to match; empty matches every key, and then operator must be Exists.
	// +optional
	Key string `json:"key,omitempty"`

	// Operator is Equal (the default), which also compares the value, or Exists, which matches any
	// value.
	// +kubebuilder:validation:Enum=Equal;Exists
	// +kubebuilder:default=Equal
	// +optional
	Operator corev1.TolerationOperator `json:"operator,omitempty"`

	// Value is the taint value to match; leave it empty with operator Exists.
	// +optional
	Value string `json:"value,omitempty"`

	// Effect is the taint effect to match; empty matches every effect. Only NoSchedule exists.
	// +kubebuilder:validation:Enum=NoSchedule
	// +optional
	Effect corev1.TaintEffect `json:"effect,omitempty"`
}
