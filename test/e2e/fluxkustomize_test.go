//go:build e2e

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

package e2e

import (
	"testing"

	sourcev1 "github.com/fluxcd/source-controller/api/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
)

// TestFluxKustomization: a kustomizationRef to a GitRepository builds the kustomization at its
// path in the artifact source-controller made, substitutes the ref's values (a template of the
// cluster's name) into the output, puts it in the targetNamespace, and deploys each new commit.
func TestFluxKustomization(t *testing.T) {
	t.Parallel()
	const ns = "e2e-flux-kustomize"
	src := newGitSource(t, ns, "apps", "one", func(value string) map[string][]byte {
		return map[string][]byte{
			"deploy/overlay/kustomization.yaml": []byte("resources:\n- settings.yaml\n"),
			"deploy/overlay/settings.yaml":      []byte(configMapManifest("placeholder", "settings", value+"-{{ .Where }}")),
			"README.md":                         []byte("not a manifest\n"),
		}
	})

	p := sveltosProfile(ns, map[string]string{"env": "qa"})
	p.Spec.KustomizationRefs = []configv1beta1.KustomizationRef{{
		Kind: sourcev1.GitRepositoryKind, Namespace: ns, Name: "apps", Path: "deploy/overlay", TargetNamespace: ns,
		Values: map[string]string{"Where": "{{ .Cluster.metadata.name }}"},
	}}
	createProfile(t, p)
	expectValue(t, "qa", ns, "settings", "one-qa")
	cs, err := summary(t.Context(), t, p.Name, "qa")
	if err != nil {
		t.Fatal(err)
	}
	if name := cs.Spec.FrozenContent["GitRepository "+ns+"/apps"]; name == "" {
		t.Errorf("the summary's frozenContent %v names no copy of the artifact", cs.Spec.FrozenContent)
	}

	src.push("two")
	expectValue(t, "qa", ns, "settings", "two-qa")
}
