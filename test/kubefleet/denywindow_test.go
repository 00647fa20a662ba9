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

package kubefleet

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestDenyWindowHoldsRun: a run whose strategy has a deny window open starts no stage and says
// until when; once the window is taken off the strategy, the run goes through.
func TestDenyWindowHoldsRun(t *testing.T) {
	c := kclient(t)
	// Open from a minute ago, for an hour: cron expressions of those times of day, in UTC.
	now := time.Now().UTC()
	daily := func(at time.Time) string { return fmt.Sprintf("CRON_TZ=UTC %d %d * * *", at.Minute(), at.Hour()) }
	strategy := &placementv1beta1.ClusterStagedUpdateStrategy{ObjectMeta: metav1.ObjectMeta{Name: "dw-strategy"}}
	strategy.Spec.DenyWindows = []placementv1beta1.TimeWindow{{From: daily(now.Add(-time.Minute)), To: daily(now.Add(time.Hour))}}
	strategy.Spec.Stages = []placementv1beta1.StageConfig{{Name: "all", LabelSelector: &metav1.LabelSelector{}, MaxConcurrency: ptr(intstr.FromString("100%"))}}
	crp := externalPlacement("dw-placement", "dw-ns")
	run := &placementv1beta1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: "dw-run"}}
	run.Spec.PlacementName, run.Spec.StagedUpdateStrategyName = "dw-placement", "dw-strategy"
	createAll(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "dw-ns"}}, strategy, crp)
	waitSnapshot(t, "dw-placement-0-snapshot")
	createAll(t, run)

	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := getRun(ctx, "dw-run", c)
		if err != nil {
			return err
		}
		p := meta.FindStatusCondition(got.Status.Conditions, "Progressing")
		if p == nil || !strings.Contains(p.Message, `stage all may not start: deny window 0 (from "`+strategy.Spec.DenyWindows[0].From+`"`) ||
			!strings.Contains(p.Message, ", until "+now.Add(time.Hour).Truncate(time.Minute).Format(time.RFC3339)) {
			return fmt.Errorf("Progressing %+v", p)
		}
		return nil
	})
	for _, m := range members {
		if _, err := member(t, m).CoreV1().Namespaces().Get(t.Context(), "dw-ns", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("%s got dw-ns during the freeze (%v)", m, err)
		}
	}

	if err := c.Get(t.Context(), client.ObjectKeyFromObject(strategy), strategy); err != nil {
		t.Fatal(err)
	}
	strategy.Spec.DenyWindows = nil
	if err := c.Update(t.Context(), strategy); err != nil {
		t.Fatal(err)
	}
	runSucceeded(t, "dw-run")
	for _, m := range members {
		if _, err := member(t, m).CoreV1().Namespaces().Get(t.Context(), "dw-ns", metav1.GetOptions{}); err != nil {
			t.Errorf("%s: %v", m, err)
		}
	}
}
