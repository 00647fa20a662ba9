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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/notifysink"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestNotifyUpdateRun: an update run whose staging stage asks for an approval posts
// approval.needed, naming the approval request, then version.completed once approved and
// done, to a CloudEvents endpoint and a Slack one; a run that cannot start posts stage.failed.
func TestNotifyUpdateRun(t *testing.T) {
	sink := notifysink.New(t)
	notifysink.Start(t, "nt-notify", "endpoints", fmt.Sprintf("endpoints:\n- name: ce\n  type: CloudEvents\n  url: %[1]s/ce\n"+
		"- name: chat\n  type: Slack\n  url: %[1]s/services/s3cret\n", sink.URL), "record")
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "nt-ns"}}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "nt-cm", Namespace: "nt-ns"}, Data: map[string]string{"key": "value1"}}
	strategy := &placementv1beta1.ClusterStagedUpdateStrategy{ObjectMeta: metav1.ObjectMeta{Name: "nt-strategy"}}
	strategy.Spec.Stages = []placementv1beta1.StageConfig{
		{Name: "staging", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"environment": "staging"}},
			AfterStageTasks: []placementv1beta1.StageTask{{Type: placementv1beta1.StageTaskTypeApproval}}},
		{Name: "canary", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"environment": "canary"}}, SortingLabelKey: ptr("order")},
	}
	createAll(t, ns, cm, strategy, externalPlacement("nt-placement", "nt-ns"))
	waitSnapshot(t, "nt-placement-0-snapshot")
	run := &placementv1beta1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: "nt-run"}}
	run.Spec.PlacementName, run.Spec.StagedUpdateStrategyName, run.Spec.ResourceSnapshotIndex = "nt-placement", "nt-strategy", "0"
	createAll(t, run)

	const subject = "ClusterStagedUpdateRun nt-run"
	t.Cleanup(func() {
		if t.Failed() {
			got := &placementv1beta1.ClusterStagedUpdateRun{}
			_ = testenv.Client(t).Get(context.Background(), client.ObjectKey{Name: "nt-run"}, got)
			t.Logf("run status: %s", mustJSON(t, got.Status))
		}
	})
	approval := sink.WaitCloudEvent(t, subject, "approval.needed", "staging")
	if approval.Data.Version != "0" || !strings.Contains(approval.Data.Message, "ClusterApprovalRequest nt-run-staging") {
		t.Errorf("approval.needed %+v", approval.Data)
	}
	approve(t, &placementv1beta1.ClusterApprovalRequest{ObjectMeta: metav1.ObjectMeta{Name: "nt-run-staging"}},
		"004-approval-patch-clusterapprovalrequest-example-run-canary.json")
	runSucceeded(t, "nt-run")
	sink.WaitCloudEvent(t, subject, "version.completed", "")
	testenv.Eventually(t, timeout, func(context.Context) error {
		for _, want := range []string{"approval.needed: ClusterStagedUpdateRun nt-run, stage staging", "version.completed: ClusterStagedUpdateRun nt-run"} {
			if len(sink.Texts(want)) != 1 {
				return fmt.Errorf("Slack texts %q, want one with %q", sink.Texts("nt-run"), want)
			}
		}
		return nil
	})

	// A run whose strategy does not exist cannot start: stage.failed, without a stage.
	bad := &placementv1beta1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: "nt-run-bad"}}
	bad.Spec.PlacementName, bad.Spec.StagedUpdateStrategyName, bad.Spec.ResourceSnapshotIndex = "nt-placement", "nt-absent", "0"
	createAll(t, bad)
	failed := sink.WaitCloudEvent(t, "ClusterStagedUpdateRun nt-run-bad", "stage.failed", "")
	if !strings.Contains(failed.Data.Message, "the run could not start") || !strings.Contains(failed.Data.Message, "nt-absent") {
		t.Errorf("stage.failed %+v", failed.Data)
	}
}
