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
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// SyncMode says how a profile's content is kept in sync with its clusters.
// +kubebuilder:validation:Enum:=OneTime;Continuous;ContinuousWithDriftDetection;DryRun
type SyncMode string

const (
	// SyncModeOneTime deploys once; later changes to the profile are not propagated.
	SyncModeOneTime = SyncMode("OneTime")

	// SyncModeContinuous redeploys whenever the profile or what it references changes.
	SyncModeContinuous = SyncMode("Continuous")

	// SyncModeContinuousWithDriftDetection is Continuous and also repairs changes made directly
	// in the managed clusters.
	SyncModeContinuousWithDriftDetection = SyncMode("ContinuousWithDriftDetection")

	// SyncModeDryRun reports what would change without changing anything.
	SyncModeDryRun = SyncMode("DryRun")
)

// StopMatchingBehavior says what happens to deployed content when a cluster stops matching a
// profile, or the profile is deleted.
// +kubebuilder:validation:Enum:=WithdrawPolicies;LeavePolicies
type StopMatchingBehavior string

const (
	// WithdrawPolicies removes the content from the cluster.
	WithdrawPolicies = StopMatchingBehavior("WithdrawPolicies")

	// LeavePolicies leaves the content in place, no longer managed.
	LeavePolicies = StopMatchingBehavior("LeavePolicies")
)

// DeploymentType says which cluster referenced content is deployed to.
// +kubebuilder:validation:Enum:=Local;Remote
type DeploymentType string

const (
	// DeploymentTypeLocal deploys to the management cluster.
	DeploymentTypeLocal = DeploymentType("Local")

	// DeploymentTypeRemote deploys to the managed cluster.
	DeploymentTypeRemote = DeploymentType("Remote")
)

// ValueFrom points at a ConfigMap or Secret in the management cluster whose data is used as
// Helm values, kustomize values or patches.
type ValueFrom struct {
	// Namespace of the referenced object. Empty means the namespace of the cluster being
	// deployed to. May be a Go template.
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// Name of the referenced object. May be a Go template, e.g.
	// "{{ .Cluster.metadata.name }}-values".
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`

	// Kind of the referenced object.
	// +kubebuilder:validation:Enum=ConfigMap;Secret
	Kind string `json:"kind"`

	// Optional makes a missing object count as empty instead of an error.
	// +kubebuilder:default:=false
	// +optional
	Optional bool `json:"optional,omitempty"`
}

// TemplateResourceRef makes an object of the management cluster available to templates under
// an identifier.
type TemplateResourceRef struct {
	// Resource is the object to read. Its namespace and name may be Go templates; an empty
	// namespace means the cluster's namespace.
	Resource corev1.ObjectReference `json:"resource"`

	// Identifier is the name templates use to refer to the object.
	Identifier string `json:"identifier"`

	// Optional makes a missing object count as absent instead of an error.
	// +kubebuilder:default:=false
	// +optional
	Optional bool `json:"optional,omitempty"`

	// IgnoreStatusChanges makes changes to the object's status not trigger a redeployment.
	// +kubebuilder:default:=false
	// +optional
	IgnoreStatusChanges bool `json:"ignoreStatusChanges,omitempty"`

	// WatchFields limits the fields whose changes trigger a redeployment (JSON paths). Empty
	// means any change.
	// +optional
	WatchFields []string `json:"watchFields,omitempty"`
}

// Spec is the configuration of a ClusterProfile: which clusters it targets, what it deploys to
// them, and how. A ClusterPromotion's profileSpec holds the same fields except the cluster
// selection ones and the deprecated extraLabels and extraAnnotations.
type Spec struct {
	// ClusterSelector picks the clusters to deploy to by their labels. Only ready clusters are
	// matched. An empty selector matches no cluster.
	// +optional
	ClusterSelector libv1beta1.Selector `json:"clusterSelector,omitempty"`

	// ClusterRefs names clusters to deploy to, in addition to those the selector matches.
	// +optional
	ClusterRefs []corev1.ObjectReference `json:"clusterRefs,omitempty"`

	// SetRefs names ClusterSets whose selected clusters are deployed to.
	// +optional
	SetRefs []string `json:"setRefs,omitempty"`

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

	// ExtraLabels are added to every object deployed. Deprecated: use patches.
	// +optional
	ExtraLabels map[string]string `json:"extraLabels,omitempty"`

	// ExtraAnnotations are added to every object deployed. Deprecated: use patches.
	// +optional
	ExtraAnnotations map[string]string `json:"extraAnnotations,omitempty"`
}

// FeaturesWithContent lists the features a spec deploys something with, in deployment order.
func (s *Spec) FeaturesWithContent() []libv1beta1.FeatureID {
	var ids []libv1beta1.FeatureID
	if len(s.HelmCharts) > 0 {
		ids = append(ids, libv1beta1.FeatureHelm)
	}
	if len(s.PolicyRefs) > 0 {
		ids = append(ids, libv1beta1.FeatureResources)
	}
	if len(s.KustomizationRefs) > 0 {
		ids = append(ids, libv1beta1.FeatureKustomize)
	}
	return ids
}

// Selects reports whether the profile's own clusterSelector or clusterRefs pick the cluster,
// whether or not it is being deleted (profiles depending on it aside).
func (s *Spec) Selects(cl *libv1beta1.SveltosCluster) bool {
	if !s.ClusterSelector.IsEmpty() {
		if sel, err := s.ClusterSelector.ToSelector(); err == nil && sel.Matches(labels.Set(cl.Labels)) {
			return true
		}
	}
	return slices.ContainsFunc(s.ClusterRefs, func(ref corev1.ObjectReference) bool {
		return (ref.Kind == "" || ref.Kind == libv1beta1.SveltosClusterKind) && ref.Namespace == cl.Namespace && ref.Name == cl.Name
	})
}
