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

// HelmChartAction says whether a release is installed or removed.
// +kubebuilder:validation:Enum:=Install;Uninstall
type HelmChartAction string

const (
	// HelmChartActionInstall installs or upgrades the release.
	HelmChartActionInstall = HelmChartAction("Install")

	// HelmChartActionUninstall removes the release.
	HelmChartActionUninstall = HelmChartAction("Uninstall")
)

// HelmChart is one Helm release to deploy.
//
// repositoryURL is an http(s):// chart repository, an oci:// registry, or a Flux source written
// "<gitrepository|ocirepository|bucket>://<namespace>/<name>/<path to chart>". For http(s) and
// oci repositories chartName, chartVersion and repositoryName are required.
//
// +kubebuilder:validation:XValidation:rule="!(self.repositoryURL.startsWith('http') || self.repositoryURL.startsWith('oci')) || (has(self.chartName) && size(self.chartName) > 0)",message="chartName is required when repositoryURL is an http(s) or oci repository"
// +kubebuilder:validation:XValidation:rule="!(self.repositoryURL.startsWith('http') || self.repositoryURL.startsWith('oci')) || (has(self.chartVersion) && size(self.chartVersion) > 0)",message="chartVersion is required when repositoryURL is an http(s) or oci repository"
// +kubebuilder:validation:XValidation:rule="!(self.repositoryURL.startsWith('http') || self.repositoryURL.startsWith('oci')) || (has(self.repositoryName) && size(self.repositoryName) > 0)",message="repositoryName is required when repositoryURL is an http(s) or oci repository"
type HelmChart struct {
	// RepositoryURL is where the chart comes from.
	// +kubebuilder:validation:MinLength=1
	RepositoryURL string `json:"repositoryURL"`

	// RepositoryName is the local name of the chart repository.
	// +optional
	RepositoryName string `json:"repositoryName,omitempty"`

	// ChartName is the chart, as "<repositoryName>/<chart>" for http(s) repositories.
	// +optional
	ChartName string `json:"chartName,omitempty"`

	// ChartVersion is the chart version to deploy.
	// +optional
	ChartVersion string `json:"chartVersion,omitempty"`

	// ReleaseName is the name of the Helm release.
	// +kubebuilder:validation:MinLength=1
	ReleaseName string `json:"releaseName"`

	// ReleaseNamespace is the namespace of the Helm release.
	// +kubebuilder:validation:MinLength=1
	ReleaseNamespace string `json:"releaseNamespace"`

	// Values is YAML for the release's values. It may be a Go template, instantiated per
	// cluster.
	// +optional
	Values string `json:"values,omitempty"`

	// ValuesFrom reads further values from ConfigMaps or Secrets; they are merged after values.
	// +optional
	ValuesFrom []ValueFrom `json:"valuesFrom,omitempty"`

	// HelmChartAction says whether the release is installed or removed.
	// +kubebuilder:default:=Install
	// +optional
	HelmChartAction HelmChartAction `json:"helmChartAction,omitempty"`

	// Options tune the Helm operations.
	// +optional
	Options *HelmOptions `json:"options,omitempty"`

	// RegistryCredentialsConfig authenticates to the chart repository or registry.
	// +optional
	RegistryCredentialsConfig *RegistryCredentialsConfig `json:"registryCredentialsConfig,omitempty"`

	// SignatureVerification requires a valid cosign signature on an OCI chart.
	// +optional
	SignatureVerification *CosignVerification `json:"signatureVerification,omitempty"`

	// ProvenanceVerification requires a valid provenance file for a chart from an http(s)
	// repository.
	// +optional
	ProvenanceVerification *ProvenanceVerification `json:"provenanceVerification,omitempty"`
}

// PostRenderStrategy says how post-renderers (patches) treat Helm hooks.
// +kubebuilder:validation:Enum:=combined;separate;nohooks
type PostRenderStrategy string

const (
	// PostRenderCombined patches hooks and ordinary manifests together.
	PostRenderCombined = PostRenderStrategy("combined")

	// PostRenderSeparate patches hooks and ordinary manifests in separate passes.
	PostRenderSeparate = PostRenderStrategy("separate")

	// PostRenderNoHooks patches ordinary manifests only and leaves hooks untouched.
	PostRenderNoHooks = PostRenderStrategy("nohooks")
)

// HelmOptions tune Helm install, upgrade and uninstall.
type HelmOptions struct {
	// SkipCRDs does not install the chart's CRDs.
	// +kubebuilder:default:=false
	// +optional
	SkipCRDs bool `json:"skipCRDs,omitempty"`

	// SkipSchemaValidation does not validate values against the chart's JSON schema.
	// +kubebuilder:default:=false
	// +optional
	SkipSchemaValidation bool `json:"skipSchemaValidation,omitempty"`

	// Wait waits until the release's workloads are ready before it counts as deployed.
	// +kubebuilder:default:=false
	// +optional
	Wait bool `json:"wait,omitempty"`

	// WaitForJobs, with wait, also waits for the release's Jobs to complete.
	// +kubebuilder:default:=false
	// +optional
	WaitForJobs bool `json:"waitForJobs,omitempty"`

	// Timeout bounds each Kubernetes operation, such as waiting for hooks. Helm's default is 5m.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"`

	// DisableHooks skips the chart's hooks.
	// +kubebuilder:default:=false
	// +optional
	DisableHooks bool `json:"disableHooks,omitempty"`

	// DisableOpenAPIValidation does not validate rendered manifests against the cluster's
	// OpenAPI schema.
	// +kubebuilder:default:=false
	// +optional
	DisableOpenAPIValidation bool `json:"disableOpenAPIValidation,omitempty"`

	// Atomic rolls a failed install or upgrade back (and implies wait).
	// +kubebuilder:default:=false
	// +optional
	Atomic bool `json:"atomic,omitempty"`

	// DependencyUpdate fetches missing chart dependencies before installing.
	// +kubebuilder:default:=false
	// +optional
	DependencyUpdate bool `json:"dependencyUpdate,omitempty"`

	// Labels are added to the release's metadata.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// EnableClientCache caches the cluster's discovery information between operations.
	// +kubebuilder:default:=false
	// +optional
	EnableClientCache bool `json:"enableClientCache,omitempty"`

	// Description is recorded with the release.
	// +optional
	Description string `json:"description,omitempty"`

	// PassCredentialsAll sends repository credentials to every domain, not only the
	// repository's.
	// +optional
	PassCredentialsAll bool `json:"passCredentialsAll,omitempty"`

	// RunTests runs the chart's tests after each install or upgrade; a failing test fails the
	// deployment.
	// +kubebuilder:default:=false
	// +optional
	RunTests bool `json:"runTests,omitempty"`

	// PostRenderStrategy says how patches treat hooks.
	// +optional
	PostRenderStrategy PostRenderStrategy `json:"postRenderStrategy,omitempty"`

	// InstallOptions apply to installs only.
	// +optional
	InstallOptions HelmInstallOptions `json:"installOptions,omitempty"`

	// UpgradeOptions apply to upgrades only.
	// +optional
	UpgradeOptions HelmUpgradeOptions `json:"upgradeOptions,omitempty"`

	// UninstallOptions apply to uninstalls only.
	// +optional
	UninstallOptions HelmUninstallOptions `json:"uninstallOptions,omitempty"`
}

// HelmInstallOptions tune helm install.
type HelmInstallOptions struct {
	// CreateNamespace creates the release namespace when it is missing.
	// +kubebuilder:default:=true
	// +optional
	CreateNamespace *bool `json:"createNamespace,omitempty"`

	// Replace reuses the name of a deleted or failed release.
	// +kubebuilder:default:=true
	// +optional
	Replace *bool `json:"replace,omitempty"`

	// DisableHooks skips hooks on install, whatever options.disableHooks says.
	// +kubebuilder:default:=false
	// +optional
	DisableHooks bool `json:"disableHooks,omitempty"`

	// TakeOwnership adopts existing objects that the chart would create.
	// +kubebuilder:default:=false
	// +optional
	TakeOwnership bool `json:"takeOwnership,omitempty"`

	// RecoverAfterConsecutiveFailures uninstalls and reinstalls a release whose install failed
	// this many times in a row.
	// +kubebuilder:default:=5
	// +optional
	RecoverAfterConsecutiveFailures int `json:"recoverAfterConsecutiveFailures,omitempty"`
}

// HelmUpgradeOptions tune helm upgrade.
type HelmUpgradeOptions struct {
	// Force replaces objects that cannot be patched.
	// +kubebuilder:default:=false
	// +optional
	Force bool `json:"force,omitempty"`

	// ResetValues discards the previous release's values and uses the chart's defaults.
	// +kubebuilder:default:=false
	// +optional
	ResetValues bool `json:"resetValues,omitempty"`

	// ReuseValues keeps the previous release's values when none are given.
	// +kubebuilder:default:=false
	// +optional
	ReuseValues bool `json:"reuseValues,omitempty"`

	// ResetThenReuseValues starts from the chart's defaults and merges the previous release's
	// values.
	// +kubebuilder:default:=false
	// +optional
	ResetThenReuseValues bool `json:"resetThenReuseValues,omitempty"`

	// Recreate recreates pods on rollback. Deprecated by Helm.
	// +kubebuilder:default:=false
	// +optional
	Recreate bool `json:"recreate,omitempty"`

	// MaxHistory is the number of release revisions kept.
	// +kubebuilder:default:=2
	// +optional
	MaxHistory int `json:"maxHistory,omitempty"`

	// CleanupOnFail deletes objects created by a failed upgrade.
	// +kubebuilder:default:=false
	// +optional
	CleanupOnFail bool `json:"cleanupOnFail,omitempty"`

	// SubNotes renders the notes of subcharts.
	// +kubebuilder:default:=false
	// +optional
	SubNotes bool `json:"subNotes,omitempty"`

	// UpgradeCRDs upgrades the chart's CRDs too (Helm leaves them alone by default).
	// +kubebuilder:default:=false
	// +optional
	UpgradeCRDs bool `json:"upgradeCRDs,omitempty"`

	// DisableHooks skips hooks on upgrade, whatever options.disableHooks says.
	// +kubebuilder:default:=false
	// +optional
	DisableHooks bool `json:"disableHooks,omitempty"`

	// TakeOwnership adopts existing objects that the chart would create.
	// +kubebuilder:default:=false
	// +optional
	TakeOwnership bool `json:"takeOwnership,omitempty"`
}

// HelmUninstallOptions tune helm uninstall.
type HelmUninstallOptions struct {
	// KeepHistory keeps the release record after uninstalling.
	// +optional
	KeepHistory bool `json:"keepHistory,omitempty"`

	// DeletionPropagation is the propagation policy used when deleting the release's objects.
	// +kubebuilder:validation:Enum:=orphan;foreground;background
	// +optional
	DeletionPropagation string `json:"deletionPropagation,omitempty"`

	// DisableHooks skips hooks on uninstall, whatever options.disableHooks says.
	// +kubebuilder:default:=false
	// +optional
	DisableHooks bool `json:"disableHooks,omitempty"`
}

// RegistryCredentialsConfig authenticates to a chart repository or OCI registry.
type RegistryCredentialsConfig struct {
	// CredentialsSecretRef names a Secret holding the credentials (a docker config, or
	// username and password keys).
	// +optional
	CredentialsSecretRef *corev1.SecretReference `json:"credentials,omitempty"`

	// Key is the key of that Secret holding the credentials, when it has several.
	// +optional
	Key string `json:"key,omitempty"`

	// CASecretRef names a Secret holding the CA bundle of the repository ("ca.crt").
	// +optional
	CASecretRef *corev1.SecretReference `json:"ca,omitempty"`

	// InsecureSkipTLSVerify does not verify the repository's TLS certificate.
	// +optional
	InsecureSkipTLSVerify bool `json:"insecureSkipTLSVerify,omitempty"`

	// PlainHTTP talks to the registry over plain HTTP.
	// +optional
	PlainHTTP bool `json:"plainHTTP,omitempty"`
}

// CosignProvider is how a cosign signature is verified.
// +kubebuilder:validation:Enum:=PublicKey;Keyless
type CosignProvider string

const (
	// CosignProviderPublicKey verifies against a public key held in a Secret.
	CosignProviderPublicKey = CosignProvider("PublicKey")

	// CosignProviderKeyless verifies a keyless (Fulcio certificate, Rekor log) signature.
	CosignProviderKeyless = CosignProvider("Keyless")
)

// CosignVerification requires a valid cosign signature on an OCI chart.
type CosignVerification struct {
	// Provider is how the signature is verified: with a public key, or keyless (Fulcio/Rekor).
	Provider CosignProvider `json:"provider"`

	// SecretRef names a Secret holding the public key under "cosign.pub" (PublicKey).
	// +optional
	SecretRef *corev1.SecretReference `json:"secretRef,omitempty"`

	// MatchOIDCIdentity lists identities accepted for keyless signatures; one must match.
	// +optional
	MatchOIDCIdentity []OIDCIdentityMatcher `json:"matchOIDCIdentity,omitempty"`
}

// OIDCIdentityMatcher matches the identity in a keyless signing certificate. Both fields are
// regular expressions.
type OIDCIdentityMatcher struct {
	// Issuer matches the OIDC issuer.
	// +kubebuilder:validation:MinLength=1
	Issuer string `json:"issuer"`

	// Subject matches the certificate subject.
	// +kubebuilder:validation:MinLength=1
	Subject string `json:"subject"`
}

// ProvenanceVerification requires a valid Helm provenance file for the chart.
type ProvenanceVerification struct {
	// KeyringSecretRef names a Secret holding the public keyring under "keyring.gpg".
	KeyringSecretRef corev1.SecretReference `json:"keyringSecretRef"`
}
