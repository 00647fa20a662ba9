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
	"context"
	"testing"
	"time"

	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/gitserver"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestFluxKustomization: a kustomizationRef to a GitRepository builds the kustomization at its
// path in the artifact source-controller made, substitutes the ref's values (a template of the
// cluster's name) into the output, puts it in the targetNamespace, and deploys each new commit.
func TestFluxKustomization(t *testing.T) {
	t.Parallel()
	const ns = "e2e-flux-kustomize"
	ctx, c := t.Context(), testenv.Client(t)
	git, err := gitserver.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = git.Close() })
	commit := func(value string) string {
		t.Helper()
		sha, err := git.Commit(ctx, "apps", "main", value, map[string][]byte{
			"deploy/overlay/kustomization.yaml": []byte("resources:\n- settings.yaml\n"),
			"deploy/overlay/settings.yaml":      []byte(configMapManifest("placeholder", "settings", value+"-{{ .Where }}")),
			"README.md":                         []byte("not a manifest\n"),
		})
		if err != nil {
			t.Fatal(err)
		}
		return sha
	}
	first := commit("one")
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}) })
	repo := &sourcev1.GitRepository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "apps"}, Spec: sourcev1.GitRepositorySpec{
		URL: git.RepoURL("apps"), Interval: metav1.Duration{Duration: time.Hour},
		Reference: &sourcev1.GitRepositoryRef{Branch: "main"},
	}}
	if err := c.Create(ctx, repo); err != nil {
		t.Fatal(err)
	}
	waitArtifact(t, repo, first)

	p := sveltosProfile(ns, map[string]string{"env": "qa"})
	p.Spec.KustomizationRefs = []configv1beta1.KustomizationRef{{
		Kind: sourcev1.GitRepositoryKind, Namespace: ns, Name: "apps", Path: "deploy/overlay", TargetNamespace: ns,
		Values: map[string]string{"Where": "{{ .Cluster.metadata.name }}"},
	}}
	createProfile(t, p)
	expectValue(t, "qa", ns, "settings", "one-qa")
	cs, err := summary(ctx, t, p.Name, "qa")
	if err != nil {
		t.Fatal(err)
	}
	if name := cs.Spec.FrozenContent["GitRepository "+ns+"/apps"]; name == "" {
		t.Errorf("the summary's frozenContent %v names no copy of the artifact", cs.Spec.FrozenContent)
	}

	second := commit("two")
	requestReconcile(t, repo)
	waitArtifact(t, repo, second)
	expectValue(t, "qa", ns, "settings", "two-qa")
}
