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
	"k8s.io/apimachinery/pkg/util/intstr"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// ProfileSpec is the configuration a ClusterPromotion deploys at every stage. It has exactly
// the fields of a ClusterProfile's Spec, with the same types, defaults and validation, except
// those a stage provides or that are deprecated: clusterSelector, clusterRefs, setRefs,
// extraLabels and extraAnnotations. A test keeps the two in step.
type ProfileSpec struct {
	// SyncMode says how the content is kept in sync.
	// +kubebuilder:default:=Continuous
	// +optional
	SyncMode SyncMode `json:"syncMode,omitempty"`

	// Tier settles conflicts when two profiles deploy the same object: the lower tier wins.
	// +kubebuilder:default:=100
	// +kubebuilder:validation:Minimum=1
	// +optional
	Tier int32 `json:"tier,omitempty"`

	// ContinueOnConflict deploys the remaining objects after one conflicts with another
	// profile, instead of stopping at the first conflict.
	// +kubebuilder:default:=false
	// +optional
	ContinueOnConflict bool `json:"continueOnConflict,omitempty"`

	// ContinueOnError deploys the remaining objects after one fails, instead of stopping at the
	// first error.
	// +kubebuilder:default:=false
	// +optional
	ContinueOnError bool `json:"continueOnError,omitempty"`

	// MaxUpdate limits how many matching clusters are updated at the same time: a number
	// (e.g. 3) or a percentage of the matching clusters, rounded up (e.g. "30%"). A cluster
	// counts as updated once its content is deployed and its health checks pass. Unset or 0
	// means no limit.
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:Pattern="^((100|[0-9]{1,2})%|[0-9]+)$"
	// +optional
	MaxUpdate *intstr.IntOrString `json:"maxUpdate,omitempty"`

	// StopMatchingBehavior says what happens to deployed content when a cluster stops matching
	// or the profile is deleted.
	// +kubebuilder:default:=WithdrawPolicies
	// +optional
	StopMatchingBehavior StopMatchingBehavior `json:"stopMatchingBehavior,omitempty"`

	// Reloader restarts Deployments, StatefulSets and DaemonSets deployed by the profile when a
	// ConfigMap or Secret they mount changes.
	// +kubebuilder:default:=false
	// +optional
	Reloader bool `json:"reloader,omitempty"`

	// TemplateResourceRefs makes management-cluster objects available to templates.
	// +listType=map
	// +listMapKey=identifier
	// +patchMergeKey=identifier
	// +patchStrategy=merge
	// +optional
	TemplateResourceRefs []TemplateResourceRef `json:"templateResourceRefs,omitempty" patchStrategy:"merge" patchMergeKey:"identifier"`

	// DependsOn names other ClusterProfiles whose content must be deployed to a cluster before
	// this one's is.
	// +optional
	DependsOn []string `json:"dependsOn,omitempty"`

	// PolicyRefs lists ConfigMaps, Secrets and sources whose content is deployed (feature
	// Resources).
	// +listType=atomic
	// +kubebuilder:validation:items:XValidation:rule="has(self.remoteURL) != has(self.kind)",message="a policy reference needs exactly one of kind (with name) or remoteURL: set one and remove the other"
	// +optional
	PolicyRefs []PolicyRef `json:"policyRefs,omitempty"`

	// HelmCharts lists the Helm releases to deploy, in order (feature Helm).
	// +listType=atomic
	// +optional
	HelmCharts []HelmChart `json:"helmCharts,omitempty"`

	// KustomizationRefs lists kustomizations whose output is deployed (feature Kustomize).
	// +listType=atomic
	// +optional
	KustomizationRefs []KustomizationRef `json:"kustomizationRefs,omitempty"`

	// PreDeployChecks must pass before each feature is deployed to a cluster.
	// +listType=atomic
	// +optional
	PreDeployChecks []libv1beta1.ValidateHealth `json:"preDeployChecks,omitempty"`

	// ValidateHealths must pass after a feature is deployed to a cluster before that cluster
	// counts as updated.
	// +listType=atomic
	// +optional
	ValidateHealths []libv1beta1.ValidateHealth `json:"validateHealths,omitempty"`

	// Patches change objects before they are deployed.
	// +listType=atomic
	// +optional
	Patches []libv1beta1.Patch `json:"patches,omitempty"`

	// PatchesFrom reads further patches from ConfigMaps or Secrets (one patch per data key).
	// +listType=atomic
	// +optional
	PatchesFrom []ValueFrom `json:"patchesFrom,omitempty"`

	// DriftExclusions lists fields ignored by drift detection.
	// +listType=atomic
	// +optional
	DriftExclusions []libv1beta1.DriftExclusion `json:"driftExclusions,omitempty"`

	// MaxConsecutiveFailures stops retrying a cluster after this many failed deployments in a
	// row; the feature is then FailedNonRetriable until the profile changes. Unset means retry
	// forever.
	// +optional
	MaxConsecutiveFailures *uint `json:"maxConsecutiveFailures,omitempty"`

	// PreDeleteChecks must pass before content is withdrawn from a cluster.
	// +listType=atomic
	// +optional
	PreDeleteChecks []libv1beta1.ValidateHealth `json:"preDeleteChecks,omitempty"`

	// PostDeleteChecks must pass after content is withdrawn from a cluster.
	// +listType=atomic
	// +optional
	PostDeleteChecks []libv1beta1.ValidateHealth `json:"postDeleteChecks,omitempty"`
}

// ToSpec returns the ClusterProfile spec for one stage: every field of p, with the stage's
// cluster selector. Slices and maps are shared with p, not copied.
func (p *ProfileSpec) ToSpec(clusterSelector libv1beta1.Selector) Spec {
	return Spec{
		ClusterSelector:        clusterSelector,
		SyncMode:               p.SyncMode,
		Tier:                   p.Tier,
		ContinueOnConflict:     p.ContinueOnConflict,
		ContinueOnError:        p.ContinueOnError,
		MaxUpdate:              p.MaxUpdate,
		StopMatchingBehavior:   p.StopMatchingBehavior,
		Reloader:               p.Reloader,
		TemplateResourceRefs:   p.TemplateResourceRefs,
		DependsOn:              p.DependsOn,
		PolicyRefs:             p.PolicyRefs,
		HelmCharts:             p.HelmCharts,
		KustomizationRefs:      p.KustomizationRefs,
		PreDeployChecks:        p.PreDeployChecks,
		ValidateHealths:        p.ValidateHealths,
		Patches:                p.Patches,
		PatchesFrom:            p.PatchesFrom,
		DriftExclusions:        p.DriftExclusions,
		MaxConsecutiveFailures: p.MaxConsecutiveFailures,
		PreDeleteChecks:        p.PreDeleteChecks,
		PostDeleteChecks:       p.PostDeleteChecks,
	}
}
