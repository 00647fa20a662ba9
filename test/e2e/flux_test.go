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
	"crypto/rand"
	"fmt"
	"strings"
	"testing"
	"time"

	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/chartrepo"
	"github.com/stagecoach-dev/stagecoach/internal/fluxsource"
	"github.com/stagecoach-dev/stagecoach/internal/freeze"
	"github.com/stagecoach-dev/stagecoach/internal/render"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
	"github.com/stagecoach-dev/stagecoach/internal/testing/gitserver"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestFluxGitRepositoryPromotion: a promotion whose policyRef is a path of a GitRepository, read
// by the real source-controller from a git server on loopback. Each commit is a version: the
// first stage gets a new commit's manifests at once, and the stage behind a manual approval keeps
// the previous commit's until it is approved, from the copy of the artifact the version froze.
func TestFluxGitRepositoryPromotion(t *testing.T) {
	t.Parallel()
	const ns = "e2e-flux"
	ctx, c := t.Context(), testenv.Client(t)
	src := newGitSource(t, ns, "policies", "one", func(value string) map[string][]byte {
		return map[string][]byte{
			"deploy/settings.yaml": []byte(configMapManifest(ns, "settings", value)),
			"deploy/README.md":     []byte("not a manifest: left out\n"),
			"other/outside.yaml":   []byte(configMapManifest(ns, "outside", value)),
		}
	})
	first := src.sha

	p := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: "e2e-flux"}}
	p.Spec.ProfileSpec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: sourcev1.GitRepositoryKind, Namespace: ns, Name: "policies", Path: "./deploy"}}
	p.Spec.Stages = []configv1beta1.Stage{
		stage("dev", "dev", &configv1beta1.Trigger{Manual: &configv1beta1.ManualTrigger{Approved: ptr(false)}}),
		stage("staging", "staging", nil),
	}
	createPromotion(t, p)

	awaitingApproval(t, p.Name)
	expectValue(t, "dev", ns, "settings", "one")
	approve(t, p.Name, 0)
	expectValue(t, "staging", ns, "settings", "one")
	waitReady(t, p.Name)
	if _, err := managed(t, "dev").CoreV1().ConfigMaps(ns).Get(ctx, "outside", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a manifest outside the reference's path was deployed (%v)", err)
	}

	src.push("two")
	expectValue(t, "dev", ns, "settings", "two")
	awaitingApproval(t, p.Name)
	// The gated stage keeps the first commit, from the artifact frozen for the first version.
	expectValue(t, "staging", ns, "settings", "one")
	staging := &configv1beta1.ClusterProfile{}
	if err := c.Get(ctx, client.ObjectKey{Name: p.Name + "-staging"}, staging); err != nil {
		t.Fatal(err)
	}
	ref := staging.Spec.PolicyRefs[0]
	// The copy is in the controller's namespace, made from the source in the reference's.
	frozen := &corev1.ConfigMap{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: testenv.ChartNamespace, Name: ref.Name}, frozen); err != nil {
		t.Fatalf("the staging stage's reference %s %s/%s: %v", ref.Kind, ref.Namespace, ref.Name, err)
	}
	if ref.Kind != "ConfigMap" || ref.Path != "./deploy" || !strings.HasPrefix(frozen.Annotations[freeze.SourceAnnotation], "GitRepository "+ref.Namespace+"/") || !strings.HasSuffix(frozen.Data[freeze.RevisionKey], first) ||
		len(frozen.BinaryData[freeze.ArtifactKey]) == 0 || frozen.Immutable == nil || !*frozen.Immutable {
		t.Errorf("the staging stage refers to %+v, holding revision %q; want the immutable copy of the artifact of %s",
			ref, frozen.Data[freeze.RevisionKey], first)
	}

	approve(t, p.Name, 0)
	expectValue(t, "staging", ns, "settings", "two")
	waitReady(t, p.Name)
}

// TestFluxGitRepositoryProfile: a plain ClusterProfile reading a GitRepository path deploys each
// new commit, from the artifact its summaries have frozen.
func TestFluxGitRepositoryProfile(t *testing.T) {
	t.Parallel()
	const ns = "e2e-flux-profile"
	ctx := t.Context()
	src := newGitSource(t, ns, "manifests", "one", func(value string) map[string][]byte {
		return map[string][]byte{"settings.yaml": []byte(configMapManifest(ns, "settings", value))}
	})

	p := sveltosProfile(ns, map[string]string{"env": "qa"})
	p.Spec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: sourcev1.GitRepositoryKind, Namespace: ns, Name: "manifests"}}
	createProfile(t, p)
	expectValue(t, "qa", ns, "settings", "one")
	cs, err := summary(ctx, t, p.Name, "qa")
	if err != nil {
		t.Fatal(err)
	}
	if name := cs.Spec.FrozenContent["GitRepository "+ns+"/manifests"]; name == "" {
		t.Errorf("the summary's frozenContent %v names no copy of the artifact", cs.Spec.FrozenContent)
	}

	src.push("two")
	expectValue(t, "qa", ns, "settings", "two")
}

// TestFluxOCIRepositoryArtifact reads, as a profile would, the artifact the real source-controller
// makes of an OCI artifact in the local registry: the cert-manager chart's layer, whose crds/
// directory holds plain manifests.
func TestFluxOCIRepositoryArtifact(t *testing.T) {
	t.Parallel()
	const ns = "e2e-flux-oci"
	ctx, c := t.Context(), testenv.Client(t)
	registry, stop, err := chartrepo.ServeOCI(ctx, "../../testdata/charts")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}) })
	repo := &sourcev1.OCIRepository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cert-manager"}, Spec: sourcev1.OCIRepositorySpec{
		URL: registry + "/cert-manager", Reference: &sourcev1.OCIRepositoryRef{Tag: "v1.19.1"}, Insecure: true,
		LayerSelector: &sourcev1.OCILayerSelector{MediaType: "application/vnd.cncf.helm.chart.content.v1.tar+gzip", Operation: sourcev1.OCILayerExtract},
		Interval:      metav1.Duration{Duration: time.Hour},
	}}
	if err := c.Create(ctx, repo); err != nil {
		t.Fatal(err)
	}
	cs := &configv1beta1.ClusterSummary{}
	ref := configv1beta1.PolicyRef{Kind: sourcev1.OCIRepositoryKind, Namespace: ns, Name: repo.Name, Path: "cert-manager/crds"}
	cs.Spec.ClusterProfileSpec.PolicyRefs = []configv1beta1.PolicyRef{ref}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		sources, err := render.PolicySources(ctx, tenancy.Admin(c), cs)
		if err != nil {
			return err
		}
		if got := sources[0]; !strings.HasPrefix(got.Revision, "v1.19.1@sha256:") || len(got.Data) != 3 || got.Data["certificates.yaml"] == nil {
			return fmt.Errorf("%s at %q with %d files; want the chart's three CRDs at v1.19.1", got, got.Revision, len(got.Data))
		}
		return nil
	})
}

// TestFluxArtifactTooLarge: a source whose artifact is above the size limit stalls the profile
// with a message naming the source and the limit, and nothing is deployed.
func TestFluxArtifactTooLarge(t *testing.T) {
	t.Parallel()
	const ns = "e2e-flux-large"
	ctx, c := t.Context(), testenv.Client(t)
	noise := make([]byte, fluxsource.MaxArtifactSize+64<<10) // random bytes do not compress
	if _, err := rand.Read(noise); err != nil {
		t.Fatal(err)
	}
	newGitSource(t, ns, "large", "one", func(value string) map[string][]byte {
		return map[string][]byte{"settings.yaml": []byte(configMapManifest(ns, "settings", value)), "noise.bin": noise}
	})

	p := sveltosProfile(ns, map[string]string{"env": "qa"})
	p.Spec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: sourcev1.GitRepositoryKind, Namespace: ns, Name: "large"}}
	createProfile(t, p)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got := &configv1beta1.ClusterProfile{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(p), got); err != nil {
			return err
		}
		stalled := meta.FindStatusCondition(got.Status.Conditions, configv1beta1.ProfileStalledCondition)
		if stalled == nil || stalled.Status != metav1.ConditionTrue || !strings.Contains(stalled.Message, "GitRepository "+ns+"/large") ||
			!strings.Contains(stalled.Message, "at most 768 KiB") {
			return fmt.Errorf("Stalled condition %+v", stalled)
		}
		return nil
	})
	testenv.ExpectEvent(t, timeout, c, p, "InvalidSpec")
	if _, err := managed(t, "qa").CoreV1().ConfigMaps(ns).Get(ctx, "settings", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the source's manifests were deployed (%v)", err)
	}
}

// gitSource is a GitRepository that the real source-controller reads from a git server on
// loopback (branch main), in a namespace of its own that the test deletes at its end.
type gitSource struct {
	t     *testing.T
	git   *gitserver.Server
	name  string
	repo  *sourcev1.GitRepository
	files func(value string) map[string][]byte
	// sha is the last commit pushed.
	sha string
}

// newGitSource starts the git server, commits files(first), creates the namespace and the
// GitRepository name in it, and waits for source-controller's artifact of that commit.
func newGitSource(t *testing.T, ns, name, first string, files func(value string) map[string][]byte) *gitSource {
	t.Helper()
	ctx, c := t.Context(), testenv.Client(t)
	git, err := gitserver.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = git.Close() })
	g := &gitSource{t: t, git: git, name: name, files: files}
	g.commit(first)
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}) })
	g.repo = &sourcev1.GitRepository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: sourcev1.GitRepositorySpec{
		URL: git.RepoURL(name), Interval: metav1.Duration{Duration: time.Hour}, Reference: &sourcev1.GitRepositoryRef{Branch: "main"},
	}}
	if err := c.Create(ctx, g.repo); err != nil {
		t.Fatal(err)
	}
	waitArtifact(t, g.repo, g.sha)
	return g
}

func (g *gitSource) commit(value string) {
	g.t.Helper()
	sha, err := g.git.Commit(g.t.Context(), g.name, "main", value, g.files(value))
	if err != nil {
		g.t.Fatal(err)
	}
	g.sha = sha
}

// push commits files(value) and waits until source-controller has the commit's artifact.
func (g *gitSource) push(value string) {
	g.t.Helper()
	g.commit(value)
	requestReconcile(g.t, g.repo)
	waitArtifact(g.t, g.repo, g.sha)
}

// waitArtifact waits until source-controller has the artifact of the commit.
func waitArtifact(t *testing.T, repo *sourcev1.GitRepository, commit string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got := &sourcev1.GitRepository{}
		if err := testenv.Client(t).Get(ctx, client.ObjectKeyFromObject(repo), got); err != nil {
			return err
		}
		if a := got.Status.Artifact; a == nil || !strings.HasSuffix(a.Revision, commit) {
			return fmt.Errorf("GitRepository %s: artifact %+v, conditions %+v; want revision %s", repo.Name, a, got.Status.Conditions, commit)
		}
		return nil
	})
}

// requestReconcile asks source-controller to fetch the repository now, as `flux reconcile` does.
func requestReconcile(t *testing.T, repo *sourcev1.GitRepository) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got := &sourcev1.GitRepository{}
		if err := testenv.Client(t).Get(ctx, client.ObjectKeyFromObject(repo), got); err != nil {
			return err
		}
		if got.Annotations == nil {
			got.Annotations = map[string]string{}
		}
		got.Annotations[fluxmeta.ReconcileRequestAnnotation] = time.Now().Format(time.RFC3339Nano)
		return testenv.Client(t).Update(ctx, got)
	})
}

// awaitingApproval waits until the promotion waits for the approval of its first stage.
func awaitingApproval(t *testing.T, name string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := getPromotion(ctx, t, name)
		if err != nil {
			return err
		}
		if got.Status.CurrentStageName != "dev" || len(got.Status.Stages) == 0 || got.Status.Stages[0].CurrentStatusDescription == nil ||
			!strings.HasPrefix(*got.Status.Stages[0].CurrentStatusDescription, "Paused: Awaiting Manual Approval") {
			return fmt.Errorf("stage %s, stages %+v, conditions %+v", got.Status.CurrentStageName, got.Status.Stages, got.Status.Conditions)
		}
		return nil
	})
}

// expectValue waits until the ConfigMap on the managed cluster holds value.
func expectValue(t *testing.T, cluster, ns, name, value string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cm, err := managed(t, cluster).CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cm.Data["value"] != value {
			return fmt.Errorf("%s: ConfigMap %s/%s holds %q, want %q", cluster, ns, name, cm.Data["value"], value)
		}
		return nil
	})
}
