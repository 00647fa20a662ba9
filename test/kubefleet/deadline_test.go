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
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// TestProgressDeadlineFailsRun: member3 already has a Namespace of the placement's name, which
// the placement may not take over, so the stage never finishes. Its failure budget tolerates the
// one failing cluster; its progress deadline does not, and the run fails when it passes, naming
// member3, while member1 and member2 keep what they received.
func TestProgressDeadlineFailsRun(t *testing.T) {
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
	createAll(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "pd-ns"}}, strategy, crp)
	waitSnapshot(t, "pd-placement-0-snapshot")
	createAll(t, run)

	failed := runFailed(t, "pd-run", timeout+deadline)
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
