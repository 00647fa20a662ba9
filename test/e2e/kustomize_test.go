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
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// kustomizeTarball packs files into a gzip-compressed tar archive, as `tar czf` does.
func kustomizeTarball(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	for name, content := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// setKustomizeConfigMap creates or replaces the ConfigMap default/name holding a tarball under
// kustomize.tar.gz, as Sveltos users make it (kubectl create configmap --from-file); it is
// removed when the test ends.
func setKustomizeConfigMap(t *testing.T, name string, tarball []byte) {
	t.Helper()
	c := testenv.Client(t)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cm := &corev1.ConfigMap{}
		err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, cm)
		if err != nil {
			cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
				BinaryData: map[string][]byte{"kustomize.tar.gz": tarball}}
			if err := c.Create(ctx, cm); err != nil {
				return err
			}
			t.Cleanup(func() { _ = c.Delete(context.Background(), cm) })
			return nil
		}
		cm.BinaryData = map[string][]byte{"kustomize.tar.gz": tarball}
		return c.Update(ctx, cm)
	})
}

// kustomizeApp is a kustomization under app/: a ConfigMap whose value is substituted from the
// profile's values, and a second one left alone by the profile's patch.
func kustomizeApp(color string) map[string]string {
	return map[string]string{
		"app/kustomization.yaml":    "resources: [settings.yaml, other.yaml]\nnamePrefix: k-\n",
		"app/settings.yaml":         "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  value: \"" + color + "-{{ .Size }}\"\n",
		"app/other.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\ndata:\n  value: plain\n",
		"unused/kustomization.yaml": "resources: [missing.yaml]\n",
	}
}

// TestKustomizationFromConfigMap deploys a kustomization held in a ConfigMap as a tarball: its
// path, its targetNamespace, values substituted into its output and a strategic-merge patch
// with a target. An edit to the tarball lands; a broken tarball fails the feature and leaves
// what is deployed; a Flux source is refused by name.
func TestKustomizationFromConfigMap(t *testing.T) {
	t.Parallel()
	const ns = "e2e-kustomize"
	setKustomizeConfigMap(t, "e2e-kustomize", kustomizeTarball(t, kustomizeApp("blue")))
	createConfigMap(t, "e2e-kustomize-values", map[string]string{"Size": "large"})
	p := sveltosProfile("e2e-kustomize", map[string]string{"env": "prod"})
	p.Spec.KustomizationRefs = []configv1beta1.KustomizationRef{{
		Kind: "ConfigMap", Namespace: "default", Name: "e2e-kustomize", Path: "app", TargetNamespace: ns,
		Values:     map[string]string{"Size": "small"},
		ValuesFrom: []configv1beta1.ValueFrom{{Kind: "ConfigMap", Namespace: "default", Name: "e2e-kustomize-values"}},
	}}
	p.Spec.Patches = []libv1beta1.Patch{{
		Target: &libv1beta1.PatchSelector{Kind: "ConfigMap", Name: "k-settings"},
		Patch:  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: any\n  labels:\n    patched: strategic\n",
	}}
	createProfile(t, p)

	prod := managed(t, "prod")
	expectFeature(t, p.Name, "prod", libv1beta1.FeatureKustomize, libv1beta1.FeatureStatusProvisioned)
	// valuesFrom wins over values, as in Sveltos.
	waitConfigMapValue(t, prod, ns, "k-settings", "blue-large")
	waitConfigMapValue(t, prod, ns, "k-other", "plain")
	expectLabels := func() {
		t.Helper()
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			settings, err := prod.CoreV1().ConfigMaps(ns).Get(ctx, "k-settings", metav1.GetOptions{})
			if err != nil {
				return err
			}
			other, err := prod.CoreV1().ConfigMaps(ns).Get(ctx, "k-other", metav1.GetOptions{})
			if err != nil {
				return err
			}
			if settings.Labels["patched"] != "strategic" || other.Labels["patched"] != "" {
				return fmt.Errorf("labels: k-settings %v, k-other %v", settings.Labels, other.Labels)
			}
			return nil
		})
	}
	expectLabels()

	// An edit to the tarball is a new version of the profile's content, deployed.
	setKustomizeConfigMap(t, "e2e-kustomize", kustomizeTarball(t, kustomizeApp("green")))
	waitConfigMapValue(t, prod, ns, "k-settings", "green-large")

	// A tarball that is not one fails the feature for good and leaves what is deployed.
	setKustomizeConfigMap(t, "e2e-kustomize", []byte("this is not a tarball, and it is long enough to be read as a header....."))
	cs := expectFeature(t, p.Name, "prod", libv1beta1.FeatureKustomize, libv1beta1.FeatureStatusFailedNonRetriable)
	if msg := failureMessage(cs, libv1beta1.FeatureKustomize); !strings.Contains(msg, "ConfigMap default/e2e-kustomize key kustomize.tar.gz") {
		t.Errorf("failure message %q does not name the ConfigMap and key", msg)
	}
	waitConfigMapValue(t, prod, ns, "k-settings", "green-large")

	// A kustomize error: the path's kustomization refers to a file the tarball lacks.
	setKustomizeConfigMap(t, "e2e-kustomize", kustomizeTarball(t, kustomizeApp("red")))
	waitConfigMapValue(t, prod, ns, "k-settings", "red-large")
	updateProfile(t, p.Name, func(p *configv1beta1.ClusterProfile) { p.Spec.KustomizationRefs[0].Path = "unused" })
	cs = expectFeature(t, p.Name, "prod", libv1beta1.FeatureKustomize, libv1beta1.FeatureStatusFailedNonRetriable)
	if msg := failureMessage(cs, libv1beta1.FeatureKustomize); !strings.Contains(msg, `kustomize build of "unused"`) || !strings.Contains(msg, "missing.yaml") {
		t.Errorf("failure message %q does not give kustomize's error", msg)
	}
	waitConfigMapValue(t, prod, ns, "k-settings", "red-large")
	expectLabels()
}

// TestHelmChartPatchedAtPostRender patches a chart's Deployment with a JSON 6902 patch, applied
// as a Helm post-render; changing the patch upgrades the release.
func TestHelmChartPatchedAtPostRender(t *testing.T) {
	t.Parallel()
	const ns = "e2e-helm-patch"
	p := sveltosProfile("e2e-helm-patch", map[string]string{"env": "staging"})
	p.Spec.HelmCharts = []configv1beta1.HelmChart{webapp(t, "patched", ns, "1.0.0")}
	patch := func(value string) []libv1beta1.Patch {
		return []libv1beta1.Patch{{
			Target: &libv1beta1.PatchSelector{Group: "apps", Kind: "Deployment"},
			Patch:  "- op: add\n  path: /metadata/labels/patched\n  value: " + value + "\n",
		}}
	}
	p.Spec.Patches = patch("json6902")
	createProfile(t, p)

	staging := managed(t, "staging")
	expectLabel := func(value string) {
		t.Helper()
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			d, err := staging.AppsV1().Deployments(ns).Get(ctx, "patched", metav1.GetOptions{})
			if err != nil {
				return err
			}
			if d.Labels["patched"] != value || d.Labels["app.kubernetes.io/name"] != "webapp" {
				return fmt.Errorf("deployment labels %v, want patched=%s and the chart's own", d.Labels, value)
			}
			cm, err := staging.CoreV1().ConfigMaps(ns).Get(ctx, "patched-info", metav1.GetOptions{})
			if err != nil {
				return err
			}
			if _, ok := cm.Labels["patched"]; ok {
				return fmt.Errorf("the patch reached the chart's ConfigMap, which it does not target: %v", cm.Labels)
			}
			return nil
		})
	}
	expectLabel("json6902")
	updateProfile(t, p.Name, func(p *configv1beta1.ClusterProfile) { p.Spec.Patches = patch("changed") })
	expectLabel("changed")
	if cs := expectFeature(t, p.Name, "staging", libv1beta1.FeatureHelm, libv1beta1.FeatureStatusProvisioned); len(cs.Status.HelmReleaseSummaries) != 1 ||
		len(cs.Status.HelmReleaseSummaries[0].PatchesHash) == 0 {
		t.Errorf("release summaries %+v: no patchesHash", cs.Status.HelmReleaseSummaries)
	}

	// A patch that cannot apply to the chart fails the feature for good; the release stays.
	updateProfile(t, p.Name, func(p *configv1beta1.ClusterProfile) {
		p.Spec.Patches[0].Patch = "- op: replace\n  path: /spec/nothing/deeper\n  value: x\n"
	})
	cs := expectFeature(t, p.Name, "staging", libv1beta1.FeatureHelm, libv1beta1.FeatureStatusFailedNonRetriable)
	if msg := failureMessage(cs, libv1beta1.FeatureHelm); !strings.Contains(msg, "patches[0]: Deployment patched: replace operation does not apply") {
		t.Errorf("failure message %q does not name the patch and the object", msg)
	}
	expectLabel("changed")
}

// TestPatchesFrom reads patches from a ConfigMap, one per key, and applies them to the objects
// of policyRefs. An edit to the patches lands; a patch that cannot apply fails the feature for
// good and leaves what is deployed.
func TestPatchesFrom(t *testing.T) {
	t.Parallel()
	const ns = "e2e-patches-from"
	createConfigMap(t, "e2e-patches-from", map[string]string{
		"config.yaml": configMapManifest(ns, "settings", "one") + "---\n" + configMapManifest(ns, "untouched", "one"),
	})
	patches := func(value string) map[string]string {
		return map[string]string{
			"a-value.yaml": "patch: |\n  - op: replace\n    path: /data/value\n    value: " + value + "\ntarget:\n  kind: ConfigMap\n  name: settings\n",
			"b-label.yaml": "patch: |\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: untouched\n    namespace: " + ns +
				"\n    labels:\n      from: patchesFrom\n",
		}
	}
	createConfigMap(t, "e2e-patches-from-patches", patches("patched"))
	p := sveltosProfile("e2e-patches-from", map[string]string{"env": "qa"})
	p.Spec.PolicyRefs = []configv1beta1.PolicyRef{configMapRef("e2e-patches-from")}
	p.Spec.PatchesFrom = []configv1beta1.ValueFrom{{Kind: "ConfigMap", Namespace: "default", Name: "e2e-patches-from-patches"}}
	createProfile(t, p)

	qa := managed(t, "qa")
	waitConfigMapValue(t, qa, ns, "settings", "patched")
	waitConfigMapValue(t, qa, ns, "untouched", "one")
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cm, err := qa.CoreV1().ConfigMaps(ns).Get(ctx, "untouched", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cm.Labels["from"] != "patchesFrom" {
			return fmt.Errorf("labels %v: the strategic-merge patch without a target did not apply to the object it names", cm.Labels)
		}
		return nil
	})

	updateConfigMap(t, "e2e-patches-from-patches", patches("edited"))
	waitConfigMapValue(t, qa, ns, "settings", "edited")

	// A patch whose operation cannot apply fails the feature for good; the cluster keeps what it has.
	updateConfigMap(t, "e2e-patches-from-patches", map[string]string{
		"a-value.yaml": "patch: |\n  - op: replace\n    path: /data/missing/deeper\n    value: x\ntarget:\n  kind: ConfigMap\n",
	})
	cs := expectFeature(t, p.Name, "qa", libv1beta1.FeatureResources, libv1beta1.FeatureStatusFailedNonRetriable)
	if msg := failureMessage(cs, libv1beta1.FeatureResources); !strings.Contains(msg, `patchesFrom ConfigMap default/e2e-patches-from-patches key "a-value.yaml"`) {
		t.Errorf("failure message %q does not name the patch", msg)
	}
	waitConfigMapValue(t, qa, ns, "settings", "edited")
}

// TestKustomizationIsFrozenThroughStages: a promotion's kustomization tarball and patchesFrom
// are part of its version. An edit to either reaches the first stage, and the stage behind a
// manual gate keeps the old content until it is approved.
func TestKustomizationIsFrozenThroughStages(t *testing.T) {
	t.Parallel()
	const ns = "e2e-kustomize-promo"
	setKustomizeConfigMap(t, "e2e-kustomize-promo", kustomizeTarball(t, kustomizeApp("v1")))
	labelPatch := func(value string) map[string]string {
		return map[string]string{"label.yaml": "patch: |\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: any\n    labels:\n      version: " +
			value + "\ntarget:\n  kind: ConfigMap\n"}
	}
	createConfigMap(t, "e2e-kustomize-promo-patches", labelPatch("p1"))
	p := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: "e2e-kustomize-promo"}}
	p.Spec.ProfileSpec.KustomizationRefs = []configv1beta1.KustomizationRef{{
		Kind: "ConfigMap", Namespace: "default", Name: "e2e-kustomize-promo", Path: "app", TargetNamespace: ns,
		Values: map[string]string{"Size": "m"},
	}}
	p.Spec.ProfileSpec.PatchesFrom = []configv1beta1.ValueFrom{{Kind: "ConfigMap", Namespace: "default", Name: "e2e-kustomize-promo-patches"}}
	p.Spec.Stages = []configv1beta1.Stage{
		stage("first", "qa", &configv1beta1.Trigger{Manual: &configv1beta1.ManualTrigger{Approved: ptr(false)}}),
		stage("second", "prod", nil),
	}
	createPromotion(t, p)

	qa, prod := managed(t, "qa"), managed(t, "prod")
	expect := func(cs kubernetes.Interface, value, label string) {
		t.Helper()
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "k-settings", metav1.GetOptions{})
			if err != nil {
				return err
			}
			if cm.Data["value"] != value || cm.Labels["version"] != label {
				return fmt.Errorf("value %q, label %q; want %q, %q", cm.Data["value"], cm.Labels["version"], value, label)
			}
			return nil
		})
	}
	awaitingApproval := func() {
		t.Helper()
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			got, err := getPromotion(ctx, t, p.Name)
			if err != nil {
				return err
			}
			if len(got.Status.Stages) == 0 || got.Status.Stages[0].CurrentStatusDescription == nil ||
				!strings.HasPrefix(*got.Status.Stages[0].CurrentStatusDescription, "Paused: Awaiting Manual Approval") {
				return fmt.Errorf("stages %+v", got.Status.Stages)
			}
			return nil
		})
	}
	approve := func() {
		t.Helper()
		updatePromotion(t, p.Name, func(p *configv1beta1.ClusterPromotion) { p.Spec.Stages[0].Trigger.Manual.Approved = ptr(true) })
	}

	t.Cleanup(func() {
		if got, err := getPromotion(context.Background(), t, p.Name); t.Failed() && err == nil {
			t.Logf("promotion conditions: %+v", got.Status.Conditions)
		}
	})
	expect(qa, "v1-m", "p1")
	awaitingApproval()
	approve()
	expect(prod, "v1-m", "p1")
	waitReady(t, p.Name)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := getPromotion(ctx, t, p.Name)
		if err != nil {
			return err
		}
		if a := got.Spec.Stages[0].Trigger.Manual.Approved; a != nil && *a {
			return fmt.Errorf("the approval is not reset")
		}
		return nil
	})

	// A new version: the tarball and the patches change. The first stage gets it; the second
	// keeps the old one until approved.
	setKustomizeConfigMap(t, "e2e-kustomize-promo", kustomizeTarball(t, kustomizeApp("v2")))
	updateConfigMap(t, "e2e-kustomize-promo-patches", labelPatch("p2"))
	expect(qa, "v2-m", "p2")
	awaitingApproval()
	expect(prod, "v1-m", "p1")
	// The stages' profiles refer to frozen copies: the gated one still to the old ones.
	first, second := &configv1beta1.ClusterProfile{}, &configv1beta1.ClusterProfile{}
	c := testenv.Client(t)
	if err := c.Get(t.Context(), client.ObjectKey{Name: p.Name + "-first"}, first); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(t.Context(), client.ObjectKey{Name: p.Name + "-second"}, second); err != nil {
		t.Fatal(err)
	}
	if first.Spec.KustomizationRefs[0].Name == second.Spec.KustomizationRefs[0].Name || first.Spec.PatchesFrom[0].Name == second.Spec.PatchesFrom[0].Name {
		t.Errorf("the gated stage refers to the new content: first %s %s, second %s %s", first.Spec.KustomizationRefs[0].Name,
			first.Spec.PatchesFrom[0].Name, second.Spec.KustomizationRefs[0].Name, second.Spec.PatchesFrom[0].Name)
	}
	approve()
	expect(prod, "v2-m", "p2")
}

func updatePromotion(t *testing.T, name string, mutate func(*configv1beta1.ClusterPromotion)) {
	t.Helper()
	c := testenv.Client(t)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		p := &configv1beta1.ClusterPromotion{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, p); err != nil {
			return err
		}
		mutate(p)
		return c.Update(ctx, p)
	})
}
