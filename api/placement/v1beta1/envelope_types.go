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

// Envelope kinds. A placement selects an envelope like any other object; the binding controller
// places the objects it carries on the member cluster, never the envelope itself. The hub keeps
// the envelope only: what it carries takes no effect there.
const (
	ClusterResourceEnvelopeKind = "ClusterResourceEnvelope"
	ResourceEnvelopeKind        = "ResourceEnvelope"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,categories={fleet,fleet-placement}
// +kubebuilder:storageversion

// ClusterResourceEnvelope carries cluster-scoped objects to member clusters, for instance a
// webhook configuration that must not act on the hub.
type ClusterResourceEnvelope struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Data holds the carried objects, each under a key of its own (typically a file name).
	// Every object must be cluster-scoped: it has no metadata.namespace.
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:MinProperties=1
	// +kubebuilder:validation:MaxProperties=50
	Data map[string]runtime.RawExtension `json:"data"`
}

// +kubebuilder:object:root=true

// ClusterResourceEnvelopeList is a list of ClusterResourceEnvelopes.
type ClusterResourceEnvelopeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterResourceEnvelope `json:"items"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,categories={fleet,fleet-placement}
// +kubebuilder:storageversion

// ResourceEnvelope carries namespaced objects of its own namespace to member clusters, for
// instance a ResourceQuota that must not limit the hub.
type ResourceEnvelope struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Data holds the carried objects, each under a key of its own (typically a file name).
	// Every object must name the envelope's namespace in metadata.namespace.
	// +kubebuilder:validation:Required
	// +kubebuilder:validation:MinProperties=1
	// +kubebuilder:validation:MaxProperties=50
	Data map[string]runtime.RawExtension `json:"data"`
}

// +kubebuilder:object:root=true

// ResourceEnvelopeList is a list of ResourceEnvelopes.
type ResourceEnvelopeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ResourceEnvelope `json:"items"`
}

func init() {
	SchemeBuilder.Register(func(s *runtime.Scheme) error {
		s.AddKnownTypes(GroupVersion,
			&ClusterResourceEnvelope{}, &ClusterResourceEnvelopeList{},
			&ResourceEnvelope{}, &ResourceEnvelopeList{})
		return nil
	})
}

// IsEnvelopeKind reports whether group and kind name one of the envelope kinds.
func IsEnvelopeKind(group, kind string) bool {
	return group == GroupName && (kind == ClusterResourceEnvelopeKind || kind == ResourceEnvelopeKind)
}
