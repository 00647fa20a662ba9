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

// ClusterProfileKind is the kind of ClusterProfile.
const ClusterProfileKind = "ClusterProfile"

// Clusters is a set of clusters, with the hash of the profile spec it was computed for.
type Clusters struct {
	// Hash is the hash of the profile spec these clusters are being (or were) updated to.
	// +optional
	Hash []byte `json:"hash,omitempty"`

	// Clusters are the clusters.
	// +optional
	Clusters []corev1.ObjectReference `json:"clusters,omitempty"`
}

// ProfileClusterCounts counts the clusters of a profile's status lists.
type ProfileClusterCounts struct {
	// Matching is the number of clusters the profile targets.
	Matching int32 `json:"matching"`

	// Updating is the number of clusters being updated to the current spec.
	Updating int32 `json:"updating"`

	// Updated is the number of clusters running the current spec during a rollout.
	Updated int32 `json:"updated"`

	// Failed is the number of clusters in failedClusters.
	Failed int32 `json:"failed"`
}

// FailedCluster is a cluster a profile could not be deployed to.
type FailedCluster struct {
	// ClusterRef is the cluster.
	ClusterRef corev1.ObjectReference `json:"clusterRef"`

	// FailureMessage says what went wrong.
	FailureMessage string `json:"failureMessage"`

	// LastFailureTime is when it last went wrong.
	// +optional
	LastFailureTime *metav1.Time `json:"lastFailureTime,omitempty"`
}

// Status reports which clusters a profile matches and how far its rollout has got.
type Status struct {
	// MatchingClusterRefs are the clusters the profile currently targets. Past 500 clusters,
	// only the first 500 (by namespace and name) are listed, and clusterCounts counts them all.
	// +optional
	MatchingClusterRefs []corev1.ObjectReference `json:"matchingClusters,omitempty"`

	// ClusterCounts counts the clusters of matchingClusters, updatingClusters, updatedClusters
	// and failedClusters. It is set only when one of those lists has more clusters than it may
	// list (500 by default) and lists the first ones only; the ClusterSummaries labelled
	// projectsveltos.io/cluster-profile-name=<profile> are there for every cluster. A Stagecoach
	// extension.
	// +optional
	ClusterCounts *ProfileClusterCounts `json:"clusterCounts,omitempty"`

	// UpdatingClusters are the clusters being updated to the current spec. With maxUpdate set,
	// at most that many are listed.
	// +optional
	UpdatingClusters Clusters `json:"updatingClusters,omitempty"`

	// UpdatedClusters are the clusters already running the current spec with their health
	// checks passed.
	// +optional
	UpdatedClusters Clusters `json:"updatedClusters,omitempty"`

	// FailedClusters are clusters whose deployment failed.
	// +optional
	FailedClusters []FailedCluster `json:"failedClusters,omitempty"`

	// DependenciesHash is the hash of the profiles listed in dependsOn, as last seen.
	// +optional
	DependenciesHash []byte `json:"dependenciesHash,omitempty"`

	// ReconciliationSuspended is true while the profile is paused.
	// +optional
	ReconciliationSuspended bool `json:"reconciliationSuspended,omitempty"`

	// SuspensionReason says why reconciliation is suspended.
	// +optional
	SuspensionReason *string `json:"suspensionReason,omitempty"`

	// ObservedGeneration is the generation of the spec matchingClusters and the rollout lists
	// were computed for. Until it equals metadata.generation they may describe an earlier spec.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions are the standard conditions, a Stagecoach extension: Ready (every matching
	// cluster runs the current spec, deployed and healthy) and Stalled (the spec cannot be rolled
	// out as written; the message names the field). "kubectl wait --for=condition=Ready" works.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ObservedMatching is how many clusters the profile matched when its controller last wrote its
// status, counted or listed.
func (st *Status) ObservedMatching() int {
	if st.ClusterCounts != nil {
		return int(st.ClusterCounts.Matching)
	}
	return len(st.MatchingClusterRefs)
}

// Conditions of a ClusterProfile.
const (
	// ProfileReadyCondition is True once every matching cluster runs the current spec, deployed
	// and healthy.
	ProfileReadyCondition = "Ready"
	// ProfileStalledCondition is True while the spec cannot be rolled out as written.
	ProfileStalledCondition = "Stalled"
)

// ClusterProfile deploys Helm charts, manifests and kustomizations to every cluster its
// selector matches. The controller keeps one ClusterSummary per matching cluster, in the
// cluster's namespace, recording what was deployed there.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=clusterprofiles,scope=Cluster
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
type ClusterProfile struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is what to deploy, where and how.
	// +optional
	Spec Spec `json:"spec,omitempty"`

	// Status reports the clusters matched and the rollout's progress.
	// +optional
	Status Status `json:"status,omitempty"`
}

// ClusterProfileList is a list of ClusterProfiles.
//
// +kubebuilder:object:root=true
type ClusterProfileList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterProfile `json:"items"`
}
