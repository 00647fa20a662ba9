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

// PolicyRef points at content to deploy: a ConfigMap or Secret in the management cluster, a
// Flux source, or a remote URL. Exactly one of kind (with name) or remoteURL is set.
//
// A referenced Secret must be of type addons.projectsveltos.io/cluster-profile.
type PolicyRef struct {
	// Namespace of the referenced object. Empty means the namespace of the cluster being
	// deployed to. May be a Go template.
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// Name of the referenced object; required with kind. May be a Go template.
	// +optional
	Name string `json:"name,omitempty"`

	// Kind of the referenced object.
	// +kubebuilder:validation:Enum=GitRepository;OCIRepository;Bucket;ConfigMap;Secret
	// +optional
	Kind string `json:"kind,omitempty"`

	// Path, for Flux sources, is the directory of the source holding the manifests. May be a
	// Go template.
	// +optional
	Path string `json:"path,omitempty"`

	// DeploymentType says whether the content goes to the managed cluster (Remote) or the
	// management cluster (Local).
	// +kubebuilder:default:=Remote
	// +optional
	DeploymentType DeploymentType `json:"deploymentType,omitempty"`

	// Optional makes a missing object count as empty instead of an error.
	// +kubebuilder:default:=false
	// +optional
	Optional bool `json:"optional,omitempty"`

	// Tier overrides the profile's tier for this content when settling conflicts.
	// +kubebuilder:default:=100
	// +kubebuilder:validation:Minimum=1
	// +optional
	Tier int32 `json:"tier,omitempty"`

	// SkipNamespaceCreation does not create the namespaces the content is deployed to.
	// +kubebuilder:default:=false
	// +optional
	SkipNamespaceCreation bool `json:"skipNamespaceCreation,omitempty"`

	// Force deletes and recreates an object whose update is refused because a field is
	// immutable.
	// +kubebuilder:default:=false
	// +optional
	Force bool `json:"force,omitempty"`

	// RemoteURL fetches the content over HTTP(S) or from an OCI registry instead.
	// +optional
	RemoteURL *RemoteURL `json:"remoteURL,omitempty"`
}

// RemoteURL is content fetched from a URL.
type RemoteURL struct {
	// URL of the content: http(s):// for a file, oci:// for an OCI artifact.
	// +kubebuilder:validation:Pattern=`^(https?|oci)://`
	URL string `json:"url"`

	// Interval is how often the URL is fetched again. Defaults to 5m.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`
	// +optional
	Interval *metav1.Duration `json:"interval,omitempty"`

	// SecretRef names a Secret with credentials: a "token" key, "username" and "password"
	// keys, and/or a "caFile" key with the CA bundle.
	// +optional
	SecretRef *corev1.SecretReference `json:"secretRef,omitempty"`

	// Template marks the fetched content as a Go template.
	// +optional
	Template bool `json:"template,omitempty"`

	// InsecureSkipTLSVerify does not verify the server's TLS certificate.
	// +kubebuilder:default:=false
	// +optional
	InsecureSkipTLSVerify bool `json:"insecureSkipTLSVerify,omitempty"`

	// PlainHTTP talks to an OCI registry over plain HTTP.
	// +kubebuilder:default:=false
	// +optional
	PlainHTTP bool `json:"plainHTTP,omitempty"`
}

// KustomizationRef points at a kustomization whose output is deployed: in a ConfigMap or
// Secret (as a tarball), in a Flux source, or at a remote URL. Exactly one of kind (with name)
// or remoteURL is set.
// +kubebuilder:validation:XValidation:rule="has(self.remoteURL) != has(self.kind)",message="a kustomization reference needs exactly one of kind (with name) or remoteURL: set one and remove the other"
type KustomizationRef struct {
	// Namespace of the referenced object. Empty means the namespace of the cluster being
	// deployed to. May be a Go template.
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// Name of the referenced object; required with kind. May be a Go template.
	// +optional
	Name string `json:"name,omitempty"`

	// Kind of the referenced object.
	// +kubebuilder:validation:Enum=GitRepository;OCIRepository;Bucket;ConfigMap;Secret
	// +optional
	Kind string `json:"kind,omitempty"`

	// Path is the directory holding kustomization.yaml (or the plain manifests to generate one
	// for). Defaults to the root of the source. May be a Go template.
	// +optional
	Path string `json:"path,omitempty"`

	// Components are kustomize components, relative to path, added to the kustomization.
	// +optional
	Components []string `json:"components,omitempty"`

	// Optional makes a missing object count as empty instead of an error.
	// +kubebuilder:default:=false
	// +optional
	Optional bool `json:"optional,omitempty"`

	// TargetNamespace sets the namespace of every namespaced object in the output.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +optional
	TargetNamespace string `json:"targetNamespace,omitempty"`

	// DeploymentType says whether the output goes to the managed cluster (Remote) or the
	// management cluster (Local).
	// +kubebuilder:default:=Remote
	// +optional
	DeploymentType DeploymentType `json:"deploymentType,omitempty"`

	// Values are key/value pairs, possibly Go templates, substituted into the output.
	// +optional
	Values map[string]string `json:"values,omitempty"`

	// ValuesFrom reads further values from ConfigMaps or Secrets.
	// +optional
	ValuesFrom []ValueFrom `json:"valuesFrom,omitempty"`

	// Tier overrides the profile's tier for this content when settling conflicts.
	// +kubebuilder:default:=100
	// +kubebuilder:validation:Minimum=1
	// +optional
	Tier int32 `json:"tier,omitempty"`

	// SkipNamespaceCreation does not create the namespaces the output is deployed to.
	// +kubebuilder:default:=false
	// +optional
	SkipNamespaceCreation bool `json:"skipNamespaceCreation,omitempty"`

	// Force deletes and recreates an object whose update is refused because a field is
	// immutable.
	// +kubebuilder:default:=false
	// +optional
	Force bool `json:"force,omitempty"`

	// RemoteURL fetches the kustomization from a URL instead.
	// +optional
	RemoteURL *RemoteKustomizeURL `json:"remoteURL,omitempty"`
}

// RemoteKustomizeURL is a kustomization fetched from a URL.
type RemoteKustomizeURL struct {
	// URL of the kustomization: an http(s):// archive or an oci:// artifact.
	// +kubebuilder:validation:Pattern=`^(https?|oci)://`
	URL string `json:"url"`

	// Interval is how often the URL is fetched again. Defaults to 5m.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`
	// +optional
	Interval *metav1.Duration `json:"interval,omitempty"`

	// SecretRef names a Secret with credentials: a "token" key, "username" and "password"
	// keys, and/or a "caFile" key with the CA bundle.
	// +optional
	SecretRef *corev1.SecretReference `json:"secretRef,omitempty"`

	// InsecureSkipTLSVerify does not verify the server's TLS certificate.
	// +kubebuilder:default:=false
	// +optional
	InsecureSkipTLSVerify bool `json:"insecureSkipTLSVerify,omitempty"`

	// PlainHTTP talks to an OCI registry over plain HTTP.
	// +kubebuilder:default:=false
	// +optional
	PlainHTTP bool `json:"plainHTTP,omitempty"`
}
