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

package main

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/fleetv1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
	"github.com/stagecoach-dev/stagecoach/internal/view"
)

// TestDashboardRetry retries from the dashboard, in headless Chromium: a promotion whose stage
// failed on dev (a quota) offers to retry the stage once the quota is lifted,
// and goes through; a run that failed on qa (a quota) offers to retry from its failed stage, and
// the page of the new run shows it succeed.
func TestDashboardRetry(t *testing.T) {
	browser := chromium(t)
	c := testenv.Client(t)
	content := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dashretry-v1", Namespace: "default"}, Data: map[string]string{
		"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: dashretry\ndata:\n  value: v1\n"}}
	if err := c.Create(t.Context(), content); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), content) })
	createNamespace(t, "dev", "dashretry", true)
	p := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: "dashretry"}}
	p.Spec.ProfileSpec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: "ConfigMap", Namespace: "default", Name: content.Name}}
	p.Spec.ProfileSpec.MaxConsecutiveFailures = ptr.To[uint](1)
	only := configv1beta1.Stage{Name: "only", MaxFailures: ptr.To(intstr.FromInt32(0))}
	only.ClusterSelector.MatchLabels = map[string]string{"env": "dev"}
	p.Spec.Stages = []configv1beta1.Stage{only}
	if err := c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deletePromotion(t, c, p) })
	waitState(t, view.Failed, "promotion", "dashretry")

	base := serveDashboard(t, testenv.Fleet.Management.Config, c)
	ctx := tab(t, browser)
	until := func(what, predicate string) {
		t.Helper()
		untilPage(t, ctx, what, predicate)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/promotions/dashretry")); err != nil {
		t.Fatal(err)
	}
	until("the page offers to retry the failed stage", `document.getElementById("action-retry")?.textContent === "Retry stage only"`)
	liftQuota(t, "dev", "dashretry")
	clickPage(t, ctx, "action-retry")
	until("the page says what the retry did", `document.querySelector(".flash")?.textContent.startsWith("retrying stage only of ClusterPromotion dashretry on version ")`)
	until("the promotion goes through", `document.querySelector("#title [data-state]")?.dataset.state === "Succeeded" && !document.getElementById("action-retry")`)
	waitSettings(t, "dev", "dashretry", "v1")

	// A run failed at its only stage, retried from its page.
	k := fleetv1.Client(c)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "dashretryrun"}}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: "dashretryrun"}, Data: map[string]string{"value": "v1"}}
	strategy := &placementv1beta1.ClusterStagedUpdateStrategy{ObjectMeta: metav1.ObjectMeta{Name: "dashretryrun"}}
	strategy.Spec.Stages = []placementv1beta1.StageConfig{{Name: "all", LabelSelector: &metav1.LabelSelector{}, MaxFailures: ptr.To(intstr.FromInt32(0))}}
	crp := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "dashretryrun"}}
	crp.Spec.ResourceSelectors = []placementv1beta1.ResourceSelectorTerm{{Group: "", Version: "v1", Kind: "Namespace", Name: "dashretryrun"}}
	crp.Spec.Policy = &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickAllPlacementType}
	crp.Spec.Strategy.Type = placementv1beta1.ExternalRolloutStrategyType
	createNamespace(t, "qa", "dashretryrun", true)
	for _, obj := range []client.Object{ns, cm, strategy, crp} {
		if err := k.Create(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = k.Delete(context.Background(), obj) })
	}
	t.Cleanup(func() { // the runs, the one the dashboard creates included
		var runs placementv1beta1.ClusterStagedUpdateRunList
		_ = k.List(context.Background(), &runs)
		for i := range runs.Items {
			if runs.Items[i].Spec.PlacementName == "dashretryrun" {
				_ = k.Delete(context.Background(), &runs.Items[i])
			}
		}
	})
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		return k.Get(ctx, client.ObjectKey{Name: "dashretryrun-0-snapshot"}, &placementv1beta1.ClusterResourceSnapshot{})
	})
	run := &placementv1beta1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: "dashretryrun"}}
	run.Spec.PlacementName, run.Spec.StagedUpdateStrategyName = "dashretryrun", "dashretryrun"
	if err := k.Create(t.Context(), run); err != nil {
		t.Fatal(err)
	}
	waitState(t, view.Failed, "run", "dashretryrun")
	liftQuota(t, "qa", "dashretryrun")
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/runs/dashretryrun")); err != nil {
		t.Fatal(err)
	}
	until("the run's page offers to retry from its failed stage", `document.getElementById("action-retry")?.textContent === "Retry from stage all"`)
	clickPage(t, ctx, "action-retry")
	until("the page of the new run says what the retry did", `location.pathname.startsWith("/runs/dashretryrun-retry-") &&
		/^created ClusterStagedUpdateRun dashretryrun-retry-\w+: it resumes dashretryrun from stage all /.test(document.querySelector(".flash")?.textContent)`)
	until("the new run succeeds", `document.querySelector("#title [data-state]")?.dataset.state === "Succeeded"`)
	waitSettings(t, "qa", "dashretryrun", "v1")
}
