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
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// startController runs every Stagecoach controller for the test, deciding on clock's time
// (nil: the real one); tweaks change the manager's options.
func startController(t *testing.T, clock *testenv.Clock, tweaks ...func(*ctrl.Options)) {
	opts := controller.Options{ProbeInterval: time.Second, HealthInterval: time.Second}
	if clock != nil {
		opts.Now = clock.Now
	}
	testenv.StartManager(t, func(mgr ctrl.Manager) error { return controller.Setup(mgr, opts) }, tweaks...)
}

// content is what a test promotion deploys: a ConfigMap named name in default, holding value.
func content(name, value string) map[string]string {
	return map[string]string{"cm.yaml": fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n  namespace: default\ndata:\n  value: %s\n", name, value)}
}

// devThenProd is a promotion of the ConfigMap default/<name> through dev (env=dev), then prod
// (env=prod), each stage behind its trigger (nil for none).
func devThenProd(name string, dev, prod *configv1beta1.Trigger) *configv1beta1.ClusterPromotion {
	p := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: name}}
	p.Spec.ProfileSpec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: "ConfigMap", Namespace: "default", Name: name}}
	p.Spec.Stages = []configv1beta1.Stage{{Name: "dev", Trigger: dev}, {Name: "prod", Trigger: prod}}
	p.Spec.Stages[0].ClusterSelector.MatchLabels = map[string]string{"env": "dev"}
	p.Spec.Stages[1].ClusterSelector.MatchLabels = map[string]string{"env": "prod"}
	return p
}

// soak is an auto trigger with the delay d.
func soak(d time.Duration) *configv1beta1.Trigger {
	return &configv1beta1.Trigger{Auto: &configv1beta1.AutoTrigger{Delay: &metav1.Duration{Duration: d}}}
}

// create creates the ConfigMap the promotion deploys, with data, and the promotion. When the
// test ends both are deleted and the test waits for the promotion to be gone: its finalizer
// needs the controller, so start that first (cleanups run last registered first).
func create(t *testing.T, p *configv1beta1.ClusterPromotion, data map[string]string) *corev1.ConfigMap {
	t.Helper()
	c := testenv.Client(t)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: "default"}, Data: data}
	if err := c.Create(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
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
	return cm
}

// get reads the promotion as it is now.
func get(ctx context.Context, t *testing.T, p *configv1beta1.ClusterPromotion) (*configv1beta1.ClusterPromotion, error) {
	got := &configv1beta1.ClusterPromotion{}
	return got, testenv.Client(t).Get(ctx, client.ObjectKeyFromObject(p), got)
}

// edit applies a JSON patch to the promotion.
func edit(t *testing.T, p *configv1beta1.ClusterPromotion, ops string) {
	t.Helper()
	if err := testenv.Client(t).Patch(t.Context(), p, client.RawPatch(types.JSONPatchType, []byte(ops))); err != nil {
		t.Fatal(err)
	}
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

func completedPromotion(p *configv1beta1.ClusterPromotion) bool {
	return meta.IsStatusConditionTrue(p.Status.Conditions, configv1beta1.PromotionReadyCondition)
}
