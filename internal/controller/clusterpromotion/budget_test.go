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

package clusterpromotion_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// failingOnDev makes a promotion whose profile checks an object of dev's own, named name, which
// the test sets to fail: "no".
func failingOnDev(t *testing.T, name string) *configv1beta1.ClusterPromotion {
	t.Helper()
	dev := kubernetes.NewForConfigOrDie(managed(t, "dev")).CoreV1().ConfigMaps("default")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"role": name}}, Data: map[string]string{"ready": "no"}}
	if _, err := dev.Create(t.Context(), cm, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dev.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	p := devThenProd(name, nil, nil)
	p.Spec.ProfileSpec.ValidateHealths = []libv1beta1.ValidateHealth{{
		Name: "dev-ready", FeatureID: libv1beta1.FeatureResources, Version: "v1", Kind: "ConfigMap", Namespace: "default",
		LabelFilters: []libv1beta1.LabelFilter{{Key: "role", Operation: libv1beta1.OperationEqual, Value: name}},
		EvaluateCEL:  []libv1beta1.CELRule{{Name: "ready", Rule: "self.data.ready == 'yes'"}},
	}}
	return p
}

func stageFailed(stage string, says ...string) func(*configv1beta1.ClusterPromotion) error {
	return func(got *configv1beta1.ClusterPromotion) error {
		c := meta.FindStatusCondition(got.Status.Conditions, configv1beta1.PromotionStalledCondition)
		if c == nil || c.Status != metav1.ConditionTrue || c.Reason != "StageFailed" {
			return fmt.Errorf("not stalled on a failed stage: %+v", c)
		}
		for _, s := range says {
			if !strings.Contains(c.Message, s) {
				return fmt.Errorf("Stalled does not say %q: %s", s, c.Message)
			}
		}
		if f := got.Status.Failure; f == nil || f.Stage != stage {
			return fmt.Errorf("status.failure %+v, want stage %s", f, stage)
		}
		return nil
	}
}

// TestFailureBudget: dev's health check fails on dev, and dev allows no failure: the stage fails
// and the promotion stops, naming the cluster and the check; prod gets nothing. A new version
// starts over, and goes through once the check passes.
func TestFailureBudget(t *testing.T) {
	startController(t, nil)
	const name = "budget"
	p := failingOnDev(t, name)
	zero := intstr.FromInt32(0)
	p.Spec.Stages[0].MaxFailures = &zero
	p.Spec.Stages[1].ClusterSelector.MatchLabels = map[string]string{"env": "none"} // the check is dev's
	cm := create(t, p, content(name+"-content", "v1"))
	waitFor(t, p, stageFailed("dev", "stage dev failed: 1 cluster fails, more than maxFailures allows (0): dev/dev", `health check "dev-ready"`))

	// Repaired, and a new version.
	dev := kubernetes.NewForConfigOrDie(managed(t, "dev")).CoreV1().ConfigMaps("default")
	fixed := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"role": name}}, Data: map[string]string{"ready": "yes"}}
	if _, err := dev.Update(t.Context(), fixed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	cm.Data = content(name+"-content", "v2")
	if err := testenv.Client(t).Update(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	got := waitFor(t, p, func(got *configv1beta1.ClusterPromotion) error {
		if got.Status.Failure != nil || !completedPromotion(got) {
			return fmt.Errorf("the new version is not through: failure %+v, %+v", got.Status.Failure, got.Status.Conditions)
		}
		return nil
	})
	// The history keeps both: the new version through, the first failed at dev.
	h := got.Status.History
	if len(h) != 2 || h[0].Outcome != configv1beta1.OutcomeSucceeded || h[1].Outcome != configv1beta1.OutcomeFailed || h[1].Finished == nil ||
		len(h[1].Stages) != 1 || h[1].Stages[0].Outcome != configv1beta1.OutcomeFailed || !strings.Contains(h[1].Stages[0].Message, "maxFailures") {
		t.Errorf("history %+v", h)
	}
}

// TestProgressDeadline: dev may have one failing cluster, but must be deployed and healthy within
// ten minutes. Its check keeps failing: past the deadline the stage fails, and says why.
func TestProgressDeadline(t *testing.T) {
	clock := &testenv.Clock{}
	startController(t, clock)
	const name = "deadline"
	p := failingOnDev(t, name)
	one := intstr.FromInt32(1)
	p.Spec.Stages[0].MaxFailures = &one
	p.Spec.Stages[0].ProgressDeadline = &metav1.Duration{Duration: 10 * time.Minute}
	create(t, p, content(name+"-content", "v1"))
	got := waitFor(t, p, func(got *configv1beta1.ClusterPromotion) error {
		st := stageOf(got, "dev")
		if st == nil || st.ProgressDeadlineTime == nil || st.FailureMessage == nil || !strings.Contains(*st.FailureMessage, "dev-ready") {
			return fmt.Errorf("dev is not failing within its deadline yet: %+v", st)
		}
		return nil
	})
	if got.Status.Failure != nil {
		t.Fatalf("failed within the budget and the deadline: %+v", got.Status.Failure)
	}
	deadline := stageOf(got, "dev").ProgressDeadlineTime.Time
	if d := deadline.Sub(stageOf(got, "dev").LastUpdateReconciledTime.Time); d != 10*time.Minute {
		t.Fatalf("the deadline is %s after the stage started", d)
	}
	clock.Advance(11 * time.Minute)
	poke(t, p)
	waitFor(t, p, stageFailed("dev", "not deployed and healthy by its progressDeadline ("+deadline.UTC().Format(time.RFC3339)+")", "failing: dev/dev"))
	noContentOn(t, "prod", name+"-content")
}

// TestRollback: v1 goes through dev and prod and becomes the last known good version. v2 passes
// on dev and fails its health check on prod, which allows no failure: prod, then dev, go back to
// v1, read from the clusters, and the promotion says what failed and what was rolled back.
func TestRollback(t *testing.T) {
	startController(t, nil)
	const name = "rollback"
	for cluster, ready := range map[string]string{"dev": "yes", "prod": "no"} {
		cms := kubernetes.NewForConfigOrDie(managed(t, cluster)).CoreV1().ConfigMaps("default")
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name + "-health", Labels: map[string]string{"role": name}}, Data: map[string]string{"ready": ready}}
		if _, err := cms.Create(t.Context(), cm, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cms.Delete(context.Background(), cm.Name, metav1.DeleteOptions{}) })
	}
	p := devThenProd(name, nil, nil)
	zero := intstr.FromInt32(0)
	p.Spec.Stages[1].MaxFailures = &zero
	p.Spec.OnFailure = configv1beta1.OnFailureRollback
	cm := create(t, p, content(name, "v1"))
	v1 := waitFor(t, p, func(got *configv1beta1.ClusterPromotion) error {
		if !completedPromotion(got) || got.Status.LastKnownGood == nil {
			return fmt.Errorf("v1 not through: %+v", got.Status.Conditions)
		}
		return nil
	}).Status.ProfileSpecHash

	// v2: new content, and a health check prod fails.
	// A patch, not an update: the controller writes the promotion's status all the while.
	c := testenv.Client(t)
	checks, err := json.Marshal([]libv1beta1.ValidateHealth{{
		Name: "ready", FeatureID: libv1beta1.FeatureResources, Version: "v1", Kind: "ConfigMap", Namespace: "default",
		LabelFilters: []libv1beta1.LabelFilter{{Key: "role", Operation: libv1beta1.OperationEqual, Value: name}},
		EvaluateCEL:  []libv1beta1.CELRule{{Name: "ready", Rule: "self.data.ready == 'yes'"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	edit(t, p, fmt.Sprintf(`[{"op": "add", "path": "/spec/profileSpec/validateHealths", "value": %s}]`, checks))
	cm.Data = content(name, "v2")
	if err := c.Update(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	waitFor(t, p, func(got *configv1beta1.ClusterPromotion) error {
		if got.Status.Failure == nil || got.Status.Failure.Stage != "prod" {
			return fmt.Errorf("prod has not failed: %+v", got.Status.Conditions)
		}
		return nil
	})
	got := waitFor(t, p, func(got *configv1beta1.ClusterPromotion) error {
		c := meta.FindStatusCondition(got.Status.Conditions, configv1beta1.PromotionReadyCondition)
		if c == nil || c.Reason != "RolledBack" {
			return fmt.Errorf("not rolled back: %+v", c)
		}
		return nil
	})
	if rb := got.Status.Rollback; rb == nil || rb.Done != 2 || !slices.Equal(rb.Stages, []string{"prod", "dev"}) || !slices.Equal(rb.ToProfileSpecHash, v1) {
		t.Fatalf("rollback %+v", got.Status.Rollback)
	}
	// The history: v2 rolled back (prod failed, dev put back), v1 through before it. (The
	// spec and the content changed one after the other: a version between may have started
	// and been superseded.)
	h := got.Status.History
	if len(h) < 2 || len(h) > 3 || h[0].Outcome != configv1beta1.OutcomeRolledBack || h[len(h)-1].Outcome != configv1beta1.OutcomeSucceeded ||
		!slices.Equal(h[len(h)-1].ProfileSpecHash, v1) || len(h[0].Stages) != 2 || (len(h) == 3 && h[1].Outcome != configv1beta1.OutcomeSuperseded) ||
		h[0].Stages[0].Outcome != configv1beta1.OutcomeRolledBack || h[0].Stages[1].Outcome != configv1beta1.OutcomeFailed {
		t.Errorf("history %+v", h)
	}
	msg := meta.FindStatusCondition(got.Status.Conditions, configv1beta1.PromotionReadyCondition).Message
	for _, want := range []string{"stage prod failed", "prod/prod", `health check "ready"`, "rolled back stages prod, dev"} {
		if !strings.Contains(msg, want) {
			t.Errorf("Ready does not say %q: %s", want, msg)
		}
	}
	// Each stage profile remembers the spec it went back from: a cluster unreachable then, whose
	// summary still carries it, would hold the rollback.
	for _, stage := range []string{"prod", "dev"} {
		profile := &configv1beta1.ClusterProfile{}
		if err := c.Get(t.Context(), client.ObjectKey{Name: p.StageProfileName(stage)}, profile); err != nil {
			t.Fatal(err)
		}
		if profile.Annotations["stagecoach.dev/rolled-back-from"] == "" {
			t.Errorf("stage %s profile: no stagecoach.dev/rolled-back-from: %v", stage, profile.Annotations)
		}
	}
	for _, cluster := range []string{"prod", "dev"} {
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			deployed, err := kubernetes.NewForConfigOrDie(managed(t, cluster)).CoreV1().ConfigMaps("default").Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if v := deployed.Data["value"]; v != "v1" {
				return fmt.Errorf("%s runs %s", cluster, v)
			}
			return nil
		})
	}
}

// TestRollbackOnRequest: the stagecoach.dev/rollback annotation rolls the version it names back to
// the last known good one, though onFailure is Stop. Asked while no version has gone through, it
// is refused with a Warning; asked for v2, waiting at dev, dev goes back to v1 and the promotion
// stops, saying the rollback was requested.
func TestRollbackOnRequest(t *testing.T) {
	startController(t, nil)
	const name = "requested"
	p := devThenProd(name, nil, nil)
	cm := create(t, p, content(name, "v1"))
	c := testenv.Client(t)
	ask := func(version []byte) {
		t.Helper()
		patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, configv1beta1.RollbackAnnotation, hex.EncodeToString(version))
		if err := c.Patch(t.Context(), p, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
			t.Fatal(err)
		}
	}
	v1 := waitFor(t, p, func(got *configv1beta1.ClusterPromotion) error {
		if len(got.Status.ProfileSpecHash) == 0 {
			return fmt.Errorf("not started")
		}
		return nil
	})
	ask(v1.Status.ProfileSpecHash)
	testenv.ExpectEvent(t, timeout, c, v1, "RollbackRefused")
	v1 = waitFor(t, p, func(got *configv1beta1.ClusterPromotion) error {
		if !completedPromotion(got) || got.Status.LastKnownGood == nil {
			return fmt.Errorf("v1 not through: %+v", got.Status.Conditions)
		}
		return nil
	})
	if v1.Status.Failure != nil {
		t.Fatalf("a refused rollback failed v1: %+v", v1.Status.Failure)
	}

	// v2 waits at dev for an approval; its rollback is asked for.
	edit(t, p, `[{"op": "add", "path": "/spec/stages/0/trigger", "value": {"manual": {}}}]`)
	cm.Data = content(name, "v2")
	if err := c.Update(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	v2 := waitFor(t, p, func(got *configv1beta1.ClusterPromotion) error {
		if c := meta.FindStatusCondition(got.Status.Conditions, configv1beta1.PromotionReadyCondition); c == nil || c.Reason != "AwaitingApproval" {
			return fmt.Errorf("v2 not waiting at dev: %+v", c)
		}
		return nil
	})
	ask(v2.Status.ProfileSpecHash)
	got := waitFor(t, p, func(got *configv1beta1.ClusterPromotion) error {
		if c := meta.FindStatusCondition(got.Status.Conditions, configv1beta1.PromotionReadyCondition); c == nil || c.Reason != "RolledBack" {
			return fmt.Errorf("not rolled back: %+v", c)
		}
		return nil
	})
	if f := got.Status.Failure; f == nil || !f.Requested || f.Stage != "dev" {
		t.Errorf("status.failure %+v", f)
	}
	msg := meta.FindStatusCondition(got.Status.Conditions, configv1beta1.PromotionReadyCondition).Message
	if !strings.HasPrefix(msg, "rollback requested at stage dev; rolled back stages dev to version ") {
		t.Errorf("Ready says %q", msg)
	}
	testenv.ExpectEvent(t, timeout, c, got, "RollbackRequested")
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cm, err := kubernetes.NewForConfigOrDie(managed(t, "dev")).CoreV1().ConfigMaps("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil || cm.Data["value"] != "v1" {
			return fmt.Errorf("dev runs %v (%v), want v1", cm, err)
		}
		return nil
	})
}
