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
	"bytes"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

func values(t *testing.T, text string) map[string]any {
	t.Helper()
	v, err := ParseValues(text)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func expectRelease(t *testing.T, rel Release, act Action, revision int, version string) {
	t.Helper()
	if rel.Action != act || rel.Revision != revision || rel.ChartVersion != version || rel.Status != "deployed" {
		t.Fatalf("release %+v; want action %s, revision %d, chart version %s, deployed", rel, act, revision, version)
	}
}

// TestReleaseLifecycle walks one release through install, no-op, upgrades, a dry run, bad
// values, a conflict and uninstall on a real managed cluster.
func TestReleaseLifecycle(t *testing.T) {
	r := remote(t, 0)
	d := newDeployer(t)
	ctx := t.Context()
	const owner = "lifecycle-a"
	hc := webapp(testEnv.repoURL, "1.0.0")
	hc.ReleaseName, hc.ReleaseNamespace = "web", "lifecycle"
	hc.Options = &configv1beta1.HelmOptions{Wait: true, Timeout: &metav1.Duration{Duration: 2 * time.Minute}}

	rel, err := d.Deploy(ctx, r, owner, hc, nil)
	if err != nil {
		t.Fatal(err)
	}
	expectRelease(t, rel, ActionInstalled, 1, "1.0.0")
	if want := []string{"ConfigMap.v1.", "Deployment.v1.apps", "Service.v1."}; !slices.Equal(rel.GVKs, want) {
		t.Errorf("GVKs %v, want %v", rel.GVKs, want)
	}
	if rel.Chart != "webapp" || rel.AppVersion != "1.0.0" || len(rel.ValuesHash) != 32 {
		t.Errorf("release summary %+v", rel)
	}
	// wait: the install returned only once the Deployment was ready.
	if dep := getDeployment(t, r, "lifecycle", "web"); dep.Status.AvailableReplicas != 2 {
		t.Errorf("Deploy with wait returned with %d/2 replicas available", dep.Status.AvailableReplicas)
	}
	secrets := releaseSecrets(t, r, "lifecycle", "web")
	if len(secrets) != 1 || secrets[0].Labels[OwnerLabel] != owner || secrets[0].Labels[SpecHashLabel] == "" {
		t.Fatalf("release records %v: want one, labelled with owner and spec hash", secrets)
	}

	rel, err = d.Deploy(ctx, r, owner, hc, nil)
	if err != nil {
		t.Fatal(err)
	}
	expectRelease(t, rel, ActionUnchanged, 1, "1.0.0")

	hc.ChartVersion = "1.1.0"
	rel, err = d.Deploy(ctx, r, owner, hc, nil)
	if err != nil {
		t.Fatal(err)
	}
	expectRelease(t, rel, ActionUpgraded, 2, "1.1.0")
	cm, err := r.Core.ConfigMaps("lifecycle").Get(ctx, "web-info", metav1.GetOptions{})
	if err != nil || cm.Data["chartVersion"] != "1.1.0" {
		t.Fatalf("ConfigMap after upgrade: %v %v", cm.Data, err)
	}

	rel, err = d.Deploy(ctx, r, owner, hc, values(t, "replicas: 3"))
	if err != nil {
		t.Fatal(err)
	}
	expectRelease(t, rel, ActionUpgraded, 3, "1.1.0")
	deploymentAvailable(t, r, "lifecycle", "web", 3)
	if n := len(releaseSecrets(t, r, "lifecycle", "web")); n != DefaultMaxHistory {
		t.Errorf("%d release records kept, want maxHistory %d", n, DefaultMaxHistory)
	}

	t.Run("dry run", func(t *testing.T) {
		next := hc
		next.ChartVersion = "2.0.0"
		plan, err := d.DryRun(ctx, r, owner, next, values(t, "replicas: 3"))
		if err != nil {
			t.Fatal(err)
		}
		if plan.Action != PlanUpgrade || plan.FromVersion != "1.1.0" || plan.ToVersion != "2.0.0" ||
			!strings.Contains(plan.Diff, `+  chartVersion: "2.0.0"`) {
			t.Fatalf("plan %+v", plan)
		}
		plan, err = d.DryRun(ctx, r, owner, hc, values(t, "replicas: 3"))
		if err != nil || plan.Action != PlanNoChange || plan.Diff != "" {
			t.Fatalf("plan of the deployed spec: %+v, %v", plan, err)
		}
		if last := releaseSecrets(t, r, "lifecycle", "web"); len(last) != DefaultMaxHistory {
			t.Fatalf("the dry run changed the release records: %d", len(last))
		}
	})

	t.Run("bad values leave the release alone", func(t *testing.T) {
		_, err := d.Deploy(ctx, r, owner, hc, values(t, "replicas: true"))
		t.Log(err)
		if !errors.Is(err, ErrInvalidValues) || !IsPermanent(err) || !strings.Contains(err.Error(), "replicas") ||
			!strings.Contains(err.Error(), "integer") {
			t.Fatalf("error %v: want a permanent invalid-values error naming replicas", err)
		}
		rel, err := d.Deploy(ctx, r, owner, hc, values(t, "replicas: 3"))
		if err != nil {
			t.Fatal(err)
		}
		expectRelease(t, rel, ActionUnchanged, 3, "1.1.0")
	})

	t.Run("another owner gets a conflict", func(t *testing.T) {
		_, err := d.Deploy(ctx, r, "lifecycle-b", hc, nil)
		var conflict *ConflictError
		if !errors.As(err, &conflict) || conflict.Owner != owner || IsPermanent(err) ||
			err.Error() != "helm release lifecycle/web is managed by lifecycle-a" {
			t.Fatalf("error %v: want a conflict naming %s", err, owner)
		}
		if err := d.Uninstall(ctx, r, "lifecycle-b", hc); !IsConflict(err) {
			t.Fatalf("uninstall by another owner: %v", err)
		}
		if _, err := d.Deploy(ctx, r, "lifecycle-b", hc, nil, TakeOver()); err != nil {
			t.Fatalf("take over: %v", err)
		}
		if _, err := d.Deploy(ctx, r, owner, hc, nil, TakeOver()); err != nil {
			t.Fatalf("take back: %v", err)
		}
	})

	if err := d.Uninstall(ctx, r, owner, hc); err != nil {
		t.Fatal(err)
	}
	if n := len(releaseSecrets(t, r, "lifecycle", "web")); n != 0 {
		t.Errorf("%d release records left after uninstall", n)
	}
	eventually(t, time.Minute, func() string {
		_, err := appsClient(t, r).Deployments("lifecycle").Get(ctx, "web", metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			return "the Deployment is still there"
		}
		return ""
	})
	if err := d.Uninstall(ctx, r, owner, hc); err != nil {
		t.Fatalf("uninstalling a release that is gone: %v", err)
	}
}

// TestUserErrors: a missing version, an unreachable repository and an unowned release each give
// an error a person can act on, and nothing is created on the cluster.
func TestUserErrors(t *testing.T) {
	r := remote(t, 0)
	d := newDeployer(t)
	ctx := t.Context()

	hc := webapp(testEnv.repoURL, "9.9.9")
	hc.ReleaseNamespace = "user-errors"
	_, err := d.Deploy(ctx, r, "errors", hc, nil)
	t.Log(err)
	if !errors.Is(err, ErrVersionNotFound) || !IsPermanent(err) || !strings.Contains(err.Error(), "available: 2.0.0, 1.1.0, 1.0.0") {
		t.Errorf("missing version: %v", err)
	}

	hc = webapp("http://127.0.0.1:1/", "1.0.0")
	hc.ReleaseNamespace = "user-errors"
	_, err = d.Deploy(ctx, r, "errors", hc, nil)
	t.Log(err)
	if err == nil || IsPermanent(err) || !strings.Contains(err.Error(), "repository http://127.0.0.1:1/ did not answer") {
		t.Errorf("unreachable repository: %v", err)
	}
	if _, err := r.Core.Namespaces().Get(ctx, "user-errors", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a failed deploy created the release namespace: %v", err)
	}

	// A manifest with a field the API server does not know is refused, by the server itself
	// (serverValidatedFactory skips the client-side pass on a server that validates fields).
	hc = webapp(testEnv.repoURL, "1.0.0")
	hc.ReleaseName, hc.ReleaseNamespace = "unknown-field", "user-errors-fields"
	_, err = d.Deploy(ctx, r, "errors", hc, nil, WithPatches(addField{}, "bogus"))
	t.Log(err)
	if err == nil || !strings.Contains(err.Error(), ".spec.bogus: field not declared in schema") {
		t.Errorf("a Deployment with an unknown field: %v", err)
	}
}

// addField adds a field no Deployment has to the chart's Deployment.
type addField struct{}

func (addField) Run(rendered *bytes.Buffer) (*bytes.Buffer, error) {
	return bytes.NewBufferString(strings.Replace(rendered.String(), "\nspec:\n", "\nspec:\n  bogus: true\n", 1)), nil
}

// TestCacheSharedAcrossClusters: the same chart deployed to two clusters at once, with one
// values map, is downloaded once.
func TestCacheSharedAcrossClusters(t *testing.T) {
	a, b := remote(t, 0), remote(t, 1)
	repo := serveCounting(t)
	d := newDeployer(t)
	hc := webapp(repo.url, "2.0.0")
	hc.ReleaseNamespace = "shared-cache"
	shared := values(t, "replicas: 1\nservice: {port: 8080}\n")
	var wg sync.WaitGroup
	for _, r := range []*fleet.Remote{a, b} {
		wg.Go(func() {
			rel, err := d.Deploy(t.Context(), r, "shared", hc, shared)
			if err != nil || rel.Action != ActionInstalled || rel.ChartVersion != "2.0.0" {
				t.Errorf("%s: %+v, %v", r.Ref, rel, err)
			}
		})
	}
	wg.Wait()
	if i, c := repo.hits("/index.yaml"), repo.hits("/webapp-2.0.0.tgz"); i != 1 || c != 1 {
		t.Errorf("index fetched %d times and archive %d times for two clusters, want 1 and 1", i, c)
	}
	for _, r := range []*fleet.Remote{a, b} {
		deploymentAvailable(t, r, "shared-cache", "web", 1)
		if err := d.Uninstall(t.Context(), r, "shared", hc); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSeedStandIns installs the kyverno and cert-manager stand-ins as the seeds write them.
func TestSeedStandIns(t *testing.T) {
	r := remote(t, 1)
	d := newDeployer(t)
	ctx := t.Context()

	kyverno := configv1beta1.HelmChart{RepositoryURL: testEnv.repoURL, RepositoryName: "kyverno", ChartName: "kyverno/kyverno",
		ChartVersion: "3.5.2", ReleaseName: "kyverno-latest", ReleaseNamespace: "kyverno", HelmChartAction: configv1beta1.HelmChartActionInstall}
	rel, err := d.Deploy(ctx, r, "kyverno-rollout-auto-dev", kyverno, nil)
	if err != nil {
		t.Fatal(err)
	}
	expectRelease(t, rel, ActionInstalled, 1, "3.5.2")
	if rel.AppVersion != "v1.15.2" {
		t.Errorf("appVersion %s, want v1.15.2", rel.AppVersion)
	}
	for _, c := range []string{"admission", "background", "cleanup", "reports"} {
		deploymentAvailable(t, r, "kyverno", "kyverno-"+c+"-controller", 1)
	}
	kyverno.ChartVersion = "3.6.2"
	_, err = d.Deploy(ctx, r, "kyverno-rollout-auto-dev", kyverno, values(t, "admissionController:\n  replicas: true\n"))
	t.Log(err)
	if !errors.Is(err, ErrInvalidValues) || !strings.Contains(err.Error(), "admissionController/replicas") {
		t.Fatalf("seed 002's bad values: %v", err)
	}
	rel, err = d.Deploy(ctx, r, "kyverno-rollout-auto-dev", kyverno, values(t, "admissionController:\n  replicas: 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	expectRelease(t, rel, ActionUpgraded, 2, "3.6.2")
	deploymentAvailable(t, r, "kyverno", "kyverno-admission-controller", 2)

	certManager := configv1beta1.HelmChart{RepositoryURL: testEnv.repoURL, RepositoryName: "jetstack", ChartName: "jetstack/cert-manager",
		ChartVersion: "v1.19.1", ReleaseName: "cert-manager", ReleaseNamespace: "cert-manager"}
	rel, err = d.Deploy(ctx, r, "cert-manager-rollout-auto-dev", certManager, values(t, "installCRDs: true"))
	if err != nil {
		t.Fatal(err)
	}
	expectRelease(t, rel, ActionInstalled, 1, "v1.19.1")
	for _, name := range []string{"cert-manager", "cert-manager-webhook", "cert-manager-cainjector"} {
		deploymentAvailable(t, r, "cert-manager", name, 1)
	}
	crd, err := r.Dynamic.Resource(crdResource).Get(ctx, "clusterissuers.cert-manager.io", metav1.GetOptions{})
	if err != nil || crd.GetName() == "" {
		t.Fatalf("ClusterIssuer CRD: %v", err)
	}
}
