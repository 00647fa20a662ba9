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

package helm

import (
	"strings"
	"testing"

	"github.com/go-logr/logr/testr"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	rcommon "helm.sh/helm/v4/pkg/release/common"
	release "helm.sh/helm/v4/pkg/release/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/restart"
)

func tested(repoURL, version, namespace string, opts configv1beta1.HelmOptions) configv1beta1.HelmChart {
	return configv1beta1.HelmChart{RepositoryURL: repoURL, RepositoryName: "local", ChartName: "local/tested",
		ChartVersion: version, ReleaseName: "tested", ReleaseNamespace: namespace, Options: &opts}
}

// TestRunTests: with runTests, a passing chart test lets the deployment succeed; a failing one
// fails it naming the test, again at the next Deploy of the same spec, until the test passes.
func TestRunTests(t *testing.T) {
	r := remote(t, 1)
	d := newDeployer(t)
	hc := tested(testEnv.repoURL, "1.0.0", "runtests", configv1beta1.HelmOptions{RunTests: true})
	if _, err := d.Deploy(t.Context(), r, "runtests", hc, nil); err != nil {
		t.Fatalf("deploy with a passing test: %v", err)
	}
	failing := values(t, "tests: {fail: true}")
	for i := range 2 {
		rel, err := d.Deploy(t.Context(), r, "runtests", hc, failing)
		if err == nil || !strings.Contains(err.Error(), "test tested-check (Job) failed") {
			t.Fatalf("deploy %d with a failing test: %v; want the test named", i, err)
		}
		if rel.Revision != 2 {
			t.Fatalf("deploy %d: revision %d, want 2 (a failing test is run again, the release is not upgraded again)", i, rel.Revision)
		}
	}
	rel, err := d.Deploy(t.Context(), r, "runtests", hc, nil)
	if err != nil || rel.Action != ActionUpgraded {
		t.Fatalf("deploy with the test passing again: %+v, %v", rel, err)
	}
}

// TestRecoverAfterConsecutiveFailures: a release whose stale failed install blocks every
// upgrade is uninstalled and installed afresh once the feature failed that many times.
func TestRecoverAfterConsecutiveFailures(t *testing.T) {
	r := remote(t, 1)
	d := newDeployer(t)
	opts := configv1beta1.HelmOptions{InstallOptions: configv1beta1.HelmInstallOptions{RecoverAfterConsecutiveFailures: 2}}
	hc := tested(testEnv.repoURL, "1.0.0", "recover", opts)
	cfg, err := actionConfig(r, "recover", testr.New(t))
	if err != nil {
		t.Fatal(err)
	}
	// A failed install whose record names a kind the cluster does not serve: Helm cannot build
	// the release's current objects, so upgrading it fails every time.
	stale := &release.Release{
		Name: "tested", Namespace: "recover", Version: 1,
		Info:     &release.Info{Status: rcommon.StatusFailed, Description: "install failed"},
		Manifest: "apiVersion: gone.example.com/v1\nkind: Gone\nmetadata:\n  name: x\n  namespace: recover\n",
		Labels:   map[string]string{OwnerLabel: "recover"},
		Chart:    &chart.Chart{Metadata: &chart.Metadata{Name: "tested", Version: "1.0.0", APIVersion: "v2"}},
	}
	if _, err := r.Core.Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "recover"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Releases.Create(stale); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Deploy(t.Context(), r, "recover", hc, nil, ConsecutiveFailures(1)); err == nil {
		t.Fatal("upgrading over the stale release succeeded; the test needs it to fail")
	}
	rel, err := d.Deploy(t.Context(), r, "recover", hc, nil, ConsecutiveFailures(2))
	if err != nil {
		t.Fatalf("deploy after 2 failures: %v", err)
	}
	expectRelease(t, rel, ActionInstalled, 1, "1.0.0")
}

// TestRecreateAfterRollback: upgradeOptions.recreate restarts the workloads of the release an
// atomic upgrade rolled back to.
func TestRecreateAfterRollback(t *testing.T) {
	r := remote(t, 1)
	d := newDeployer(t)
	opts := configv1beta1.HelmOptions{Atomic: true, UpgradeOptions: configv1beta1.HelmUpgradeOptions{Recreate: true}}
	hc := tested(testEnv.repoURL, "1.0.0", "recreate", opts)
	if _, err := d.Deploy(t.Context(), r, "recreate", hc, nil); err != nil {
		t.Fatal(err)
	}
	hc.ChartVersion = "1.1.0"
	if _, err := d.Deploy(t.Context(), r, "recreate", hc, values(t, "failUpgrade: true")); err == nil {
		t.Fatal("an upgrade whose post-upgrade hook fails succeeded")
	}
	w, err := restart.Get(t.Context(), r.Dynamic, "Deployment", "recreate", "tested")
	if err != nil {
		t.Fatal(err)
	}
	if w.Template.Annotations[restart.RestartedAtAnnotation] == "" {
		t.Fatalf("the rolled back Deployment was not restarted: pod template annotations %v", w.Template.Annotations)
	}
}
