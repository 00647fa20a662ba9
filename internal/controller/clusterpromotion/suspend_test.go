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
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestSuspendStopsWhereItIs: suspended 40 minutes into dev's hour of soak, the promotion stays
// in dev long after the soak would have ended, and prod gets nothing. Resumed two hours later,
// it still has 20 minutes of soak to serve, then promotes to prod.
func TestSuspendStopsWhereItIs(t *testing.T) {
	clock := &testenv.Clock{}
	startController(t, clock)
	const name = "suspend"
	p := devThenProd(name, soak(time.Hour), nil)
	create(t, p, content(name, "v1"))
	var provisionedAt time.Time
	waitFor(t, p, func(got *configv1beta1.ClusterPromotion) error {
		if st := stageOf(got, "dev"); st == nil || st.LastSuccessfulAppliedTime == nil {
			return fmt.Errorf("dev not provisioned: %+v", got.Status.Stages)
		}
		provisionedAt = stageOf(got, "dev").LastSuccessfulAppliedTime.Time
		return nil
	})

	clock.Advance(40 * time.Minute)
	edit(t, p, `[{"op": "add", "path": "/spec/suspend", "value": true}]`)
	var suspendedAt time.Time
	waitFor(t, p, func(got *configv1beta1.ClusterPromotion) error {
		s := meta.FindStatusCondition(got.Status.Conditions, configv1beta1.PromotionSuspendedCondition)
		if s == nil || s.Status != metav1.ConditionTrue {
			return fmt.Errorf("not suspended: %+v", got.Status.Conditions)
		}
		if ready := meta.FindStatusCondition(got.Status.Conditions, configv1beta1.PromotionReadyCondition); ready == nil || ready.Reason != "Suspended" {
			return fmt.Errorf("Ready does not say suspended: %+v", ready)
		}
		suspendedAt = s.LastTransitionTime.Time
		return nil
	})
	stageProfileHeld(t, p.StageProfileName("dev"), true)

	// The soak would have ended an hour and twenty minutes ago.
	clock.Advance(2 * time.Hour)
	looked := clock.Now().Truncate(time.Second)
	poke(t, p)
	got := waitFor(t, p, func(got *configv1beta1.ClusterPromotion) error {
		if st := stageOf(got, "dev"); st.LastStatusCheckTime == nil || st.LastStatusCheckTime.Time.Before(looked) {
			return fmt.Errorf("not looked at since the clock moved: %+v", st)
		}
		return nil
	})
	if got.Status.CurrentStageName != "dev" {
		t.Fatalf("promoted to %s while suspended", got.Status.CurrentStageName)
	}
	noContentOn(t, "prod", name)

	edit(t, p, `[{"op": "replace", "path": "/spec/suspend", "value": false}]`)
	got = waitFor(t, p, func(got *configv1beta1.ClusterPromotion) error {
		s := meta.FindStatusCondition(got.Status.Conditions, configv1beta1.PromotionSuspendedCondition)
		if s == nil || s.Status != metav1.ConditionFalse || s.Reason != "Resumed" {
			return fmt.Errorf("not resumed: %+v", s)
		}
		return nil
	})
	if got.Status.CurrentStageName != "dev" {
		t.Fatalf("promoted to %s on resume, with 20 minutes of soak left", got.Status.CurrentStageName)
	}
	// The soak counts from the same moment, moved on by the time spent suspended.
	shifted := stageOf(got, "dev").LastSuccessfulAppliedTime.Time
	suspended := meta.FindStatusCondition(got.Status.Conditions, configv1beta1.PromotionSuspendedCondition).LastTransitionTime.Sub(suspendedAt)
	if d := shifted.Sub(provisionedAt) - suspended; d < -time.Second || d > time.Second {
		t.Fatalf("soak start moved by %s, suspended for %s", shifted.Sub(provisionedAt), suspended)
	}
	stageProfileHeld(t, p.StageProfileName("dev"), false)

	clock.Advance(21 * time.Minute)
	poke(t, p)
	waitFor(t, p, func(got *configv1beta1.ClusterPromotion) error {
		if !completedPromotion(got) {
			return fmt.Errorf("not promoted: %s %+v", got.Status.CurrentStageName, got.Status.Conditions)
		}
		return nil
	})
}

// TestDenyWindowsHoldStages: a promotion created during a freeze deploys nothing until it ends;
// then dev deploys and soaks, and a second freeze holds prod back after the soak, until it ends.
func TestDenyWindowsHoldStages(t *testing.T) {
	clock := &testenv.Clock{}
	// A Tuesday, 11:00 UTC: inside the first freeze.
	at := func(hhmm string) time.Time {
		v, err := time.Parse(time.RFC3339, "2030-03-12T"+hhmm+":00Z")
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	moveTo := func(when time.Time) { clock.Advance(when.Sub(clock.Now())) }
	moveTo(at("11:00"))
	startController(t, clock)
	const name = "freeze"
	p := devThenProd(name, soak(time.Hour), nil)
	p.Spec.DenyWindows = []configv1beta1.TimeWindow{{From: "0 10 * * *", To: "0 14 * * *"}, {From: "30 14 * * *", To: "0 16 * * *"}}
	create(t, p, content(name, "v1"))
	held := func(index int32, until time.Time, ready string) func(*configv1beta1.ClusterPromotion) error {
		return func(got *configv1beta1.ClusterPromotion) error {
			c := meta.FindStatusCondition(got.Status.Conditions, configv1beta1.PromotionReadyCondition)
			if c == nil || c.Reason != "Frozen" || !strings.Contains(c.Message, ready) || !strings.Contains(c.Message, "until "+until.Format(time.RFC3339)) {
				return fmt.Errorf("Ready does not say the freeze holds: %+v", c)
			}
			if got.Status.NextPromotionTime == nil || !got.Status.NextPromotionTime.Time.Equal(until) {
				return fmt.Errorf("nextPromotionTime %v, want %s", got.Status.NextPromotionTime, until)
			}
			if w := got.Status.BlockingWindow; w == nil || w.Kind != "Deny" || w.Index == nil || *w.Index != index {
				return fmt.Errorf("blockingWindow %+v, want deny window %d", w, index)
			}
			return nil
		}
	}
	waitFor(t, p, held(0, at("14:00"), "waits to start: deny window 0"))
	noContentOn(t, "dev", name)

	moveTo(at("14:00").Add(time.Second))
	poke(t, p)
	waitFor(t, p, func(got *configv1beta1.ClusterPromotion) error {
		if st := stageOf(got, "dev"); st == nil || st.LastSuccessfulAppliedTime == nil {
			return fmt.Errorf("dev not provisioned: %+v", got.Status.Conditions)
		}
		if got.Status.NextPromotionTime != nil || got.Status.BlockingWindow != nil {
			return fmt.Errorf("a window still holds the rollout: %v %+v", got.Status.NextPromotionTime, got.Status.BlockingWindow)
		}
		return nil
	})

	// dev's soak is over at about 15:00, inside the second freeze.
	moveTo(at("15:05"))
	poke(t, p)
	got := waitFor(t, p, held(1, at("16:00"), "stage dev is done, but the next one may not start: deny window 1"))
	if d := stageOf(got, "dev").CurrentStatusDescription; d == nil || !strings.HasPrefix(*d, "Frozen: Deny Window Open") {
		t.Fatalf("dev's description: %v", d)
	}
	noContentOn(t, "prod", name)

	moveTo(at("16:00").Add(time.Second))
	poke(t, p)
	waitFor(t, p, func(got *configv1beta1.ClusterPromotion) error {
		if !completedPromotion(got) {
			return fmt.Errorf("not promoted: %s %+v", got.Status.CurrentStageName, got.Status.Conditions)
		}
		return nil
	})
}

// waitFor waits until check passes on the promotion, and returns it as it was then.
func waitFor(t *testing.T, p *configv1beta1.ClusterPromotion, check func(*configv1beta1.ClusterPromotion) error) *configv1beta1.ClusterPromotion {
	t.Helper()
	var got *configv1beta1.ClusterPromotion
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		var err error
		if got, err = get(ctx, t, p); err != nil {
			return err
		}
		return check(got)
	})
	return got
}

func stageOf(p *configv1beta1.ClusterPromotion, name string) *configv1beta1.StageStatus {
	for i := range p.Status.Stages {
		if p.Status.Stages[i].Name == name {
			return &p.Status.Stages[i]
		}
	}
	return nil
}

// stageProfileHeld waits until the stage's profile carries the hold, or not.
func stageProfileHeld(t *testing.T, name string, want bool) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		pr := &configv1beta1.ClusterProfile{}
		if err := testenv.Client(t).Get(ctx, client.ObjectKey{Name: name}, pr); err != nil {
			return err
		}
		if _, held := pr.Annotations[configv1beta1.HoldRolloutAnnotation]; held != want {
			return fmt.Errorf("ClusterProfile %s held: %v, want %v", name, held, want)
		}
		return nil
	})
}

// noContentOn fails if the promotion's ConfigMap is on the cluster.
func noContentOn(t *testing.T, cluster, name string) {
	t.Helper()
	_, err := kubernetes.NewForConfigOrDie(managed(t, cluster)).CoreV1().ConfigMaps("default").Get(t.Context(), name, metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		t.Fatalf("%s has ConfigMap default/%s (%v)", cluster, name, err)
	}
}
