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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller"
	"github.com/stagecoach-dev/stagecoach/internal/controller/freeze"
	"github.com/stagecoach-dev/stagecoach/internal/testenv"
)

// TestContentEditStartsANewVersion edits the ConfigMap a completed promotion deploys: the edit is
// a new version, which reaches dev first; prod keeps the content it has while dev soaks, and gets
// the edit only when the rollout reaches it. The copies of old content go once nothing uses them.
func TestContentEditStartsANewVersion(t *testing.T) {
	c := testenv.Client(t)
	clock := &testenv.Clock{}
	testenv.StartManager(t, func(mgr ctrl.Manager) error {
		return controller.Setup(mgr, controller.Options{ProbeInterval: time.Second, HealthInterval: time.Second, Now: clock.Now})
	})
	const name = "content-edit"
	manifest := func(value string) map[string]string {
		return map[string]string{"cm.yaml": fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n  namespace: default\ndata:\n  value: %s\n", name, value)}
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Data: manifest("v1")}
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
	valueOn := func(cluster, want string) {
		t.Helper()
		cms := kubernetes.NewForConfigOrDie(managed(t, cluster)).CoreV1().ConfigMaps("default")
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			got, err := cms.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if got.Data["value"] != want {
				return fmt.Errorf("%s has %q, want %q", cluster, got.Data["value"], want)
			}
			return nil
		})
	}
	devSoaks := func() {
		t.Helper()
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			got := &configv1beta1.ClusterPromotion{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(p), got); err != nil {
				return err
			}
			if got.Status.CurrentStageName != "dev" || len(got.Status.Stages) != 1 || got.Status.Stages[0].LastSuccessfulAppliedTime == nil {
				return fmt.Errorf("dev not soaking: %s %+v", got.Status.CurrentStageName, got.Status.Stages)
			}
			return nil
		})
	}
	complete := func() {
		t.Helper()
		clock.Advance(soak + time.Second)
		poke(t, p)
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			got := &configv1beta1.ClusterPromotion{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(p), got); err != nil {
				return err
			}
			if got.Status.CurrentStageName != "prod" || !completedPromotion(got) {
				return fmt.Errorf("not complete: %s %+v", got.Status.CurrentStageName, got.Status.Conditions)
			}
			return nil
		})
	}
	devSoaks()
	complete()
	valueOn("prod", "v1")

	cm.Data = manifest("v2")
	if err := c.Update(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	valueOn("dev", "v2")
	devSoaks()
	valueOn("prod", "v1") // prod keeps the content of the version it has
	complete()
	valueOn("prod", "v2")

	// Only the copy of the current content is left.
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		var copies corev1.ConfigMapList
		if err := c.List(ctx, &copies, client.MatchingLabels{freeze.OwnerLabel: name}); err != nil {
			return err
		}
		if len(copies.Items) != 1 || copies.Items[0].Data["cm.yaml"] != manifest("v2")["cm.yaml"] {
			return fmt.Errorf("%d copies", len(copies.Items))
		}
		return nil
	})
}

func completedPromotion(p *configv1beta1.ClusterPromotion) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == configv1beta1.PromotionReadyCondition && c.Status == metav1.ConditionTrue {
			return true
		}
	}
	return false
}
