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

const (
	// SveltosClusterKind is the kind of SveltosCluster.
	SveltosClusterKind = "SveltosCluster"

	// KubeconfigSecretNameSuffix is appended to a SveltosCluster's name to form the name of the
	// Secret, in the same namespace, that holds its kubeconfig (unless spec.kubeconfigName says
	// otherwise).
	KubeconfigSecretNameSuffix = "-sveltos-kubeconfig"

	// ShardAnnotation assigns a cluster to a shard: only the controller replica serving that
	// shard manages it.
	ShardAnnotation = "sharding.projectsveltos.io/key"
)

// ConnectionStatus tells whether the management cluster can reach a managed cluster.
// +kubebuilder:validation:Enum:=Healthy;Down
type ConnectionStatus string

const (
	// ConnectionHealthy means the last connection attempts succeeded.
	ConnectionHealthy = ConnectionStatus("Healthy")

	// ConnectionDown means at least consecutiveFailureThreshold attempts in a row failed.
	ConnectionDown = ConnectionStatus("Down")
)

// ActiveWindow pauses and resumes a cluster on a recurring schedule. Both ends are cron
// expressions (five fields: minute hour day-of-month month day-of-week).
type ActiveWindow struct {
	// From is when the cluster is resumed and starts receiving updates again.
	// +kubebuilder:validation:MinLength=1
	From string `json:"from"`

	// To is when the cluster is paused and stops receiving updates.
	// +kubebuilder:validation:MinLength=1
	To string `json:"to"`
}

// ClusterCheck is a custom readiness or liveness check of a managed cluster.
type ClusterCheck struct {
	// Name of the check, unique among the cluster's checks.
	Name string `json:"name"`

	// ResourceSelectors choose the objects handed to the condition.
	ResourceSelectors []ResourceSelector `json:"resourceSelectors"`

	// Condition is a Lua program defining a function evaluate() that reads the selected objects
	// in the global resources (also its argument) and returns a table with a boolean "pass" and
	// an optional "message".
	Condition string `json:"condition"`
}

// TokenRequestRenewalOption makes the controller replace the token in the cluster's kubeconfig
// with a fresh ServiceAccount token before it expires.
type TokenRequestRenewalOption struct {
	// RenewTokenRequestInterval is how often a new token is requested.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`
	RenewTokenRequestInterval metav1.Duration `json:"renewTokenRequestInterval"`

	// TokenDuration is how long each token stays valid. It defaults to the renewal interval;
	// a longer duration keeps the cluster reachable if a renewal is missed.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`
	// +optional
	TokenDuration metav1.Duration `json:"tokenDuration,omitempty"`

	// SANamespace is the namespace, in the managed cluster, of the ServiceAccount the token is
	// requested for. Defaults to the one the current kubeconfig authenticates as.
	// +optional
	SANamespace string `json:"saNamespace,omitempty"`

	// SAName is the name of that ServiceAccount. Defaults to the one the current kubeconfig
	// authenticates as.
	// +optional
	SAName string `json:"saName,omitempty"`

	// KubeconfigKeyName is the key of the kubeconfig Secret the renewed kubeconfig is written
	// to. Stagecoach renews the kubeconfig in place, under the key it is read from (upstream
	// writes "re-kubeconfig" and switches spec.kubeconfigKeyName to it); when set, it must name
	// that same key.
	// +optional
	KubeconfigKeyName *string `json:"kubeconfigKeyName,omitempty"`
}

// WorkloadIdentityProvider is the cloud whose workload identity is used to reach a cluster.
// +kubebuilder:validation:Enum=AWS;GCP;Azure
type WorkloadIdentityProvider string

const (
	// WorkloadIdentityProviderAWS uses IAM roles for service accounts / EKS Pod Identity.
	WorkloadIdentityProviderAWS = WorkloadIdentityProvider("AWS")

	// WorkloadIdentityProviderGCP uses GKE workload identity federation.
	WorkloadIdentityProviderGCP = WorkloadIdentityProvider("GCP")

	// WorkloadIdentityProviderAzure uses Azure workload identity.
	WorkloadIdentityProviderAzure = WorkloadIdentityProvider("Azure")
)

// AWSWorkloadIdentityConfig holds the EKS details needed to mint a token.
type AWSWorkloadIdentityConfig struct {
	// ClusterName is the EKS cluster name; it is part of the signed token.
	// +kubebuilder:validation:MinLength=1
	ClusterName string `json:"clusterName"`

	// RoleARN is an IAM role to assume before minting the token. When empty the controller's
	// own credentials are used.
	// +optional
	RoleARN string `json:"roleARN,omitempty"`

	// Region of the EKS cluster. When empty the controller's AWS_REGION is used.
	// +optional
	Region string `json:"region,omitempty"`
}

// GCPWorkloadIdentityConfig identifies a GKE cluster.
type GCPWorkloadIdentityConfig struct {
	// ProjectID is the Google Cloud project of the cluster.
	// +kubebuilder:validation:MinLength=1
	ProjectID string `json:"projectID"`

	// ClusterName is the GKE cluster name.
	// +kubebuilder:validation:MinLength=1
	ClusterName string `json:"clusterName"`

	// Location is the region or zone of the cluster, e.g. "europe-west1".
	// +kubebuilder:validation:MinLength=1
	Location string `json:"location"`
}

// AzureWorkloadIdentityConfig holds the Azure identity used to reach an AKS cluster.
type AzureWorkloadIdentityConfig struct {
	// TenantID is the Microsoft Entra tenant.
	// +kubebuilder:validation:MinLength=1
	TenantID string `json:"tenantID"`

	// ClientID is the managed identity or application federated with the controller's
	// ServiceAccount.
	// +kubebuilder:validation:MinLength=1
	ClientID string `json:"clientID"`

	// SubscriptionID of the cluster. Informational.
	// +optional
	SubscriptionID string `json:"subscriptionID,omitempty"`

	// ResourceGroup of the cluster. Informational.
	// +optional
	ResourceGroup string `json:"resourceGroup,omitempty"`

	// ClusterName of the AKS cluster. Informational.
	// +optional
	ClusterName string `json:"clusterName,omitempty"`
}

// WorkloadIdentityConfig reaches a managed cluster with short-lived cloud credentials instead
// of a kubeconfig Secret.
// +kubebuilder:validation:XValidation:rule="(self.provider == 'AWS') == has(self.aws)",message="set aws exactly when provider is AWS"
// +kubebuilder:validation:XValidation:rule="(self.provider == 'GCP') == has(self.gcp)",message="set gcp exactly when provider is GCP"
// +kubebuilder:validation:XValidation:rule="(self.provider == 'Azure') == has(self.azure)",message="set azure exactly when provider is Azure"
type WorkloadIdentityConfig struct {
	// Provider is the cloud whose workload identity is used.
	Provider WorkloadIdentityProvider `json:"provider"`

	// Endpoint is the URL of the managed cluster's API server.
	// +kubebuilder:validation:MinLength=1
	Endpoint string `json:"endpoint"`

	// CASecretRef names a Secret, next to the SveltosCluster, whose "ca.crt" key holds the
	// API server's CA bundle. Without it the system trust store is used.
	// +optional
	CASecretRef *corev1.LocalObjectReference `json:"caSecretRef,omitempty"`

	// AWS settings; required when provider is AWS.
	// +optional
	AWS *AWSWorkloadIdentityConfig `json:"aws,omitempty"`

	// GCP settings; required when provider is GCP.
	// +optional
	GCP *GCPWorkloadIdentityConfig `json:"gcp,omitempty"`

	// Azure settings; required when provider is Azure.
	// +optional
	Azure *AzureWorkloadIdentityConfig `json:"azure,omitempty"`
}

// SveltosClusterSpec describes how to reach a managed cluster and when to manage it.
// +kubebuilder:validation:XValidation:rule="!has(self.workloadIdentity) || !has(self.kubeconfigName)",message="workloadIdentity and kubeconfigName are two ways to reach the cluster: set only one of them"
type SveltosClusterSpec struct {
	// KubeconfigName is the Secret, in the SveltosCluster's namespace, that holds the cluster's
	// kubeconfig. Defaults to "<name>-sveltos-kubeconfig".
	// +optional
	KubeconfigName string `json:"kubeconfigName,omitempty"`

	// KubeconfigKeyName is the key of that Secret holding the kubeconfig. Defaults to the
	// Secret's only key (or its first key in sorted order).
	// +optional
	KubeconfigKeyName string `json:"kubeconfigKeyName,omitempty"`

	// Paused stops every deployment to the cluster until it is cleared.
	// +optional
	Paused bool `json:"paused,omitempty"`

	// TokenRequestRenewalOption, when set, keeps the kubeconfig's token fresh.
	// +optional
	TokenRequestRenewalOption *TokenRequestRenewalOption `json:"tokenRequestRenewalOption,omitempty"`

	// ArbitraryData is free-form data about the cluster, available to templates.
	// +optional
	ArbitraryData map[string]string `json:"data,omitempty"`

	// ActiveWindow pauses and resumes the cluster on a schedule. Without it the cluster is only
	// paused through paused.
	// +optional
	ActiveWindow *ActiveWindow `json:"activeWindow,omitempty"`

	// ConsecutiveFailureThreshold is how many connection attempts in a row must fail before
	// status.connectionStatus becomes Down.
	// +kubebuilder:default:=3
	// +optional
	ConsecutiveFailureThreshold int `json:"consecutiveFailureThreshold,omitempty"`

	// ReadinessChecks must all pass before the cluster is first reported ready.
	// +optional
	ReadinessChecks []ClusterCheck `json:"readinessChecks,omitempty"`

	// LivenessChecks must keep passing for the cluster to stay healthy.
	// +optional
	LivenessChecks []ClusterCheck `json:"livenessChecks,omitempty"`

	// PullMode means an agent inside the managed cluster fetches its configuration instead of
	// the management cluster pushing it. It cannot be changed after creation.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="pullMode cannot be changed after the SveltosCluster is created: delete and re-register the cluster to switch mode"
	// +kubebuilder:default:=false
	// +optional
	PullMode bool `json:"pullMode,omitempty"`

	// WorkloadIdentity reaches the cluster with cloud workload identity instead of a kubeconfig
	// Secret. It excludes kubeconfigName.
	// +optional
	WorkloadIdentity *WorkloadIdentityConfig `json:"workloadIdentity,omitempty"`
}

// SveltosClusterStatus reports whether the cluster can be managed.
type SveltosClusterStatus struct {
	// Version is the Kubernetes version the cluster's API server reports.
	// +optional
	Version string `json:"version,omitempty"`

	// Ready is true once the API server answered and every readiness check passed. Only ready
	// clusters are matched by cluster selectors.
	// +optional
	Ready bool `json:"ready,omitempty"`

	// ConnectionStatus tells whether the cluster is currently reachable.
	// +optional
	ConnectionStatus ConnectionStatus `json:"connectionStatus,omitempty"`

	// FailureMessage explains, in words a person can act on, why the cluster is not ready or
	// not reachable.
	// +optional
	FailureMessage *string `json:"failureMessage,omitempty"`

	// LastReconciledTokenRequestAt is when the token was last renewed.
	// +optional
	LastReconciledTokenRequestAt string `json:"lastReconciledTokenRequestAt,omitempty"`

	// AgentLastReportTime is when the in-cluster agent last reported (pull mode only).
	// +optional
	AgentLastReportTime *metav1.Time `json:"agentLastReportTime,omitempty"`

	// NextUnpause is when the active window next resumes the cluster.
	// +optional
	NextUnpause *metav1.Time `json:"nextUnpause,omitempty"`

	// NextPause is when the active window next pauses the cluster.
	// +optional
	NextPause *metav1.Time `json:"nextPause,omitempty"`

	// ActiveWindowHash is the hash of the active window nextPause and nextUnpause were
	// computed from.
	// +optional
	ActiveWindowHash []byte `json:"activeWindowHash,omitempty"`

	// ConnectionFailures is the number of connection attempts in a row that failed.
	// +kubebuilder:default:=0
	// +optional
	ConnectionFailures int `json:"connectionFailures,omitempty"`
}

// SveltosCluster registers a Kubernetes cluster that Stagecoach deploys to. Its labels are what
// cluster selectors match.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=sveltosclusters,scope=Namespaced
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Ready",type="boolean",JSONPath=".status.ready",description="Whether the cluster can be managed"
// +kubebuilder:printcolumn:name="Version",type="string",JSONPath=".status.version",description="Kubernetes version of the cluster"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the SveltosCluster was created"
// +kubebuilder:printcolumn:name="ConnectionStatus",type="string",JSONPath=".status.connectionStatus",priority=1,description="Whether the cluster is reachable"
// +kubebuilder:printcolumn:name="Shard",type="string",JSONPath=".metadata.annotations['sharding\\.projectsveltos\\.io/key']",priority=1,description="Shard the cluster is assigned to"
type SveltosCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec describes how to reach the cluster.
	// +optional
	Spec SveltosClusterSpec `json:"spec,omitempty"`

	// Status reports whether the cluster can be managed.
	// +optional
	Status SveltosClusterStatus `json:"status,omitempty"`
}

// KubeconfigSecretName returns the name of the Secret holding the cluster's kubeconfig:
// spec.kubeconfigName, or "<name>-sveltos-kubeconfig".
func (c *SveltosCluster) KubeconfigSecretName() string {
	if c.Spec.KubeconfigName != "" {
		return c.Spec.KubeconfigName
	}
	return c.Name + KubeconfigSecretNameSuffix
}

// SveltosClusterList is a list of SveltosClusters.
//
// +kubebuilder:object:root=true
type SveltosClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []SveltosCluster `json:"items"`
}

// Unavailable says why nothing can be deployed to or checked on the cluster now: it is paused,
// or its API server does not answer. It is empty when the cluster can be counted on.
func (c *SveltosCluster) Unavailable() string {
	switch {
	case c.Spec.Paused:
		return "paused"
	case !c.Status.Ready && c.Status.FailureMessage != nil:
		return "not ready: " + *c.Status.FailureMessage
	case !c.Status.Ready:
		return "not ready"
	}
	return ""
}
