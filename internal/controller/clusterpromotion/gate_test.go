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
	clock.Advance(soak + time.Second)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := get(ctx)
		if err != nil {
			return err
		}
		if got.Status.CurrentStageName != "dev" {
			return fmt.Errorf("promoted to %s while dev was unreachable", got.Status.CurrentStageName)
		}
		if msg := got.Status.Stages[0].FailureMessage; msg == nil || !strings.HasPrefix(*msg, "Cluster dev/dev is not ready") {
			return fmt.Errorf("dev's failureMessage %v", msg)
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
