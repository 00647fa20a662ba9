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

// ProfileKind is the kind of Profile.
const ProfileKind = "Profile"

// Profile is the namespaced twin of ClusterProfile: the same spec and status, for a tenant that
// owns a namespace. It targets only the SveltosClusters of its own namespace, reads the
// ConfigMaps and Secrets it refers to only from its own namespace, and depends only on Profiles
// of its own namespace. Its ClusterSummaries are named "p--<profile>-sveltos-<cluster>" and
// labelled projectsveltos.io/profile-name=<profile>.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=profiles,scope=Namespaced
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
type Profile struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is what to deploy, where and how. Every namespace it names is the Profile's own:
	// a reference that names another namespace is read from the Profile's namespace instead.
	// +optional
	Spec Spec `json:"spec,omitempty"`

	// Status reports the clusters matched and the rollout's progress.
	// +optional
	Status Status `json:"status,omitempty"`
}

// ProfileList is a list of Profiles.
//
// +kubebuilder:object:root=true
type ProfileList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Profile `json:"items"`
}
