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
	"errors"
	"strings"
	"testing"

	"github.com/go-logr/logr/testr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/chartrepo"
)

// TestUnlockPendingRelease: a release a crash left pending-upgrade is marked failed and the
// next Deploy upgrades it.
func TestUnlockPendingRelease(t *testing.T) {
	r := remote(t, 1)
	d := newDeployer(t)
	hc := webapp(testEnv.repoURL, "1.0.0")
	hc.ReleaseNamespace = "pending"
	if _, err := d.Deploy(t.Context(), r, "pending", hc, nil); err != nil {
		t.Fatal(err)
	}
	cfg, err := actionConfig(r, "pending", testr.New(t))
	if err != nil {
		t.Fatal(err)
	}
	last, err := lastRelease(cfg, "web")
	if err != nil || last == nil {
		t.Fatal(err)
	}
	last.SetStatus("pending-upgrade", "a controller died here")
	if err := cfg.Releases.Update(last); err != nil {
		t.Fatal(err)
	}
	hc.ChartVersion = "1.1.0"
	rel, err := d.Deploy(t.Context(), r, "pending", hc, nil)
	if err != nil {
		t.Fatalf("deploy over a pending release: %v", err)
	}
	expectRelease(t, rel, ActionUpgraded, 2, "1.1.0")
	if err := d.Uninstall(t.Context(), r, "pending", hc); err != nil {
		t.Fatal(err)
	}
}

// TestAdoptUnownedRelease: a release installed by someone else is refused, and adopted with
// takeOwnership.
func TestAdoptUnownedRelease(t *testing.T) {
	r := remote(t, 1)
	d := newDeployer(t)
	hc := webapp(testEnv.repoURL, "1.0.0")
	hc.ReleaseNamespace = "adopt"
	ch, err := d.cache.Fetch(t.Context(), hc, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := actionConfig(r, "adopt", testr.New(t))
	if err != nil {
		t.Fatal(err)
	}
	in := resolveOptions(hc).newInstall(cfg, hc, "x")
	in.Labels = nil // as the helm CLI would install it
	if _, err := in.RunWithContext(t.Context(), ch, nil); err != nil {
		t.Fatal(err)
	}
	_, err = d.Deploy(t.Context(), r, "adopter", hc, nil)
	var conflict *ConflictError
	if !errors.As(err, &conflict) || conflict.Owner != "" || !strings.Contains(err.Error(), "not managed by Stagecoach") {
		t.Fatalf("unowned release: %v", err)
	}
	hc.Options = &configv1beta1.HelmOptions{UpgradeOptions: configv1beta1.HelmUpgradeOptions{TakeOwnership: true}}
	rel, err := d.Deploy(t.Context(), r, "adopter", hc, nil)
	if err != nil {
		t.Fatal(err)
	}
	expectRelease(t, rel, ActionUpgraded, 2, "1.0.0")
	if err := d.Uninstall(t.Context(), r, "adopter", hc); err != nil {
		t.Fatal(err)
	}
}

// TestDeployFromOCI deploys a chart pulled from a plain-HTTP OCI registry, as
// registryCredentialsConfig.plainHTTP asks.
func TestDeployFromOCI(t *testing.T) {
	r := remote(t, 1)
	url, stop, err := chartrepo.ServeOCI(t.Context(), "../../../testdata/charts")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	d := newDeployer(t)
	hc := configv1beta1.HelmChart{RepositoryURL: url, RepositoryName: "charts", ChartName: "charts/webapp", ChartVersion: "1.1.0",
		ReleaseName: "web", ReleaseNamespace: "oci", RegistryCredentialsConfig: &configv1beta1.RegistryCredentialsConfig{PlainHTTP: true},
		// enableClientCache: the registry client keeps its tokens between the requests of a pull.
		Options: &configv1beta1.HelmOptions{EnableClientCache: true}}
	rel, err := d.Deploy(t.Context(), r, "oci", hc, nil)
	if err != nil {
		t.Fatal(err)
	}
	expectRelease(t, rel, ActionInstalled, 1, "1.1.0")
	if err := d.Uninstall(t.Context(), r, "oci", hc); err != nil {
		t.Fatal(err)
	}
}

// TestPlanInstallAndUninstall: a dry run of a new release plans an install and creates nothing;
// a chart whose action is Uninstall plans, then performs, the removal.
func TestPlanInstallAndUninstall(t *testing.T) {
	r := remote(t, 0)
	d := newDeployer(t)
	ctx := t.Context()
	hc := webapp(testEnv.repoURL, "1.0.0")
	hc.ReleaseNamespace = "plans"

	plan, err := d.DryRun(ctx, r, "plans", hc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Action != PlanInstall || plan.FromVersion != "" || plan.ToVersion != "1.0.0" ||
		!strings.Contains(plan.Diff, "+++ b/Deployment/") || !strings.Contains(plan.Diff, "+  replicas: 2") {
		t.Fatalf("plan %+v", plan)
	}
	if _, err := r.Core.Namespaces().Get(ctx, "plans", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the dry run created the namespace: %v", err)
	}

	if _, err := d.Deploy(ctx, r, "plans", hc, nil); err != nil {
		t.Fatal(err)
	}
	hc.HelmChartAction = configv1beta1.HelmChartActionUninstall
	plan, err = d.DryRun(ctx, r, "plans", hc, nil)
	if err != nil || plan.Action != PlanUninstall || !strings.Contains(plan.Diff, "+++ /dev/null") {
		t.Fatalf("uninstall plan %+v, %v", plan, err)
	}
	rel, err := d.Deploy(ctx, r, "plans", hc, nil)
	if err != nil || rel.Action != ActionUninstalled {
		t.Fatalf("deploy of an Uninstall chart: %+v, %v", rel, err)
	}
	if n := len(releaseSecrets(t, r, "plans", "web")); n != 0 {
		t.Fatalf("%d release records left", n)
	}
	plan, err = d.DryRun(ctx, r, "plans", hc, nil)
	if err != nil || plan.Action != PlanNoChange {
		t.Fatalf("plan to uninstall what is gone: %+v, %v", plan, err)
	}
}
