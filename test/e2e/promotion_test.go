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
	"time"

	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

func promotion(name, cm string, stages ...configv1beta1.Stage) *configv1beta1.ClusterPromotion {
	p := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: name}}
	p.Spec.ProfileSpec.PolicyRefs = []configv1beta1.PolicyRef{configMapRef(cm)}
	p.Spec.Stages = stages
	return p
}

func stage(name, env string, trigger *configv1beta1.Trigger) configv1beta1.Stage {
	s := configv1beta1.Stage{Name: name, Trigger: trigger}
	s.ClusterSelector.MatchLabels = map[string]string{"env": env}
	return s
}

func createPromotion(t testing.TB, p *configv1beta1.ClusterPromotion) {
	t.Helper()
	c := testenv.Client(t)
	if err := c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Delete(context.Background(), p)
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			if err := c.Get(ctx, client.ObjectKeyFromObject(p), &configv1beta1.ClusterPromotion{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("promotion %s still there (%v)", p.Name, err)
			}
			return nil
		})
	})
}

func getPromotion(ctx context.Context, t testing.TB, name string) (*configv1beta1.ClusterPromotion, error) {
	p := &configv1beta1.ClusterPromotion{}
	return p, testenv.Client(t).Get(ctx, client.ObjectKey{Name: name}, p)
}

// TestAutoPromotion promotes from dev to staging after a soak delay, and no cluster of staging
// gets the content before dev has it and the delay is over.
// readyNotStalled fails unless the promotion is Ready and not Stalled.
func readyNotStalled(p *configv1beta1.ClusterPromotion) error {
	if !meta.IsStatusConditionTrue(p.Status.Conditions, configv1beta1.PromotionReadyCondition) ||
		meta.IsStatusConditionTrue(p.Status.Conditions, configv1beta1.PromotionStalledCondition) {
		return fmt.Errorf("conditions %+v", p.Status.Conditions)
	}
	return nil
}

// waitReady waits until the promotion is Ready and not Stalled.
func waitReady(t *testing.T, name string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := getPromotion(ctx, t, name)
		if err != nil {
			return err
		}
		return readyNotStalled(got)
	})
}

func TestAutoPromotion(t *testing.T) {
	t.Parallel()
	const ns = "e2e-promo-auto"
	createConfigMap(t, "e2e-promo-auto", map[string]string{"cm.yaml": configMapManifest(ns, "settings", "v1")})
	delay := &metav1.Duration{Duration: 3 * time.Second}
	p := promotion("e2e-promo-auto", "e2e-promo-auto",
		stage("dev", "dev", &configv1beta1.Trigger{Auto: &configv1beta1.AutoTrigger{Delay: delay}}),
		stage("staging", "staging", &configv1beta1.Trigger{Auto: &configv1beta1.AutoTrigger{Delay: delay}}))
	createPromotion(t, p)

	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := getPromotion(ctx, t, p.Name)
		if err != nil {
			return err
		}
		if !meta.IsStatusConditionTrue(got.Status.Conditions, configv1beta1.PromotionReadyCondition) {
			return fmt.Errorf("not Ready: stage %s, %+v", got.Status.CurrentStageName, got.Status.Conditions)
		}
		if got.Status.CurrentStageName != "staging" || len(got.Status.Stages) != 2 ||
			got.Status.Stages[0].CurrentStatusDescription == nil || !strings.HasPrefix(*got.Status.Stages[0].CurrentStatusDescription, "Successfully provisioned (") {
			return fmt.Errorf("status %+v", got.Status)
		}
		return nil
	})
	dev, err := managed(t, "dev").CoreV1().ConfigMaps(ns).Get(t.Context(), "settings", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	staging, err := managed(t, "staging").CoreV1().ConfigMaps(ns).Get(t.Context(), "settings", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if gap := staging.CreationTimestamp.Sub(dev.CreationTimestamp.Time); gap < 2*time.Second {
		t.Errorf("staging got the content %s after dev, before dev's 3s soak was over", gap)
	}
}

// TestManualPromotion stops before production until the stage is approved with the seed's
// kubectl patch, then resets the approval.
func TestManualPromotion(t *testing.T) {
	t.Parallel()
	const ns = "e2e-promo-manual"
	createConfigMap(t, "e2e-promo-manual", map[string]string{"cm.yaml": configMapManifest(ns, "settings", "v1")})
	p := promotion("e2e-promo-manual", "e2e-promo-manual",
		stage("staging", "qa", &configv1beta1.Trigger{Manual: &configv1beta1.ManualTrigger{Approved: ptr(false)}}),
		stage("production", "prod", nil))
	createPromotion(t, p)

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
	if _, err := summary(t.Context(), t, p.Name+"-production", "prod"); !apierrors.IsNotFound(err) {
		t.Fatalf("production deployed before approval (%v)", err)
	}

	// The seed's approval: kubectl patch --type=json replace /spec/stages/0/trigger/manual/approved true.
	patch := []byte(`[{"op": "replace", "path": "/spec/stages/0/trigger/manual/approved", "value": true}]`)
	if err := testenv.Client(t).Patch(t.Context(), p, client.RawPatch(types.JSONPatchType, patch)); err != nil {
		t.Fatal(err)
	}
	expectFeature(t, p.Name+"-production", "prod", libv1beta1.FeatureResources, libv1beta1.FeatureStatusProvisioned)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := getPromotion(ctx, t, p.Name)
		if err != nil {
			return err
		}
		if a := got.Spec.Stages[0].Trigger.Manual.Approved; a != nil && *a {
			return fmt.Errorf("approved not reset")
		}
		return readyNotStalled(got)
	})
}

// TestPromotionStopsAtAFailingStage is seed 002's failure scenario: values the chart rejects stop
// the promotion at dev with a clear status, and no later stage is touched.
func TestPromotionStopsAtAFailingStage(t *testing.T) {
	t.Parallel()
	p := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: "e2e-promo-fail"}}
	p.Spec.ProfileSpec.HelmCharts = []configv1beta1.HelmChart{{
		RepositoryURL: repoURL(t), RepositoryName: "kyverno", ChartName: "kyverno/kyverno", ChartVersion: "3.6.2",
		ReleaseName: "kyverno-latest", ReleaseNamespace: "e2e-promo-fail", HelmChartAction: configv1beta1.HelmChartActionInstall,
		Values: "admissionController:\n  replicas: true\n",
	}}
	delay := &metav1.Duration{Duration: time.Second}
	p.Spec.Stages = []configv1beta1.Stage{
		stage("dev", "dev", &configv1beta1.Trigger{Auto: &configv1beta1.AutoTrigger{Delay: delay}}),
		stage("staging", "staging", &configv1beta1.Trigger{Auto: &configv1beta1.AutoTrigger{Delay: delay}}),
	}
	createPromotion(t, p)

	cs := expectFeature(t, "e2e-promo-fail-dev", "dev", libv1beta1.FeatureHelm, libv1beta1.FeatureStatusFailedNonRetriable)
	if msg := failureMessage(cs, libv1beta1.FeatureHelm); !strings.Contains(msg, "replicas") {
		t.Errorf("failure message %q does not point at the bad value", msg)
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := getPromotion(ctx, t, p.Name)
		if err != nil {
			return err
		}
		if got.Status.CurrentStageName != "dev" || len(got.Status.Stages) != 1 || got.Status.Stages[0].FailureMessage == nil ||
			!strings.HasPrefix(*got.Status.Stages[0].FailureMessage, "Cluster dev/dev, Helm: ") ||
			!strings.Contains(*got.Status.Stages[0].FailureMessage, "replicas") {
			return fmt.Errorf("status %+v", got.Status)
		}
		// Stalled says why in full: the chart's values are rejected until someone changes them.
		stalled := meta.FindStatusCondition(got.Status.Conditions, configv1beta1.PromotionStalledCondition)
		if stalled == nil || stalled.Status != metav1.ConditionTrue || stalled.Reason != "DeploymentFailed" ||
			!strings.Contains(stalled.Message, "e2e-promo-fail-dev-sveltos-dev") || !strings.Contains(stalled.Message, "replicas") {
			return fmt.Errorf("Stalled condition %+v", stalled)
		}
		return nil
	})
	err := testenv.Client(t).Get(t.Context(), client.ObjectKey{Name: "e2e-promo-fail-staging"}, &configv1beta1.ClusterProfile{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("the staging stage was started (%v)", err)
	}
}

// TestInvalidPromotionWindowStalls: a promotion window that is not a cron expression stops the
// rollout once the stage is deployed, with the parse error in status, a Stalled condition and a
// Warning Event; fixing the window lets it complete.
func TestInvalidPromotionWindowStalls(t *testing.T) {
	t.Parallel()
	const ns = "e2e-promo-window"
	createConfigMap(t, ns, map[string]string{"cm.yaml": configMapManifest(ns, "settings", "v1")})
	window := &configv1beta1.TimeWindow{From: "every morning", To: "0 17 * * *"}
	p := promotion(ns, ns, stage("qa", "qa", &configv1beta1.Trigger{Auto: &configv1beta1.AutoTrigger{PromotionWindow: window}}))
	createPromotion(t, p)

	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := getPromotion(ctx, t, p.Name)
		if err != nil {
			return err
		}
		stalled := meta.FindStatusCondition(got.Status.Conditions, configv1beta1.PromotionStalledCondition)
		if stalled == nil || stalled.Status != metav1.ConditionTrue || stalled.Reason != "InvalidPromotionWindow" ||
			!strings.Contains(stalled.Message, "every morning") {
			return fmt.Errorf("Stalled condition %+v", stalled)
		}
		if len(got.Status.Stages) != 1 || got.Status.Stages[0].FailureMessage == nil || *got.Status.Stages[0].FailureMessage != stalled.Message {
			return fmt.Errorf("stages %+v", got.Status.Stages)
		}
		return nil
	})
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		var list eventsv1.EventList
		if err := testenv.Client(t).List(ctx, &list); err != nil {
			return err
		}
		for _, e := range list.Items {
			if e.Regarding.Name == p.Name && e.Regarding.Kind == "ClusterPromotion" && e.Reason == "InvalidPromotionWindow" && e.Type == "Warning" {
				return nil
			}
		}
		return fmt.Errorf("no InvalidPromotionWindow Warning event for %s", p.Name)
	})

	// Opens every minute, closes once a year on a day six months away: open whenever the test runs.
	far := (int(time.Now().UTC().Month())+5)%12 + 1
	patch := fmt.Appendf(nil, `[{"op": "replace", "path": "/spec/stages/0/trigger/auto/promotionWindow/from", "value": "* * * * *"},
		{"op": "replace", "path": "/spec/stages/0/trigger/auto/promotionWindow/to", "value": "0 0 1 %d *"}]`, far)
	if err := testenv.Client(t).Patch(t.Context(), p, client.RawPatch(types.JSONPatchType, patch)); err != nil {
		t.Fatal(err)
	}
	waitReady(t, p.Name)
}

// TestRetriedFailureIsReported: a chart repository that does not answer keeps dev from being
// provisioned. The promotion says which cluster and feature fail and why, in the stage's
// failureMessage and the Ready condition, and emits one Warning Event for it however often the
// deployment is retried.
func TestRetriedFailureIsReported(t *testing.T) {
	t.Parallel()
	p := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: "e2e-promo-retry"}}
	p.Spec.ProfileSpec.HelmCharts = []configv1beta1.HelmChart{{
		// Nothing listens on port 9 (discard) of the loopback: the connection is refused.
		RepositoryURL: "http://127.0.0.1:9/charts", RepositoryName: "gone", ChartName: "gone/webapp", ChartVersion: "1.0.0",
		ReleaseName: "webapp", ReleaseNamespace: "e2e-promo-retry", HelmChartAction: configv1beta1.HelmChartActionInstall,
	}}
	p.Spec.Stages = []configv1beta1.Stage{stage("dev", "dev", nil), stage("staging", "staging", nil)}
	createPromotion(t, p)

	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := getPromotion(ctx, t, p.Name)
		if err != nil {
			return err
		}
		ready := meta.FindStatusCondition(got.Status.Conditions, configv1beta1.PromotionReadyCondition)
		if len(got.Status.Stages) != 1 || got.Status.Stages[0].FailureMessage == nil ||
			!strings.HasPrefix(*got.Status.Stages[0].FailureMessage, "Cluster dev/dev, Helm: ") || !strings.Contains(*got.Status.Stages[0].FailureMessage, "127.0.0.1:9") {
			return fmt.Errorf("stages %+v", got.Status.Stages)
		}
		if ready == nil || ready.Reason != "StageBlocked" || !strings.Contains(ready.Message, *got.Status.Stages[0].FailureMessage) {
			return fmt.Errorf("Ready %+v", ready)
		}
		return nil
	})
	// The deployment is retried, with back-off; the Event is not repeated.
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cs, err := summary(ctx, t, p.Name+"-dev", "dev")
		if err != nil {
			return err
		}
		for _, f := range cs.Status.FeatureSummaries {
			if f.FeatureID == libv1beta1.FeatureHelm && f.ConsecutiveFailures >= 3 {
				return nil
			}
		}
		return fmt.Errorf("not retried 3 times yet: %+v", cs.Status.FeatureSummaries)
	})
	got, err := getPromotion(t.Context(), t, p.Name)
	if err != nil {
		t.Fatal(err)
	}
	events, err := testenv.Events(t.Context(), testenv.Client(t), got, "StageBlocked")
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 || events[0].Type != "Warning" || events[0].Series != nil {
		t.Errorf("want one StageBlocked Warning, emitted once; got %d: %+v", len(events), events)
	}
}

// TestMisspelledTriggerIsRefused: a preHealthCheckDeployment with a misspelled key is stored as
// written (the field has two shapes, so the API server keeps it), and would read as no
// validation step at all. The promotion refuses to move, naming the field, until it is fixed.
func TestMisspelledTriggerIsRefused(t *testing.T) {
	t.Parallel()
	const name = "e2e-promo-typo"
	createConfigMap(t, name, map[string]string{"cm.yaml": configMapManifest(name, "settings", "v1")})
	createConfigMap(t, name+"-check", map[string]string{"cm.yaml": configMapManifest(name, "check", "v1")})
	p := promotion(name, name, stage("dev", "dev", nil), stage("staging", "staging", nil))
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(configv1beta1.GroupVersion.WithKind("ClusterPromotion"))
	u.SetName(name)
	spec := map[string]any{
		"profileSpec": map[string]any{"policyRefs": []any{map[string]any{"kind": "ConfigMap", "namespace": "default", "name": name}}},
		"stages": []any{
			map[string]any{"name": "dev", "clusterSelector": map[string]any{"matchLabels": map[string]any{"env": "dev"}},
				"trigger": map[string]any{"auto": map[string]any{
					"preHealthCheckDeployment": map[string]any{"configMapRef": []any{map[string]any{"name": name + "-check", "namespace": "default"}}}}}},
			map[string]any{"name": "staging", "clusterSelector": map[string]any{"matchLabels": map[string]any{"env": "staging"}}},
		},
	}
	if err := unstructured.SetNestedField(u.Object, spec, "spec"); err != nil {
		t.Fatal(err)
	}
	c := testenv.Client(t)
	if err := c.Create(t.Context(), u); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Delete(context.Background(), p)
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			if err := c.Get(ctx, client.ObjectKeyFromObject(p), &configv1beta1.ClusterPromotion{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("promotion %s still there (%v)", p.Name, err)
			}
			return nil
		})
	})
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := getPromotion(ctx, t, name)
		if err != nil {
			return err
		}
		stalled := meta.FindStatusCondition(got.Status.Conditions, configv1beta1.PromotionStalledCondition)
		if stalled == nil || stalled.Status != metav1.ConditionTrue || stalled.Reason != "InvalidSpec" ||
			!strings.HasPrefix(stalled.Message, "spec.stages[0].trigger.auto.preHealthCheckDeployment: ") || !strings.Contains(stalled.Message, "configMapRef") {
			return fmt.Errorf("Stalled %+v", stalled)
		}
		return nil
	})
	got, err := getPromotion(t.Context(), t, name)
	if err != nil {
		t.Fatal(err)
	}
	testenv.ExpectEvent(t, timeout, c, got, "InvalidSpec")
	if err := c.Get(t.Context(), client.ObjectKey{Name: name + "-dev"}, &configv1beta1.ClusterProfile{}); !apierrors.IsNotFound(err) {
		t.Fatalf("dev was deployed with the trigger unread (%v)", err)
	}

	fix := []byte(`[{"op": "move", "from": "/spec/stages/0/trigger/auto/preHealthCheckDeployment/configMapRef", "path": "/spec/stages/0/trigger/auto/preHealthCheckDeployment/configMapRefs"}]`)
	if err := c.Patch(t.Context(), p, client.RawPatch(types.JSONPatchType, fix)); err != nil {
		t.Fatal(err)
	}
	waitReady(t, name)
}

// TestStageMatchingNoClusterIsReported: a stage whose selector matches no cluster passes at once,
// as upstream says, but the promotion says so in the stage's failureMessage and a Warning Event,
// since it is more often a typo than a wish.
func TestStageMatchingNoClusterIsReported(t *testing.T) {
	t.Parallel()
	const name = "e2e-promo-empty"
	createConfigMap(t, name, map[string]string{"cm.yaml": configMapManifest(name, "settings", "v1")})
	p := promotion(name, name, stage("typo", "stagign", nil), stage("dev", "dev", nil))
	createPromotion(t, p)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := getPromotion(ctx, t, name)
		if err != nil {
			return err
		}
		if !meta.IsStatusConditionTrue(got.Status.Conditions, configv1beta1.PromotionReadyCondition) || len(got.Status.Stages) != 2 {
			return fmt.Errorf("not complete: %+v", got.Status)
		}
		if msg := got.Status.Stages[0].FailureMessage; msg == nil || !strings.HasPrefix(*msg, "No cluster matches the stage's clusterSelector") {
			return fmt.Errorf("typo stage's failureMessage %v", msg)
		}
		return nil
	})
	got, err := getPromotion(t.Context(), t, name)
	if err != nil {
		t.Fatal(err)
	}
	if e := testenv.ExpectEvent(t, timeout, testenv.Client(t), got, "StageMatchesNoCluster"); e.Type != "Warning" || !strings.Contains(e.Note, "stage typo") {
		t.Errorf("event %s: %s", e.Type, e.Note)
	}
}
