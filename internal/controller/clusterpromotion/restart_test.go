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
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

func TestMain(m *testing.M) {
	testenv.Main(m,
		sandbox.ClusterSpec{Name: "dev", Labels: map[string]string{"env": "dev"}},
		sandbox.ClusterSpec{Name: "prod", Labels: map[string]string{"env": "prod"}},
	)
}

const timeout = 90 * time.Second

// TestResumesAfterRestart stops the controller while dev soaks and starts a new one once the
// soak is over: the new controller picks the rollout up from status, promotes to prod without
// redeploying dev, and prod is not deployed before dev's soak ended. The soak is an hour of the
// controllers' clock, which the test moves on while no controller runs: no machine is slow
// enough to end it early, and the test never waits for it.
func TestResumesAfterRestart(t *testing.T) {
	c := testenv.Client(t)
	clock := &testenv.Clock{}
	setup := func(mgr ctrl.Manager) error {
		return controller.Setup(mgr, controller.Options{ProbeInterval: time.Second, HealthInterval: time.Second, Now: clock.Now})
	}
	manifest := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: restart\ndata:\n  value: v1\n"
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "restart", Namespace: "default"}, Data: map[string]string{"cm.yaml": manifest}}
	if err := c.Create(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	p := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: "restart"}}
	p.Spec.ProfileSpec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: "ConfigMap", Namespace: "default", Name: "restart"}}
	const soak = time.Hour
	p.Spec.Stages = []configv1beta1.Stage{
		{Name: "dev", Trigger: &configv1beta1.Trigger{Auto: &configv1beta1.AutoTrigger{Delay: &metav1.Duration{Duration: soak}}}},
		{Name: "prod"},
	}
	p.Spec.Stages[0].ClusterSelector.MatchLabels = map[string]string{"env": "dev"}
	p.Spec.Stages[1].ClusterSelector.MatchLabels = map[string]string{"env": "prod"}
	var soakEnds time.Time
	t.Run("first controller", func(t *testing.T) {
		testenv.StartManager(t, setup)
		if err := c.Create(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			got := &configv1beta1.ClusterPromotion{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(p), got); err != nil {
				return err
			}
			if len(got.Status.Stages) != 1 || got.Status.Stages[0].LastSuccessfulAppliedTime == nil {
				return fmt.Errorf("dev not provisioned yet: %+v", got.Status.Stages)
			}
			soakEnds = got.Status.Stages[0].LastSuccessfulAppliedTime.Add(soak)
			return nil
		})
	}) // the controller stops here, mid-soak

	dev := configMapOn(t, "dev")
	if _, err := kubernetes.NewForConfigOrDie(managed(t, "prod")).CoreV1().ConfigMaps("restart").Get(t.Context(), "settings", metav1.GetOptions{}); err == nil {
		t.Fatal("prod deployed while dev soaks")
	}
	// The outage lasts past the end of the soak.
	clock.Advance(soak + time.Second)

	testenv.StartManager(t, setup)
	// Registered after the manager, so it runs while the controller still does: the
	// promotion's finalizer is removed and the test can run again (-count).
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
	var promoted *configv1beta1.ClusterPromotion
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got := &configv1beta1.ClusterPromotion{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(p), got); err != nil {
			return err
		}
		if !meta.IsStatusConditionTrue(got.Status.Conditions, configv1beta1.PromotionReadyCondition) {
			return fmt.Errorf("not Ready: %+v", got.Status.Conditions)
		}
		promoted = got
		return nil
	})
	configMapOn(t, "prod")
	if len(promoted.Status.Stages) != 2 || promoted.Status.Stages[1].LastUpdateReconciledTime == nil ||
		promoted.Status.Stages[1].LastUpdateReconciledTime.Time.Before(soakEnds) {
		t.Errorf("prod started before dev's soak ended at %v: %+v", soakEnds, promoted.Status.Stages)
	}
	if again := configMapOn(t, "dev"); again.UID != dev.UID || again.ResourceVersion != dev.ResourceVersion {
		t.Errorf("dev was redeployed after the restart")
	}
	// The history, written with each transition, went on from where the first controller left
	// it: one version, through dev (after its soak, on the controllers' clock) and prod.
	h := promoted.Status.History
	if len(h) != 1 || h[0].Outcome != configv1beta1.OutcomeSucceeded || len(h[0].Stages) != 2 ||
		h[0].Stages[0].Name != "dev" || h[0].Stages[0].Outcome != configv1beta1.OutcomeSucceeded || h[0].Stages[0].Finished == nil ||
		h[0].Stages[0].Finished.Time.Before(soakEnds) || h[0].Stages[1].Outcome != configv1beta1.OutcomeSucceeded {
		t.Errorf("history after the restart: %+v", h)
	}
}

func managed(t *testing.T, name string) *rest.Config {
	t.Helper()
	for _, cl := range testenv.Fleet.Managed {
		if cl.Name == name {
			return cl.Config
		}
	}
	t.Fatalf("no cluster %s", name)
	return nil
}

func configMapOn(t *testing.T, cluster string) *corev1.ConfigMap {
	t.Helper()
	cm, err := kubernetes.NewForConfigOrDie(managed(t, cluster)).CoreV1().ConfigMaps("restart").Get(t.Context(), "settings", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("%s: %v", cluster, err)
	}
	return cm
}
