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
	"testing"

	chart "helm.sh/helm/v4/pkg/chart/v2"
	rcommon "helm.sh/helm/v4/pkg/release/common"
	release "helm.sh/helm/v4/pkg/release/v1"
	"helm.sh/helm/v4/pkg/storage"
	"helm.sh/helm/v4/pkg/storage/driver"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// testedChart is the chart whose `helm test` passes, or fails with values `tests: {fail: true}`.
func testedChart(t *testing.T, release, namespace string, opts configv1beta1.HelmOptions) configv1beta1.HelmChart {
	return configv1beta1.HelmChart{
		RepositoryURL: repoURL(t), RepositoryName: "local", ChartName: "local/tested", ChartVersion: "1.0.0",
		ReleaseName: release, ReleaseNamespace: namespace, HelmChartAction: configv1beta1.HelmChartActionInstall, Options: &opts,
	}
}

// waitJob waits until a Job on a managed cluster has finished with the condition given
// (Complete or Failed).
func waitJob(t *testing.T, cs kubernetes.Interface, ns, name string, want batchv1.JobConditionType) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		job, err := cs.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range job.Status.Conditions {
			if c.Type == want && c.Status == corev1.ConditionTrue {
				return nil
			}
		}
		return fmt.Errorf("job %s/%s has not %s: %+v", ns, name, want, job.Status.Conditions)
	})
}

// TestHelmRunTests: with runTests, a failing chart test fails the deployment with the test's
// name, and the deployment succeeds once the test passes.
func TestHelmRunTests(t *testing.T) {
	t.Parallel()
	const ns = "e2e-helm-tests"
	p := sveltosProfile("e2e-helm-tests", map[string]string{"env": "qa"})
	hc := testedChart(t, "checked", ns, configv1beta1.HelmOptions{RunTests: true})
	hc.Values = "tests: {fail: true}\n"
	p.Spec.HelmCharts = []configv1beta1.HelmChart{hc}
	createProfile(t, p)
	qa := managed(t, "qa")

	cs := expectFeature(t, p.Name, "qa", libv1beta1.FeatureHelm, libv1beta1.FeatureStatusFailed)
	if msg := failureMessage(cs, libv1beta1.FeatureHelm); !strings.Contains(msg, "test checked-check (Job) failed") {
		t.Errorf("failure message %q should name the failing test", msg)
	}
	waitJob(t, qa, ns, "checked-check", batchv1.JobFailed)

	updateProfile(t, p.Name, func(p *configv1beta1.ClusterProfile) { p.Spec.HelmCharts[0].Values = "" })
	expectFeature(t, p.Name, "qa", libv1beta1.FeatureHelm, libv1beta1.FeatureStatusProvisioned)
	waitJob(t, qa, ns, "checked-check", batchv1.JobComplete)
}

// TestHelmRecoverAfterConsecutiveFailures: a failed install left behind whose record blocks
// every upgrade is uninstalled and installed afresh after that many failures in a row.
func TestHelmRecoverAfterConsecutiveFailures(t *testing.T) {
	t.Parallel()
	const ns = "e2e-helm-recover"
	qa := managed(t, "qa")
	if _, err := qa.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	releases := storage.Init(driver.NewSecrets(qa.CoreV1().Secrets(ns)))
	// The record of an install that failed, naming a kind the cluster does not serve: Helm
	// cannot build the release's current objects, so every upgrade of it fails.
	stale := &release.Release{
		Name: "stuck", Namespace: ns, Version: 1,
		Info:     &release.Info{Status: rcommon.StatusFailed, Description: "install failed"},
		Chart:    &chart.Chart{Metadata: &chart.Metadata{Name: "tested", Version: "1.0.0", APIVersion: "v2"}},
		Manifest: "apiVersion: gone.example.com/v1\nkind: Gone\nmetadata:\n  name: x\n",
	}
	if err := releases.Create(stale); err != nil {
		t.Fatal(err)
	}

	p := sveltosProfile("e2e-helm-recover", map[string]string{"env": "qa"})
	p.Spec.HelmCharts = []configv1beta1.HelmChart{testedChart(t, "stuck", ns, configv1beta1.HelmOptions{
		// takeOwnership: the stale record was not written by Stagecoach.
		InstallOptions: configv1beta1.HelmInstallOptions{RecoverAfterConsecutiveFailures: 2, TakeOwnership: true},
	})}
	createProfile(t, p)

	expectFeature(t, p.Name, "qa", libv1beta1.FeatureHelm, libv1beta1.FeatureStatusProvisioned)
	waitAvailable(t, qa, ns, "stuck")
	last, err := releases.Last("stuck")
	if err != nil {
		t.Fatal(err)
	}
	rel := last.(*release.Release)
	// An upgrade over the stale record would be revision 2: revision 1 deployed is a new install.
	if rel.Version != 1 || rel.Info.Status != rcommon.StatusDeployed {
		t.Fatalf("release stuck is revision %d, %s; want revision 1 deployed by a new install", rel.Version, rel.Info.Status)
	}
}
