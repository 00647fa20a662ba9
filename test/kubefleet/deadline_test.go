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
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testenv"
)

// TestProgressDeadlineFailsRun: member3 already has a Namespace of the placement's name, which
// the placement may not take over, so the stage never finishes. Its failure budget tolerates the
// one failing cluster; its progress deadline does not, and the run fails when it passes, naming
// member3, while member1 and member2 keep what they received.
func TestProgressDeadlineFailsRun(t *testing.T) {
	c := testenv.Client(t)
	const deadline = 15 * time.Second
	one := intstr.FromInt32(1)
	strategy := &placementv1beta1.ClusterStagedUpdateStrategy{ObjectMeta: metav1.ObjectMeta{Name: "pd-strategy"}}
	strategy.Spec.Stages = []placementv1beta1.StageConfig{{Name: "all", LabelSelector: &metav1.LabelSelector{},
		MaxConcurrency: ptr(intstr.FromString("100%")), MaxFailures: &one, ProgressDeadline: &metav1.Duration{Duration: deadline}}}
	crp := externalPlacement("pd-placement", "pd-ns")
	crp.Spec.Strategy.ApplyStrategy = &placementv1beta1.ApplyStrategy{WhenToTakeOver: placementv1beta1.WhenToTakeOverTypeNever}
	theirs := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "pd-ns", Labels: map[string]string{"owner": "member3"}}}
	if _, err := member(t, "member3").CoreV1().Namespaces().Create(t.Context(), theirs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = member(t, "member3").CoreV1().Namespaces().Delete(context.Background(), "pd-ns", metav1.DeleteOptions{})
	})
	run := &placementv1beta1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: "pd-run"}}
	run.Spec.PlacementName, run.Spec.StagedUpdateStrategyName = "pd-placement", "pd-strategy"
	for _, obj := range []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "pd-ns"}}, strategy, crp} {
		if err := c.Create(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Delete(context.Background(), obj) })
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		return c.Get(ctx, client.ObjectKey{Name: "pd-placement-0-snapshot"}, &placementv1beta1.ClusterResourceSnapshot{})
	})
	if err := c.Create(t.Context(), run); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), run) })

	var failed *placementv1beta1.ClusterStagedUpdateRun
	testenv.Eventually(t, timeout+deadline, func(ctx context.Context) error {
		var err error
		if failed, err = getRun(ctx, "pd-run", c); err != nil {
			return err
		}
		if s := meta.FindStatusCondition(failed.Status.Conditions, "Succeeded"); s == nil || s.Status != metav1.ConditionFalse {
			return fmt.Errorf("pd-run has not failed: %+v", failed.Status.Conditions)
		}
		return nil
	})
	msg := meta.FindStatusCondition(failed.Status.Conditions, "Succeeded").Message
	if !strings.Contains(msg, "stage all failed: the stage was not deployed and healthy by its progressDeadline (") ||
		!strings.Contains(msg, "; failing: member3: ") {
		t.Errorf("pd-run says %q", msg)
	}
	st := failed.Status.StagesStatus[0]
	if st.StartTime == nil || st.ProgressDeadlineTime == nil || !st.ProgressDeadlineTime.Time.Equal(st.StartTime.Add(deadline)) {
		t.Errorf("stage all started at %v, progressDeadlineTime %v; want %s later", st.StartTime, st.ProgressDeadlineTime, deadline)
	}
	for _, m := range []string{"member1", "member2"} {
		if _, err := member(t, m).CoreV1().Namespaces().Get(t.Context(), "pd-ns", metav1.GetOptions{}); err != nil {
			t.Errorf("%s: %v", m, err)
		}
	}
	got, err := member(t, "member3").CoreV1().Namespaces().Get(t.Context(), "pd-ns", metav1.GetOptions{})
	if err != nil || got.Labels["owner"] != "member3" {
		t.Errorf("member3's own pd-ns: %v (%v)", got.Labels, err)
	}
}
