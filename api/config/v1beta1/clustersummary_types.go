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
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// ClusterSummaryKind is the kind of ClusterSummary.
const ClusterSummaryKind = "ClusterSummary"

// FeatureSummary is the deployment state of one feature of a profile in one cluster.
type FeatureSummary struct {
	// FeatureID is the feature.
	FeatureID libv1beta1.FeatureID `json:"featureID"`

	// Hash identifies the content last deployed (or being deployed); it changes whenever the
	// feature's configuration does.
	// +optional
	Hash []byte `json:"hash,omitempty"`

	// ConsecutiveFailures is the number of deployments in a row that failed.
	// +optional
	ConsecutiveFailures uint `json:"consecutiveFailures,omitempty"`

	// Status is the deployment state.
	// +optional
	Status libv1beta1.FeatureStatus `json:"status,omitempty"`

	// FailureReason classifies the last failure.
	// +optional
	FailureReason *string `json:"failureReason,omitempty"`

	// FailureMessage says what went wrong, in words a person can act on.
	// +optional
	FailureMessage *string `json:"failureMessage,omitempty"`

	// DeployedGroupVersionKind lists the kinds deployed ("Kind.version.group").
	// Deprecated: read status.deployedGVKs instead.
	// +optional
	DeployedGroupVersionKind []string `json:"deployedGroupVersionKind,omitempty"`

	// LastAppliedTime is when the feature was last deployed.
	// +optional
	LastAppliedTime *metav1.Time `json:"lastAppliedTime,omitempty"`

	// ResourceSummaryDeployed is true once the drift-detection record for the feature has been
	// placed in the cluster.
	// +optional
	ResourceSummaryDeployed *bool `json:"resourceSummaryDeployed,omitempty"`
}

// HelmChartStatus says whether a ClusterSummary manages a Helm release.
// +kubebuilder:validation:Enum:=Managing;Conflict
type HelmChartStatus string

const (
	// HelmChartStatusManaging means this ClusterSummary manages the release.
	HelmChartStatusManaging = HelmChartStatus("Managing")

	// HelmChartStatusConflict means another ClusterSummary manages a release with the same
	// name and namespace.
	HelmChartStatusConflict = HelmChartStatus("Conflict")
)

// HelmChartSummary is the state of one Helm release in one cluster.
type HelmChartSummary struct {
	// ReleaseName of the release.
	// +kubebuilder:validation:MinLength=1
	ReleaseName string `json:"releaseName"`

	// ReleaseNamespace of the release.
	// +kubebuilder:validation:MinLength=1
	ReleaseNamespace string `json:"releaseNamespace"`

	// Status says whether this ClusterSummary manages the release.
	Status HelmChartStatus `json:"status"`

	// ValuesHash identifies the values last deployed.
	// +optional
	ValuesHash []byte `json:"valuesHash,omitempty"`

	// PatchesHash identifies the patches last applied to the release.
	// +optional
	PatchesHash []byte `json:"patchesHash,omitempty"`

	// ConflictMessage names the ClusterSummary that manages the release instead.
	// +optional
	ConflictMessage string `json:"conflictMessage,omitempty"`

	// FailureMessage says why the last operation on the release failed.
	// +optional
	FailureMessage *string `json:"failureMessage,omitempty"`

	// ChartName of the deployed chart.
	// +optional
	ChartName string `json:"chartName,omitempty"`

	// RepositoryName of the deployed chart.
	// +optional
	RepositoryName string `json:"repositoryName,omitempty"`

	// RepoURL of the deployed chart.
	// +optional
	RepoURL string `json:"repoURL,omitempty"`

	// ChartVersion of the deployed chart.
	// +optional
	ChartVersion string `json:"chartVersion,omitempty"`

	// CredentialsSecretRef used to reach the repository.
	// +optional
	CredentialsSecretRef *corev1.SecretReference `json:"credentialsSecretRef,omitempty"`

	// LatestVersion is the newest chart version found in the repository.
	// +optional
	LatestVersion *string `json:"latestVersion,omitempty"`

	// LatestPatchVersion is the newest version with the same major and minor version.
	// +optional
	LatestPatchVersion *string `json:"latestPatchVersion,omitempty"`

	// LastCheckedTime is when the repository was last checked for new versions.
	// +optional
	LastCheckedTime *metav1.Time `json:"lastCheckedTime,omitempty"`

	// NeedsRedeploy is true when the release must be deployed again (for example after it was
	// changed outside Stagecoach).
	// +optional
	NeedsRedeploy bool `json:"needsRedeploy,omitempty"`
}

// ClusterSummarySpec is one profile applied to one cluster.
type ClusterSummarySpec struct {
	// ClusterNamespace is the namespace of the cluster.
	ClusterNamespace string `json:"clusterNamespace"`

	// ClusterName is the name of the cluster.
	ClusterName string `json:"clusterName"`

	// ClusterType is the API representing the cluster.
	ClusterType libv1beta1.ClusterType `json:"clusterType"`

	// ClusterProfileSpec is the spec of the profile, as deployed to this cluster.
	// +optional
	ClusterProfileSpec Spec `json:"clusterProfileSpec,omitempty"`

	// FrozenContent maps the ConfigMaps and Secrets the spec refers to ("ConfigMap
	// namespace/name") onto the immutable copies of their content this cluster deploys (in the
	// same namespace). A Stagecoach extension: a content edit reaches each cluster as a change of
	// this field, as maxUpdate allows.
	// +optional
	FrozenContent map[string]string `json:"frozenContent,omitempty"`
}

// ClusterSummaryStatus reports what is deployed to the cluster.
type ClusterSummaryStatus struct {
	// Dependencies says whether the profiles listed in dependsOn are deployed to the cluster.
	// +optional
	Dependencies *string `json:"dependencies,omitempty"`

	// FeatureSummaries is the deployment state of each feature.
	// +listType=map
	// +listMapKey=featureID
	// +optional
	FeatureSummaries []FeatureSummary `json:"featureSummaries,omitempty"`

	// DeployedGVKs lists, per feature, the kinds deployed to the cluster.
	// +listType=map
	// +listMapKey=featureID
	// +optional
	DeployedGVKs []libv1beta1.FeatureDeploymentInfo `json:"deployedGVKs,omitempty"`

	// HelmReleaseSummaries is the state of each Helm release.
	// +listType=atomic
	// +optional
	HelmReleaseSummaries []HelmChartSummary `json:"helmReleaseSummaries,omitempty"`

	// NextReconcileTime is the earliest time the ClusterSummary is worth reconciling again
	// (for example after a failed health check).
	// +optional
	NextReconcileTime *metav1.Time `json:"nextReconcileTime,omitempty"`

	// FailureMessage says what prevents deployment as a whole, if anything.
	// +optional
	FailureMessage *string `json:"failureMessage,omitempty"`

	// ReconciliationSuspended is true while deployment is suspended (profile or cluster paused).
	// +optional
	ReconciliationSuspended bool `json:"reconciliationSuspended,omitempty"`

	// SuspensionReason says why deployment is suspended.
	// +optional
	SuspensionReason *string `json:"suspensionReason,omitempty"`

	// ObservedGeneration is the generation of the spec the feature summaries describe. Until it
	// equals metadata.generation, the summaries may still describe an earlier spec.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// RetryToken is the token of the last stagecoach.dev/retry annotation acted on: its failed
	// features were then tried again. (A Stagecoach extension.)
	// +optional
	RetryToken string `json:"retryToken,omitempty"`
}

// ParseRetry splits a stagecoach.dev/retry value into its token and the cluster it names
// ("namespace/name"), if any.
func ParseRetry(v string) (token, cluster string) {
	token, cluster, _ = strings.Cut(strings.TrimSpace(v), " ")
	return token, strings.TrimSpace(cluster)
}

// RetryPending reports whether the summary carries a retry it has not acted on yet, for its
// cluster: until its controller resets its failed features, they are not counted as failed.
func (cs *ClusterSummary) RetryPending() bool {
	return cs.RetryNotTaken(cs.Annotations[RetryAnnotation])
}

// FormatRetry is the stagecoach.dev/retry value of token, for the cluster ("namespace/name")
// given, or for every failed cluster when cluster is empty; ParseRetry splits it.
func FormatRetry(token, cluster string) string {
	if cluster == "" {
		return token
	}
	return token + " " + cluster
}

// RetryNotTaken reports whether the retry value (a stagecoach.dev/retry annotation, on the
// summary or on its profile) concerns the summary's cluster and the summary has not acted on it.
func (cs *ClusterSummary) RetryNotTaken(value string) bool {
	token, cluster := ParseRetry(value)
	if token == "" || token == cs.Status.RetryToken {
		return false
	}
	return cluster == "" || cluster == cs.Spec.ClusterNamespace+"/"+cs.Spec.ClusterName
}

// FeatureStatus returns the deployment state of feature, or "" when it has none.
func (s *ClusterSummaryStatus) FeatureStatus(feature libv1beta1.FeatureID) libv1beta1.FeatureStatus {
	for i := range s.FeatureSummaries {
		if s.FeatureSummaries[i].FeatureID == feature {
			return s.FeatureSummaries[i].Status
		}
	}
	return ""
}

// ClusterSummaryName is the name of the ClusterSummary of a profile for a SveltosCluster, as
// Sveltos names it, so that existing ClusterSummaries are adopted.
func ClusterSummaryName(profile, cluster string) string {
	return profile + "-sveltos-" + cluster
}

// DryRunReportName is the ConfigMap, next to the ClusterSummary, holding what a DryRun profile
// would change on the cluster: `kubectl get configmap -n <cluster namespace> <name> -o yaml`.
func DryRunReportName(summary string) string { return summary + "-dryrun" }

// ClusterSummary records one ClusterProfile applied to one cluster. It lives in the cluster's
// namespace, is named "<profile>-<capi|sveltos>-<cluster>" and is written by the controller.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=clustersummaries,scope=Namespaced
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the ClusterSummary was created"
// +kubebuilder:printcolumn:name="HelmCharts",type="string",JSONPath=".status.featureSummaries[?(@.featureID==\"Helm\")].status",priority=2,description="Deployment state of the Helm charts"
// +kubebuilder:printcolumn:name="KustomizeRefs",type="string",JSONPath=".status.featureSummaries[?(@.featureID==\"Kustomize\")].status",priority=2,description="Deployment state of the kustomizations"
// +kubebuilder:printcolumn:name="PolicyRefs",type="string",JSONPath=".status.featureSummaries[?(@.featureID==\"Resources\")].status",priority=2,description="Deployment state of the referenced resources"
type ClusterSummary struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the profile and the cluster.
	// +optional
	Spec ClusterSummarySpec `json:"spec,omitempty"`

	// Status reports what is deployed.
	// +optional
	Status ClusterSummaryStatus `json:"status,omitempty"`
}

// ClusterSummaryList is a list of ClusterSummaries.
//
// +kubebuilder:object:root=true
type ClusterSummaryList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterSummary `json:"items"`
}

// Provisioned reports whether a ClusterSummary's cluster runs its current spec: the status
// describes this generation and every feature with content is Provisioned. Status left from an
// earlier spec never counts.
func (cs *ClusterSummary) Provisioned() bool {
	if cs.Status.ObservedGeneration != cs.Generation {
		return false
	}
	for _, id := range cs.Spec.ClusterProfileSpec.FeaturesWithContent() {
		if cs.Status.FeatureStatus(id) != libv1beta1.FeatureStatusProvisioned {
			return false
		}
	}
	return true
}

// FailedForGood returns the failure of a feature that will not be retried on the current spec
// (FailedNonRetriable), as "<feature>: <message>"; empty when there is none.
func (cs *ClusterSummary) FailedForGood() string {
	return cs.failure(true)
}

// Failure returns why a ClusterSummary is not provisioned when something failed, as
// "<feature>: <message>": a deployment that failed (and may be retried), a health check that does
// not pass, or the summary's own failure (its cluster cannot be reached, say). It is empty when
// nothing failed, or when the status describes an earlier spec.
func (cs *ClusterSummary) Failure() string {
	if msg := cs.failure(false); msg != "" {
		return msg
	}
	if cs.Status.FailureMessage != nil {
		return *cs.Status.FailureMessage
	}
	return ""
}

func (cs *ClusterSummary) failure(forGood bool) string {
	if cs.Status.ObservedGeneration != cs.Generation || cs.RetryPending() {
		return ""
	}
	for _, f := range cs.Status.FeatureSummaries {
		if f.Status != libv1beta1.FeatureStatusFailedNonRetriable && (forGood || f.Status != libv1beta1.FeatureStatusFailed) {
			continue
		}
		msg := "failed"
		if f.FailureMessage != nil {
			msg = *f.FailureMessage
		}
		return string(f.FeatureID) + ": " + msg
	}
	return ""
}
