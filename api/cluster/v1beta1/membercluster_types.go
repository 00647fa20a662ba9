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
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KubeconfigSecretAnnotation names the Secret that holds the kubeconfig Stagecoach uses to reach a
// member cluster. Its value is "<namespace>/<name>" of a Secret in the hub (management) cluster; the
// kubeconfig is read from the Secret's KubeconfigSecretKey entry.
//
// Kubefleet members run an agent that pulls from the hub. Stagecoach pushes instead, so a
// MemberCluster without this annotation cannot be reached and is reported as not joined.
const KubeconfigSecretAnnotation = "stagecoach.dev/kubeconfig-secret"

// KubeconfigSecretKey is the data key, in the Secret named by KubeconfigSecretAnnotation, that holds
// the kubeconfig.
const KubeconfigSecretKey = "kubeconfig"

// MemberClusterFinalizer keeps a deleted MemberCluster until no placement targets it (see
// DeleteValidationModeStrict).
const MemberClusterFinalizer = "kubernetes-fleet.io/membercluster-finalizer"

// Well-known cluster properties reported in MemberClusterStatus.Properties.
const (
	// NodeCountProperty is the number of nodes in the member cluster.
	NodeCountProperty PropertyName = "kubernetes-fleet.io/node-count"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,categories={fleet,fleet-cluster},shortName=cluster
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="Joined")].status`,name="Joined",type=string
// +kubebuilder:printcolumn:JSONPath=`.metadata.creationTimestamp`,name="Age",type=date
// +kubebuilder:printcolumn:JSONPath=`.status.agentStatus[?(@.type=="MemberAgent")].lastReceivedHeartbeat`,name="Member-Agent-Last-Seen",type=date
// +kubebuilder:printcolumn:JSONPath=`.status.properties.kubernetes-fleet\.io/node-count.value`,name="Node-Count",type=string
// +kubebuilder:printcolumn:JSONPath=`.status.resourceUsage.available.cpu`,name="Available-CPU",type=string
// +kubebuilder:printcolumn:JSONPath=`.status.resourceUsage.available.memory`,name="Available-Memory",type=string
// +kubebuilder:printcolumn:JSONPath=`.status.resourceUsage.allocatable.cpu`,name="Allocatable-CPU",priority=1,type=string
// +kubebuilder:printcolumn:JSONPath=`.status.resourceUsage.allocatable.memory`,name="Allocatable-Memory",priority=1,type=string
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) < 64",message="metadata.name max length is 63"

// MemberCluster represents one Kubernetes cluster of the fleet in the hub cluster. Its labels are
// what placements and staged update strategies select clusters by.
type MemberCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec describes how the member cluster takes part in the fleet.
	// +required
	Spec MemberClusterSpec `json:"spec"`

	// Status is what the hub last observed about the member cluster.
	// +optional
	Status MemberClusterStatus `json:"status,omitempty"`
}

// MemberClusterSpec describes how a member cluster takes part in the fleet.
type MemberClusterSpec struct {
	// Identity is the subject the member cluster uses to reach the hub cluster. Kubefleet grants it
	// the permissions its member agent needs; Stagecoach, which pushes to members, keeps it for
	// compatibility and does not use it.
	// +required
	Identity rbacv1.Subject `json:"identity"`

	// HeartbeatPeriodSeconds is how often, in seconds, the member cluster is expected to report to
	// the hub. Between 1 and 600; 60 when unset. Stagecoach, which has no member agent, probes
	// the member at least this often (and every probe interval of the controller if that is
	// shorter).
	// +kubebuilder:default=60
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=600
	// +optional
	HeartbeatPeriodSeconds int32 `json:"heartbeatPeriodSeconds,omitempty"`

	// Taints keep placements off this cluster unless they tolerate them. Each taint must be unique.
	// +kubebuilder:validation:MaxItems=100
	// +kubebuilder:validation:XValidation:rule="self.all(t, self.filter(u, u == t).size() == 1)",message="taints must be unique: remove the repeated taint"
	// +listType=atomic
	// +optional
	Taints []Taint `json:"taints,omitempty"`

	// DeleteOptions tunes what happens when the MemberCluster is deleted.
	// +optional
	DeleteOptions *DeleteOptions `json:"deleteOptions,omitempty"`
}

// Taint marks a member cluster so that only placements tolerating it are scheduled onto it.
// +kubebuilder:validation:XValidation:rule="self.key.matches('^([a-zA-Z0-9]([a-zA-Z0-9._-]*[a-zA-Z0-9])?[/])?[a-zA-Z0-9]([a-zA-Z0-9._-]*[a-zA-Z0-9])?$')",message="taint key must be a qualified name such as example.com/dedicated"
// +kubebuilder:validation:XValidation:rule="!has(self.value) || size(self.value) == 0 || self.value.matches('^[a-zA-Z0-9]([a-zA-Z0-9._-]*[a-zA-Z0-9])?$')",message="taint value must be a valid label value: alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric"
type Taint struct {
	// Key is the taint key.
	// +kubebuilder:validation:MaxLength=317
	// +required
	Key string `json:"key"`

	// Value is the taint value; at most 63 characters.
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Value string `json:"value,omitempty"`

	// Effect is what the taint does to placements that do not tolerate it. Only NoSchedule exists.
	// +kubebuilder:validation:Enum=NoSchedule
	// +required
	Effect corev1.TaintEffect `json:"effect"`
}

// DeleteValidationMode says how strictly a MemberCluster deletion is checked.
// +enum
type DeleteValidationMode string

const (
	// DeleteValidationModeSkip deletes the MemberCluster at once; what was placed on the cluster
	// stays there.
	DeleteValidationModeSkip DeleteValidationMode = "Skip"

	// DeleteValidationModeStrict holds a deleted MemberCluster until no placement targets it: the
	// placements unschedule it and withdraw what they placed there first.
	DeleteValidationModeStrict DeleteValidationMode = "Strict"
)

// DeleteOptions tunes the deletion of a MemberCluster.
type DeleteOptions struct {
	// ValidationMode is Strict (the default) or Skip.
	// +kubebuilder:validation:Enum=Skip;Strict
	// +kubebuilder:default=Strict
	// +optional
	ValidationMode DeleteValidationMode `json:"validationMode,omitempty"`
}

// PropertyName names a cluster property; it has the form of a Kubernetes label name.
type PropertyName string

// K8sVersionProperty holds the member's Kubernetes version, as the API server reported it to
// Stagecoach's last successful probe (under the name Kubefleet's property provider gives it).
// It is no quantity: a propertySorter or property selector on it matches nothing.
const K8sVersionProperty PropertyName = "k8s.io/k8s-version"

// PropertyValue is one observed value of a cluster property.
type PropertyValue struct {
	// Value is the observed value, written as a Kubernetes quantity (for example "3" or "16Gi").
	// +required
	Value string `json:"value"`

	// ObservationTime is when the value was observed.
	// +required
	ObservationTime metav1.Time `json:"observationTime"`
}

// ResourceUsage sums the compute resources of all nodes of a member cluster.
type ResourceUsage struct {
	// Capacity is the total resources installed on the nodes.
	// +optional
	Capacity corev1.ResourceList `json:"capacity,omitempty"`

	// Allocatable is the part of Capacity that workloads may use, after what is reserved for the
	// operating system and the kubelet.
	// +optional
	Allocatable corev1.ResourceList `json:"allocatable,omitempty"`

	// Available is the part of Allocatable that no workload has requested yet.
	// +optional
	Available corev1.ResourceList `json:"available,omitempty"`

	// ObservationTime is when the usage was observed.
	// +optional
	ObservationTime metav1.Time `json:"observationTime,omitempty"`
}

// AgentType names a kind of agent that reports on a member cluster.
type AgentType string

const (
	// MemberAgent applies placed resources on the member cluster and reports their state. In push
	// mode Stagecoach reports under this agent type on the member's behalf.
	MemberAgent AgentType = "MemberAgent"

	// MultiClusterServiceAgent exposes multi-cluster services (Kubefleet networking).
	MultiClusterServiceAgent AgentType = "MultiClusterServiceAgent"

	// ServiceExportImportAgent exports and imports services (Kubefleet networking).
	ServiceExportImportAgent AgentType = "ServiceExportImportAgent"
)

// AgentConditionType names a condition reported in AgentStatus.
type AgentConditionType string

const (
	// AgentJoined is True when the agent has joined the fleet and False when it has left.
	AgentJoined AgentConditionType = "Joined"

	// AgentHealthy is True when the agent works as expected.
	AgentHealthy AgentConditionType = "Healthy"
)

// AgentStatus is what one agent last reported about the member cluster.
type AgentStatus struct {
	// Type is the kind of agent.
	// +required
	Type AgentType `json:"type"`

	// Conditions are the agent's observed conditions, such as Joined and Healthy.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// LastReceivedHeartbeat is when the hub last heard from the agent.
	// +optional
	LastReceivedHeartbeat metav1.Time `json:"lastReceivedHeartbeat,omitempty"`
}

// MemberClusterStatus is what the hub last observed about a member cluster.
type MemberClusterStatus struct {
	// Conditions are the observed conditions of the member cluster, such as Joined.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// Properties are observed properties of the member cluster, by name, such as its node count.
	// +optional
	Properties map[PropertyName]PropertyValue `json:"properties,omitempty"`

	// ResourceUsage sums the compute resources of the member cluster's nodes.
	// +optional
	ResourceUsage ResourceUsage `json:"resourceUsage,omitempty"`

	// AgentStatus lists what each agent reporting on the member cluster last said.
	// +optional
	AgentStatus []AgentStatus `json:"agentStatus,omitempty"`
}

// MemberClusterConditionType names a condition of a MemberCluster.
type MemberClusterConditionType string

const (
	// ConditionTypeMemberClusterReadyToJoin is True when the hub is ready for the member to join.
	ConditionTypeMemberClusterReadyToJoin MemberClusterConditionType = "ReadyToJoin"

	// ConditionTypeMemberClusterJoined is True when the member cluster has joined the fleet and can
	// receive resources, False when it has left, and Unknown while joining or leaving. In push mode
	// it reports whether the cluster's API server can be reached with the kubeconfig named by
	// KubeconfigSecretAnnotation; when it cannot, the message says why.
	ConditionTypeMemberClusterJoined MemberClusterConditionType = "Joined"

	// ConditionTypeMemberClusterHealthy reports the health of the member cluster.
	ConditionTypeMemberClusterHealthy MemberClusterConditionType = "Healthy"

	// ConditionTypeClusterPropertyProviderStarted reports whether the cluster property provider has
	// started.
	ConditionTypeClusterPropertyProviderStarted MemberClusterConditionType = "ClusterPropertyProviderStarted"

	// ConditionTypeClusterPropertyCollectionSucceeded reports whether the last collection of cluster
	// properties succeeded.
	ConditionTypeClusterPropertyCollectionSucceeded MemberClusterConditionType = "ClusterPropertyCollectionSucceeded"
)

// +kubebuilder:object:root=true

// MemberClusterList is a list of MemberClusters.
type MemberClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []MemberCluster `json:"items"`
}
