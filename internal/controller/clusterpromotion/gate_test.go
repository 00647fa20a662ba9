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
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/testenv"
)

// TestUnreachableStageIsNotDone stops dev's API server while dev soaks. When the soak ends, the
// gate is decided on what dev is now, which nobody knows: the promotion says dev is unreachable
// and waits, and prod starts only once dev answers again.
func TestUnreachableStageIsNotDone(t *testing.T) {
	c := testenv.Client(t)
	clock := &testenv.Clock{}
	testenv.StartManager(t, func(mgr ctrl.Manager) error {
		return controller.Setup(mgr, controller.Options{ProbeInterval: time.Second, HealthInterval: time.Second, Now: clock.Now})
	})
	const name = "gate-unreachable"
	manifest := fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n  namespace: default\ndata:\n  value: v1\n", name)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Data: map[string]string{"cm.yaml": manifest}}
	if err := c.Create(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	p := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: name}}
	p.Spec.ProfileSpec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: "ConfigMap", Namespace: "default", Name: name}}
	const soak = time.Hour
	p.Spec.Stages = []configv1beta1.Stage{
		{Name: "dev", Trigger: &configv1beta1.Trigger{Auto: &configv1beta1.AutoTrigger{Delay: &metav1.Duration{Duration: soak}}}},
		{Name: "prod"},
	}
	p.Spec.Stages[0].ClusterSelector.MatchLabels = map[string]string{"env": "dev"}
	p.Spec.Stages[1].ClusterSelector.MatchLabels = map[string]string{"env": "prod"}
	if err := c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		testenv.Recover(t)
		ctx := context.Background()
		_ = c.Delete(ctx, p)
		_ = c.Delete(ctx, cm)
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			if err := c.Get(ctx, client.ObjectKeyFromObject(p), &configv1beta1.ClusterPromotion{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("promotion still there: %v", err)
			}
			return nil
		})
	})
	get := func(ctx context.Context) (*configv1beta1.ClusterPromotion, error) {
		got := &configv1beta1.ClusterPromotion{}
		return got, c.Get(ctx, client.ObjectKeyFromObject(p), got)
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := get(ctx)
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
	soakEnd := clock.Now().Add(soak)
	clock.Advance(soak + time.Second)
	poke(t, p)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := get(ctx)
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
		got, err := get(ctx)
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
	testenv.StartManager(t, func(mgr ctrl.Manager) error {
		return controller.Setup(mgr, controller.Options{ProbeInterval: time.Second, HealthInterval: time.Second, Now: clock.Now})
	})
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

	manifest := fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s-content\n  namespace: default\ndata:\n  value: v1\n", name)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Data: map[string]string{"cm.yaml": manifest}}
	if err := c.Create(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	p := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: name}}
	p.Spec.ProfileSpec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: "ConfigMap", Namespace: "default", Name: name}}
	p.Spec.ProfileSpec.ValidateHealths = []libv1beta1.ValidateHealth{{
		Name: "dev-ready", FeatureID: libv1beta1.FeatureResources, Version: "v1", Kind: "ConfigMap", Namespace: "default",
		LabelFilters: []libv1beta1.LabelFilter{{Key: "role", Operation: libv1beta1.OperationEqual, Value: name}},
		EvaluateCEL:  []libv1beta1.CELRule{{Name: "ready", Rule: "self.data.ready == 'yes'"}},
	}}
	const soak = time.Hour
	p.Spec.Stages = []configv1beta1.Stage{
		{Name: "dev", Trigger: &configv1beta1.Trigger{Auto: &configv1beta1.AutoTrigger{Delay: &metav1.Duration{Duration: soak}}}},
		{Name: "prod"},
	}
	p.Spec.Stages[0].ClusterSelector.MatchLabels = map[string]string{"env": "dev"}
	// Only dev runs the check: prod has no such object.
	p.Spec.Stages[1].ClusterSelector.MatchLabels = map[string]string{"env": "none"}
	if err := c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		_ = c.Delete(ctx, p)
		_ = c.Delete(ctx, cm)
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			if err := c.Get(ctx, client.ObjectKeyFromObject(p), &configv1beta1.ClusterPromotion{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("promotion still there: %v", err)
			}
			return nil
		})
	})
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
	clock.Advance(soak + time.Second)
	poke(t, p)
	devStage(func(got *configv1beta1.ClusterPromotion, st configv1beta1.StageStatus) error {
		if st.LastStatusCheckTime == nil || st.LastStatusCheckTime.Time.Before(first.Add(soak)) {
			return fmt.Errorf("not looked at since the clock moved: %+v", st)
		}
		return nil
	})

	health("yes")
	second := devStage(soaking).Status.Stages[0].LastSuccessfulAppliedTime
	if !second.After(first.Add(soak)) {
		t.Fatalf("the soak did not start again: first %v, second %v", first, second)
	}
	clock.Advance(soak + time.Second)
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

// poke edits the promotion so that the controller looks at it now: it waits for the end of a
// soak on the real clock, which knows nothing of the test's moves of the controller's clock.
func poke(t *testing.T, p *configv1beta1.ClusterPromotion) {
	t.Helper()
	at := fmt.Sprintf(`{"metadata":{"annotations":{"test/poke":%q}}}`, time.Now().Format(time.RFC3339Nano))
	if err := testenv.Client(t).Patch(t.Context(), p, client.RawPatch(types.MergePatchType, []byte(at))); err != nil {
		t.Fatal(err)
	}
}
