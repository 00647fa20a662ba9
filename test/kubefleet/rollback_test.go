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

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestRollbackRun: a run whose canary stage fails (member3 holds an object the placement may not
// take over) fails, and its strategy's onFailure: Rollback starts a run back to the previous
// snapshot, stage by stage in reverse and without waits, which takes the new object off member2,
// the staging cluster that had received it, and gives member2 back the override it ran before;
// what member3 held stays as it was.
func TestRollbackRun(t *testing.T) {
	c := kclient(t)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "rb-ns"}}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "rb-cm", Namespace: "rb-ns"}, Data: map[string]string{"key": "value1"}}
	zero := intstr.FromInt32(0)
	strategy := &placementv1beta1.ClusterStagedUpdateStrategy{ObjectMeta: metav1.ObjectMeta{Name: "rb-strategy"}}
	strategy.Spec.OnFailure = placementv1beta1.OnFailureRollback
	strategy.Spec.Stages = []placementv1beta1.StageConfig{
		{Name: "staging", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"environment": "staging"}},
			AfterStageTasks: []placementv1beta1.StageTask{{Type: placementv1beta1.StageTaskTypeApproval}}},
		{Name: "canary", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"environment": "canary"}}, SortingLabelKey: ptr("order"),
			MaxFailures: &zero},
	}
	crp := externalPlacement("rb-placement", "rb-ns")
	crp.Spec.Strategy.ApplyStrategy = &placementv1beta1.ApplyStrategy{WhenToTakeOver: placementv1beta1.WhenToTakeOverTypeNever}
	// An override the rollback puts back: "one" with snapshot 0, "two" from the failing run on.
	ro := resourceOverride("rb-flavour", "rb-ns", "", "ConfigMap", "rb-cm", placementv1beta1.OverrideRule{ClusterSelector: everyCluster(),
		JSONPatchOverrides: []placementv1beta1.JSONPatchOverride{jsonPatch("add", "/data/flavour", `"one"`)}})
	createAll(t, ns, cm, strategy, ro, crp)
	waitLatestOverrideSnapshot(t, "rb-ns", "rb-flavour-0")
	start := func(name, index string) {
		t.Helper()
		r := &placementv1beta1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: name}}
		r.Spec.PlacementName, r.Spec.StagedUpdateStrategyName, r.Spec.ResourceSnapshotIndex = "rb-placement", "rb-strategy", index
		if err := c.Create(t.Context(), r); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Delete(context.Background(), r) })
	}
	approveStaging := func(run string) {
		t.Helper()
		approve(t, &placementv1beta1.ClusterApprovalRequest{ObjectMeta: metav1.ObjectMeta{Name: run + "-staging"}},
			"004-approval-patch-clusterapprovalrequest-example-run-canary.json")
	}

	waitSnapshot(t, "rb-placement-0-snapshot")
	start("rb-run-1", "0")
	writtenInV1(t, strategy, crp, &placementv1beta1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: "rb-run-1"}})
	approveStaging("rb-run-1")
	runSucceeded(t, "rb-run-1")

	// member3 has a ConfigMap of its own, which the placement may not take over, and the next
	// snapshot holds one of the same name.
	mine := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "rb-extra", Namespace: "rb-ns"}, Data: map[string]string{"owner": "member3"}}
	if _, err := member(t, "member3").CoreV1().ConfigMaps("rb-ns").Create(t.Context(), mine, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	extra := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "rb-extra", Namespace: "rb-ns"}, Data: map[string]string{"owner": "hub"}}
	if err := c.Create(t.Context(), extra); err != nil {
		t.Fatal(err)
	}
	waitSnapshot(t, "rb-placement-1-snapshot")
	updateOverride(t, ro, "rb-flavour-1", placementv1beta1.OverrideRule{ClusterSelector: everyCluster(),
		JSONPatchOverrides: []placementv1beta1.JSONPatchOverride{jsonPatch("add", "/data/flavour", `"two"`)}})
	start("rb-run-2", "1")
	approveStaging("rb-run-2")
	// Staging's approval is asked for once staging runs the new snapshot: member2 has it.
	if _, err := member(t, "member2").CoreV1().ConfigMaps("rb-ns").Get(t.Context(), "rb-extra", metav1.GetOptions{}); err != nil {
		t.Fatalf("member2 does not run the new snapshot: %v", err)
	}
	if data, err := memberConfigMap(t.Context(), t, "member2", "rb-ns", "rb-cm"); err != nil || data["flavour"] != "two" {
		t.Fatalf("member2 does not run the new override: %v (%v)", data, err)
	}

	failed := runFailed(t, "rb-run-2", timeout)
	msg := meta.FindStatusCondition(failed.Status.Conditions, "Succeeded").Message
	for _, want := range []string{"stage canary failed: 1 cluster fails, more than maxFailures allows (0): member3: ",
		"rolling back: started ClusterStagedUpdateRun rb-run-2-rollback to resource snapshot index 0"} {
		if !strings.Contains(msg, want) {
			t.Errorf("rb-run-2 says %q, want %q in it", msg, want)
		}
	}
	if failed.Status.RollbackRunName != "rb-run-2-rollback" {
		t.Errorf("status.rollbackRunName %q", failed.Status.RollbackRunName)
	}
	t.Cleanup(func() {
		_ = c.Delete(context.Background(), &placementv1beta1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: "rb-run-2-rollback"}})
	})

	// The rollback run needs no approval and no wait.
	rollback := runSucceeded(t, "rb-run-2-rollback")
	if rollback.Annotations[placementv1beta1.RollbackOfAnnotation] != "rb-run-2" || rollback.Status.ResourceSnapshotIndexUsed != "0" {
		t.Errorf("rollback run %v, index %s", rollback.Annotations, rollback.Status.ResourceSnapshotIndexUsed)
	}
	// It goes back through the stages in reverse: canary, which received the change last, first.
	var order []string
	for _, st := range rollback.Status.StagesStatus {
		order = append(order, st.StageName)
	}
	if strings.Join(order, ",") != "canary,staging" {
		t.Errorf("the rollback run's stages are %v, want canary then staging", order)
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if _, err := member(t, "member2").CoreV1().ConfigMaps("rb-ns").Get(ctx, "rb-extra", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("member2 still has rb-extra (%v)", err)
		}
		return nil
	})
	// member2 ran the failing run's override; the rollback restores the one it had before.
	waitData(t, "rb-ns", "rb-cm", "flavour", map[string]string{"member2": "one"})
	got, err := member(t, "member3").CoreV1().ConfigMaps("rb-ns").Get(t.Context(), "rb-extra", metav1.GetOptions{})
	if err != nil || got.Data["owner"] != "member3" {
		t.Errorf("member3's own rb-extra: %v (%v)", got.Data, err)
	}
}
