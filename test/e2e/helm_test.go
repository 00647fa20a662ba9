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
	"fmt"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/chartrepo"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// chartRepo serves testdata/charts once for the whole test binary.
var chartRepo = sync.OnceValues(func() (string, error) {
	url, _, err := chartrepo.Serve(context.Background(), "../../testdata/charts")
	return url, err
})

func repoURL(t *testing.T) string {
	t.Helper()
	url, err := chartRepo()
	if err != nil {
		t.Fatal(err)
	}
	return url
}

// webapp is the test chart as a profile writes it, in the seeds' `repoName/chart` form.
func webapp(t *testing.T, release, namespace, version string) configv1beta1.HelmChart {
	return configv1beta1.HelmChart{
		RepositoryURL: repoURL(t), RepositoryName: "local", ChartName: "local/webapp", ChartVersion: version,
		ReleaseName: release, ReleaseNamespace: namespace, HelmChartAction: configv1beta1.HelmChartActionInstall,
	}
}

// waitRelease waits until the release's info ConfigMap on a cluster shows the chart version,
// or, with version "", until the release is gone.
func waitRelease(t *testing.T, cs kubernetes.Interface, ns, release, version string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, release+"-info", metav1.GetOptions{})
		switch {
		case version == "" && apierrors.IsNotFound(err):
			return nil
		case err != nil:
			return err
		case cm.Data["chartVersion"] != version:
			return fmt.Errorf("release %s/%s runs chart %s, want %s", ns, release, cm.Data["chartVersion"], version)
		}
		return nil
	})
}

// TestHelmInstallUpgradeUninstall installs a chart on the matching clusters only, upgrades it
// and changes its values everywhere, then uninstalls it.
func TestHelmInstallUpgradeUninstall(t *testing.T) {
	t.Parallel()
	const ns = "e2e-helm"
	p := sveltosProfile("e2e-helm", nil)
	p.Spec.ClusterSelector.MatchExpressions = []metav1.LabelSelectorRequirement{
		{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: []string{"dev", "staging"}},
	}
	p.Spec.HelmCharts = []configv1beta1.HelmChart{webapp(t, "web", ns, "1.0.0")}
	createProfile(t, p)

	clusters := []string{"dev", "staging"}
	for _, c := range clusters {
		cs := expectFeature(t, p.Name, c, libv1beta1.FeatureHelm, libv1beta1.FeatureStatusProvisioned)
		waitRelease(t, managed(t, c), ns, "web", "1.0.0")
		waitAvailable(t, managed(t, c), ns, "web")
		if rs := cs.Status.HelmReleaseSummaries; len(rs) != 1 || rs[0].Status != configv1beta1.HelmChartStatusManaging || len(rs[0].ValuesHash) == 0 {
			t.Errorf("%s: helmReleaseSummaries %+v", c, rs)
		}
	}
	if _, err := managed(t, "prod").CoreV1().Namespaces().Get(t.Context(), ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("prod, which does not match, got namespace %s (%v)", ns, err)
	}

	updateProfile(t, p.Name, func(p *configv1beta1.ClusterProfile) { p.Spec.HelmCharts[0].ChartVersion = "1.1.0" })
	for _, c := range clusters {
		waitRelease(t, managed(t, c), ns, "web", "1.1.0")
	}
	updateProfile(t, p.Name, func(p *configv1beta1.ClusterProfile) { p.Spec.HelmCharts[0].Values = "replicas: 3\n" })
	for _, c := range clusters {
		cs := managed(t, c)
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			d, err := cs.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
			if err != nil {
				return err
			}
			if *d.Spec.Replicas != 3 {
				return fmt.Errorf("%s: replicas %d, want 3", c, *d.Spec.Replicas)
			}
			return nil
		})
	}

	updateProfile(t, p.Name, func(p *configv1beta1.ClusterProfile) {
		p.Spec.HelmCharts[0].HelmChartAction = configv1beta1.HelmChartActionUninstall
	})
	for _, c := range clusters {
		waitRelease(t, managed(t, c), ns, "web", "")
	}
}

// TestHelmBadInput: a chart version that does not exist and a repository that does not answer
// each give a clear message, and the release already deployed keeps running.
func TestHelmBadInput(t *testing.T) {
	t.Parallel()
	const ns = "e2e-helm-bad"
	p := sveltosProfile("e2e-helm-bad", map[string]string{"env": "prod"})
	p.Spec.HelmCharts = []configv1beta1.HelmChart{webapp(t, "web", ns, "1.0.0")}
	createProfile(t, p)
	prod := managed(t, "prod")
	waitRelease(t, prod, ns, "web", "1.0.0")

	updateProfile(t, p.Name, func(p *configv1beta1.ClusterProfile) { p.Spec.HelmCharts[0].ChartVersion = "9.9.9" })
	cs := expectFeature(t, p.Name, "prod", libv1beta1.FeatureHelm, libv1beta1.FeatureStatusFailedNonRetriable)
	if msg := failureMessage(cs, libv1beta1.FeatureHelm); !strings.Contains(msg, "9.9.9") || !strings.Contains(msg, "1.1.0") {
		t.Errorf("failure message %q should name the missing version and the available ones", msg)
	}
	waitRelease(t, prod, ns, "web", "1.0.0")

	updateProfile(t, p.Name, func(p *configv1beta1.ClusterProfile) {
		p.Spec.HelmCharts[0].ChartVersion = "1.0.0"
		p.Spec.HelmCharts[0].RepositoryURL = "http://127.0.0.1:1/charts/"
	})
	cs = expectFeature(t, p.Name, "prod", libv1beta1.FeatureHelm, libv1beta1.FeatureStatusFailed)
	if msg := failureMessage(cs, libv1beta1.FeatureHelm); !strings.Contains(msg, "127.0.0.1:1") {
		t.Errorf("failure message %q should name the repository", msg)
	}
	waitRelease(t, prod, ns, "web", "1.0.0")
}
