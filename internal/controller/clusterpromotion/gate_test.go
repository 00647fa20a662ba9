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

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestUnreachableStageIsNotDone stops dev's API server while dev soaks. When the soak ends, the
// gate is decided on what dev is now, which nobody knows: the promotion says dev is unreachable
// and waits, and prod starts only once dev answers again.
func TestUnreachableStageIsNotDone(t *testing.T) {
	c := testenv.Client(t)
	clock := &testenv.Clock{}
	startController(t, clock)
	const name = "gate-unreachable"
	const soakTime = time.Hour
	p := devThenProd(name, soak(soakTime), nil)
	create(t, p, content(name, "v1"))
	t.Cleanup(func() { testenv.Recover(t) })
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := get(ctx, t, p)
		if err != nil {
			return err
		}
		if len(got.Status.Stages) != 1 || got.Status.Stages[0].LastSuccessfulAppliedTime == nil {
			return fmt.Errorf("dev not provisioned yet: %+v", got.Status.Stages)
		}
		return nil
	})

	if err := sandbox.Kill(testenv.Fleet.Dir, "dev-kube-apiserver"); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cl := &libv1beta1.SveltosCluster{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: "dev", Name: "dev"}, cl); err != nil {
			return err
		}
		if cl.Status.Ready {
			return fmt.Errorf("dev still ready")
		}
		return nil
	})
	soakEnd := clock.Now().Add(soakTime)
	clock.Advance(soakTime + time.Second)
	poke(t, p)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := get(ctx, t, p)
		if err != nil {
			return err
		}
		if got.Status.CurrentStageName != "dev" {
			return fmt.Errorf("promoted to %s while dev was unreachable", got.Status.CurrentStageName)
		}
		st := got.Status.Stages[0]
		if st.LastStatusCheckTime == nil || st.LastStatusCheckTime.Time.Before(soakEnd) {
			return fmt.Errorf("not looked at since the soak ended: %+v", st)
		}
		if st.FailureMessage == nil || !strings.HasPrefix(*st.FailureMessage, "Cluster dev/dev is not ready") {
			return fmt.Errorf("dev's failureMessage %v", st.FailureMessage)
		}
		return nil
	})
	if err := c.Get(t.Context(), client.ObjectKey{Name: name + "-prod"}, &configv1beta1.ClusterProfile{}); !apierrors.IsNotFound(err) {
		t.Fatalf("prod started while dev was unreachable (%v)", err)
	}

	testenv.Recover(t)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := get(ctx, t, p)
		if err != nil {
			return err
		}
		if got.Status.CurrentStageName != "prod" {
			return fmt.Errorf("still at %s: %+v", got.Status.CurrentStageName, got.Status.Stages)
		}
		return nil
	})
}

// TestRegressionDuringSoakRestartsIt: dev's health check stops passing while dev soaks. The
// stage does not advance when the soak would have ended; it says why, and its soak starts again
// once the check passes again.
func TestRegressionDuringSoakRestartsIt(t *testing.T) {
	c := testenv.Client(t)
	clock := &testenv.Clock{}
	startController(t, clock)
	const name = "gate-soak"
	// The check looks at an object of dev's own, which the promotion does not deploy: the test
	// breaks and repairs it by hand.
	dev := kubernetes.NewForConfigOrDie(managed(t, "dev")).CoreV1().ConfigMaps("default")
	health := func(ready string) {
		t.Helper()
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"role": name}}, Data: map[string]string{"ready": ready}}
		if _, err := dev.Update(t.Context(), cm, metav1.UpdateOptions{}); apierrors.IsNotFound(err) {
			_, err = dev.Create(t.Context(), cm, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
		} else if err != nil {
			t.Fatal(err)
		}
	}
	health("yes")
	t.Cleanup(func() { _ = dev.Delete(context.Background(), name, metav1.DeleteOptions{}) })

	const soakTime = time.Hour
	p := devThenProd(name, soak(soakTime), nil)
	p.Spec.ProfileSpec.ValidateHealths = []libv1beta1.ValidateHealth{{
		Name: "dev-ready", FeatureID: libv1beta1.FeatureResources, Version: "v1", Kind: "ConfigMap", Namespace: "default",
		LabelFilters: []libv1beta1.LabelFilter{{Key: "role", Operation: libv1beta1.OperationEqual, Value: name}},
		EvaluateCEL:  []libv1beta1.CELRule{{Name: "ready", Rule: "self.data.ready == 'yes'"}},
	}}
	// Only dev runs the check: prod has no such object.
	p.Spec.Stages[1].ClusterSelector.MatchLabels = map[string]string{"env": "none"}
	// The deployed ConfigMap has a name of its own: dev's object named after the test is the
	// one the check reads.
	create(t, p, content(name+"-content", "v1"))
	devStage := func(check func(*configv1beta1.ClusterPromotion, configv1beta1.StageStatus) error) *configv1beta1.ClusterPromotion {
		t.Helper()
		var got *configv1beta1.ClusterPromotion
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			got = &configv1beta1.ClusterPromotion{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(p), got); err != nil {
				return err
			}
			if got.Status.CurrentStageName != "dev" || len(got.Status.Stages) != 1 {
				return fmt.Errorf("not in dev: %s %+v", got.Status.CurrentStageName, got.Status.Stages)
			}
			return check(got, got.Status.Stages[0])
		})
		return got
	}
	soaking := func(_ *configv1beta1.ClusterPromotion, st configv1beta1.StageStatus) error {
		if st.LastSuccessfulAppliedTime == nil {
			return fmt.Errorf("dev not provisioned: %v", st.FailureMessage)
		}
		return nil
	}
	first := devStage(soaking).Status.Stages[0].LastSuccessfulAppliedTime

	health("no")
	devStage(func(got *configv1beta1.ClusterPromotion, st configv1beta1.StageStatus) error {
		if st.LastSuccessfulAppliedTime != nil || st.FailureMessage == nil || !strings.Contains(*st.FailureMessage, `health check "dev-ready"`) {
			return fmt.Errorf("soak not restarted: %+v", st)
		}
		return nil
	})
	// The first soak would have ended now; the stage still fails, and stays.
	clock.Advance(soakTime + time.Second)
	poke(t, p)
	devStage(func(got *configv1beta1.ClusterPromotion, st configv1beta1.StageStatus) error {
		if st.LastStatusCheckTime == nil || st.LastStatusCheckTime.Time.Before(first.Add(soakTime)) {
			return fmt.Errorf("not looked at since the clock moved: %+v", st)
		}
		return nil
	})

	health("yes")
	second := devStage(soaking).Status.Stages[0].LastSuccessfulAppliedTime
	if !second.After(first.Add(soakTime)) {
		t.Fatalf("the soak did not start again: first %v, second %v", first, second)
	}
	clock.Advance(soakTime + time.Second)
	poke(t, p)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got := &configv1beta1.ClusterPromotion{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(p), got); err != nil {
			return err
		}
		if got.Status.CurrentStageName != "prod" {
			return fmt.Errorf("still at %s", got.Status.CurrentStageName)
		}
		return nil
	})
}
