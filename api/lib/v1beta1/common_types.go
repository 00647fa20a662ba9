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
	"k8s.io/apimachinery/pkg/labels"
)

const (
	// ClusterProfileSecretType is the only Secret type whose content a profile deploys. A Secret
	// referenced from policyRefs (or from a pre-health-check deployment) must have this type, so
	// that ordinary Secrets in the management cluster are never pushed to managed clusters by
	// accident.
	ClusterProfileSecretType corev1.SecretType = "addons.projectsveltos.io/cluster-profile"

	// PolicyTemplateAnnotation marks the content of a referenced ConfigMap or Secret as a Go
	// template to be instantiated for each cluster before it is deployed.
	PolicyTemplateAnnotation = "projectsveltos.io/template"

	// PolicyLuaAnnotation marks the content of a referenced ConfigMap or Secret as a Lua program
	// whose output is the set of resources to deploy.
	PolicyLuaAnnotation = "projectsveltos.io/lua"
)

// ClusterType tells which API represents a managed cluster.
// +kubebuilder:validation:Enum:=Capi;Sveltos
type ClusterType string

const (
	// ClusterTypeCapi is a cluster represented by a Cluster API Cluster.
	ClusterTypeCapi = ClusterType("Capi")

	// ClusterTypeSveltos is a cluster represented by a SveltosCluster.
	ClusterTypeSveltos = ClusterType("Sveltos")
)

// FeatureID names one kind of content a profile deploys. Health checks and status entries are
// keyed by it.
// +kubebuilder:validation:Enum:=Resources;Helm;Kustomize
type FeatureID string

const (
	// FeatureResources is the content of the ConfigMaps, Secrets and sources listed in policyRefs.
	FeatureResources = FeatureID("Resources")

	// FeatureHelm is the set of Helm releases listed in helmCharts.
	FeatureHelm = FeatureID("Helm")

	// FeatureKustomize is the output of the kustomizations listed in kustomizationRefs.
	FeatureKustomize = FeatureID("Kustomize")
)

// FeatureStatus is the deployment state of one feature in one cluster.
// +kubebuilder:validation:Enum:=Provisioning;Provisioned;Failed;FailedNonRetriable;Removing;Removed;AgentRemoving
type FeatureStatus string

const (
	// FeatureStatusProvisioning means the feature is being deployed.
	FeatureStatusProvisioning = FeatureStatus("Provisioning")

	// FeatureStatusProvisioned means the feature is deployed and its health checks passed.
	FeatureStatusProvisioned = FeatureStatus("Provisioned")

	// FeatureStatusFailed means the last deployment failed; it will be retried.
	FeatureStatusFailed = FeatureStatus("Failed")

	// FeatureStatusFailedNonRetriable means deployment failed in a way a retry cannot fix
	// (for example a template that does not render, or too many consecutive failures).
	FeatureStatusFailedNonRetriable = FeatureStatus("FailedNonRetriable")

	// FeatureStatusRemoving means the feature is being withdrawn from the cluster.
	FeatureStatusRemoving = FeatureStatus("Removing")

	// FeatureStatusRemoved means the feature has been withdrawn from the cluster.
	FeatureStatusRemoved = FeatureStatus("Removed")

	// FeatureStatusAgentRemoving means an agent in the cluster (pull mode) is withdrawing it.
	FeatureStatusAgentRemoving = FeatureStatus("AgentRemoving")
)

// FeatureDeploymentInfo lists the kinds of object one feature deployed to a cluster.
type FeatureDeploymentInfo struct {
	// FeatureID is the feature these kinds belong to.
	FeatureID FeatureID `json:"featureID"`

	// DeployedGroupVersionKind lists every kind the feature deployed, each written
	// "Kind.version.group" (the group is empty for core kinds, e.g. "Secret.v1.").
	// +optional
	DeployedGroupVersionKind []string `json:"deployedGroupVersionKind,omitempty"`
}

// Selector picks clusters by their labels. An empty selector (no matchLabels and no
// matchExpressions) matches no cluster at all; it does not match every cluster.
type Selector struct {
	metav1.LabelSelector `json:",inline"`
}

// IsEmpty reports whether the selector has neither matchLabels nor matchExpressions, in which
// case it matches no cluster.
func (s *Selector) IsEmpty() bool {
	return len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0
}

// ToSelector converts the selector to a labels.Selector. It does not special-case an empty
// selector; callers check IsEmpty first.
func (s *Selector) ToSelector() (labels.Selector, error) {
	return metav1.LabelSelectorAsSelector(&s.LabelSelector)
}

// Operation compares a label of an object with a value.
// +kubebuilder:validation:Enum:=Equal;Different;Has;DoesNotHave
type Operation string

const (
	// OperationEqual matches objects whose label equals the value.
	OperationEqual = Operation("Equal")

	// OperationDifferent matches objects whose label differs from the value.
	OperationDifferent = Operation("Different")

	// OperationHas matches objects that carry the label, whatever its value.
	OperationHas = Operation("Has")

	// OperationDoesNotHave matches objects that do not carry the label.
	OperationDoesNotHave = Operation("DoesNotHave")
)

// LabelFilter narrows a set of objects by one of their labels.
type LabelFilter struct {
	// Key is the label key.
	Key string `json:"key"`

	// Operation is how the label is compared.
	Operation Operation `json:"operation"`

	// Value is compared with the label for Equal and Different; Has and DoesNotHave ignore it.
	// +optional
	Value string `json:"value,omitempty"`
}

// ResourceSelector selects objects in a managed cluster by type, namespace, name and labels,
// optionally filtered further by a Lua function or CEL rules.
type ResourceSelector struct {
	// Group of the objects ("" for the core group).
	Group string `json:"group"`

	// Version of the objects.
	Version string `json:"version"`

	// Kind of the objects.
	// +kubebuilder:validation:MinLength=1
	Kind string `json:"kind"`

	// LabelFilters keeps only objects whose labels pass every filter.
	// +optional
	LabelFilters []LabelFilter `json:"labelFilters,omitempty"`

	// Namespace to look in. Empty means every namespace (or cluster-scoped objects).
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// Name keeps only the object with this name.
	// +optional
	Name string `json:"name,omitempty"`

	// Evaluate is a Lua program defining a function evaluate() that receives one object and
	// returns a table with a boolean "matching" field and an optional "message".
	// +optional
	Evaluate string `json:"evaluate,omitempty"`

	// EvaluateCEL is a list of CEL rules evaluated against each object in order; the object
	// matches as soon as one rule returns true.
	// +optional
	EvaluateCEL []CELRule `json:"evaluateCEL,omitempty"`
}

// ReferencedResourceKind is the kind of management-cluster object a lib PolicyRef points at.
// +kubebuilder:validation:Enum:=Secret;ConfigMap
type ReferencedResourceKind string

const (
	// SecretReferencedResourceKind references a Secret.
	SecretReferencedResourceKind = ReferencedResourceKind("Secret")

	// ConfigMapReferencedResourceKind references a ConfigMap.
	ConfigMapReferencedResourceKind = ReferencedResourceKind("ConfigMap")
)

// PolicyRef points at a ConfigMap or Secret in the management cluster.
type PolicyRef struct {
	// Namespace of the referenced object. An empty value means the namespace of the cluster the
	// reference is evaluated for.
	Namespace string `json:"namespace"`

	// Name of the referenced object.
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`

	// Kind of the referenced object.
	Kind ReferencedResourceKind `json:"kind"`
}
