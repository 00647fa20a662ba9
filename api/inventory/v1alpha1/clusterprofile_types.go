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

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced

// ClusterProfile describes one cluster of a multi-cluster inventory: who manages it, its
// Kubernetes version, its properties and whether its control plane is healthy.
type ClusterProfile struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec ClusterProfileSpec `json:"spec"`

	// +optional
	Status ClusterProfileStatus `json:"status,omitempty"`
}

// ClusterProfileSpec names the cluster manager that owns the profile.
type ClusterProfileSpec struct {
	// DisplayName is a human-readable name of the cluster.
	// +optional
	DisplayName string `json:"displayName,omitempty"`

	// ClusterManager is the cluster manager that owns the profile.
	// +required
	ClusterManager ClusterManager `json:"clusterManager"`
}

// ClusterManager names a cluster manager. It cannot change.
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="ClusterManager is immutable"
type ClusterManager struct {
	// Name of the cluster manager.
	// +required
	Name string `json:"name"`
}

// ClusterProfileStatus is what the cluster manager observed of the cluster.
type ClusterProfileStatus struct {
	// Conditions, ControlPlaneHealthy among them.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions"`

	// Version is the cluster's version.
	// +optional
	Version ClusterVersion `json:"version,omitempty"`

	// Properties of the cluster, as name/value pairs.
	// +optional
	// +listType=map
	// +listMapKey=name
	Properties []Property `json:"properties,omitempty"`

	// CredentialProviders is the deprecated name of AccessProviders.
	// +optional
	// +listType=map
	// +listMapKey=name
	CredentialProviders []AccessProvider `json:"credentialProviders,omitempty"`

	// AccessProviders say how the cluster may be reached.
	// +optional
	// +listType=map
	// +listMapKey=name
	AccessProviders []AccessProvider `json:"accessProviders,omitempty"`
}

// AccessProvider is one way to reach the cluster: a provider's name and the cluster's
// connection details.
type AccessProvider struct {
	Name    string              `json:"name"`
	Cluster clientcmdv1.Cluster `json:"cluster,omitempty"`
}

// ClusterVersion is the cluster's version.
type ClusterVersion struct {
	// Kubernetes is the Kubernetes version of the cluster.
	// +optional
	Kubernetes string `json:"kubernetes,omitempty"`
}

// Property is one property of the cluster.
type Property struct {
	// Name of the property.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:MinLength=1
	// +required
	Name string `json:"name"`

	// Value of the property.
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:MinLength=1
	// +required
	Value string `json:"value"`

	// LastObservedTime is when the property was last observed on the cluster.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=date-time
	// +optional
	LastObservedTime metav1.Time `json:"lastObservedTime,omitempty"`
}

// +kubebuilder:object:root=true

// ClusterProfileList is a list of ClusterProfiles.
type ClusterProfileList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterProfile `json:"items"`
}

// ControlPlaneHealthyCondition is True when the cluster's control plane is healthy.
const ControlPlaneHealthyCondition = "ControlPlaneHealthy"

// ClusterManagerLabel carries the name of the cluster manager on every ClusterProfile it owns,
// so that readers can pick one manager's clusters.
const ClusterManagerLabel = "x-k8s.io/cluster-manager"
