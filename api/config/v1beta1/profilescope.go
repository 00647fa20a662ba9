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
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// ScopeToNamespace makes every management-cluster reference of a Profile's spec name the
// Profile's namespace, as Sveltos does: clusterRefs, policyRefs, kustomizationRefs and their
// valuesFrom, Helm valuesFrom, registry credentials, signature and provenance keys, patchesFrom
// and a templateResourceRef that names a namespace. A Profile cannot reach another namespace,
// and a reference without a namespace, which means "the cluster's namespace", means the same
// namespace for every cluster a Profile can target, so its content is frozen like that of any
// reference with a namespace. It returns the fields that named another namespace, so that the
// controller can say they were not followed.
func (s *Spec) ScopeToNamespace(namespace string) []string {
	var ignored []string
	set := func(field string, ns *string, always bool) {
		if *ns != "" && *ns != namespace {
			ignored = append(ignored, fmt.Sprintf("%s.namespace %q", field, *ns))
		}
		if always || *ns != "" {
			*ns = namespace
		}
	}
	secret := func(field string, ref *corev1.SecretReference) {
		if ref != nil {
			set(field, &ref.Namespace, true)
		}
	}
	for i := range s.ClusterRefs {
		set(fmt.Sprintf("spec.clusterRefs[%d]", i), &s.ClusterRefs[i].Namespace, true)
	}
	for i := range s.PolicyRefs {
		r := &s.PolicyRefs[i]
		field := fmt.Sprintf("spec.policyRefs[%d]", i)
		set(field, &r.Namespace, true)
		if r.RemoteURL != nil {
			secret(field+".remoteURL.secretRef", r.RemoteURL.SecretRef)
		}
	}
	for i := range s.KustomizationRefs {
		r := &s.KustomizationRefs[i]
		field := fmt.Sprintf("spec.kustomizationRefs[%d]", i)
		set(field, &r.Namespace, true)
		if r.RemoteURL != nil {
			secret(field+".remoteURL.secretRef", r.RemoteURL.SecretRef)
		}
		scopeValuesFrom(field+".valuesFrom", r.ValuesFrom, set)
	}
	for i := range s.HelmCharts {
		h := &s.HelmCharts[i]
		field := fmt.Sprintf("spec.helmCharts[%d]", i)
		scopeValuesFrom(field+".valuesFrom", h.ValuesFrom, set)
		if c := h.RegistryCredentialsConfig; c != nil {
			secret(field+".registryCredentialsConfig.credentials", c.CredentialsSecretRef)
			secret(field+".registryCredentialsConfig.ca", c.CASecretRef)
		}
		if v := h.SignatureVerification; v != nil {
			secret(field+".signatureVerification.secretRef", v.SecretRef)
		}
		if v := h.ProvenanceVerification; v != nil {
			secret(field+".provenanceVerification.keyringSecretRef", &v.KeyringSecretRef)
		}
	}
	scopeValuesFrom("spec.patchesFrom", s.PatchesFrom, set)
	for i := range s.TemplateResourceRefs {
		// Left empty, it stays so: a cluster-scoped object has no namespace to name.
		set(fmt.Sprintf("spec.templateResourceRefs[%d].resource", i), &s.TemplateResourceRefs[i].Resource.Namespace, false)
	}
	return ignored
}

func scopeValuesFrom(field string, vf []ValueFrom, set func(string, *string, bool)) {
	for i := range vf {
		set(fmt.Sprintf("%s[%d]", field, i), &vf[i].Namespace, true)
	}
}

// DeployedSpec is the spec a profile's ClusterSummaries carry: a ClusterProfile's as written, a
// Profile's with its references scoped to its namespace (ScopeToNamespace), on a copy.
func DeployedSpec(p ProfileObj) *Spec {
	if ProfileFamilyOf(p).Namespaced {
		spec := p.ProfileSpec().DeepCopy()
		spec.ScopeToNamespace(p.GetNamespace())
		return spec
	}
	return p.ProfileSpec()
}
