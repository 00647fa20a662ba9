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

package view

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// TestPromotionHistoryJSON: the JSON has the keys `stagecoach history promotion -o json`
// documents, null times included, and the text names the approver.
func TestPromotionHistoryJSON(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
	p := &configv1beta1.ClusterPromotion{}
	p.Status.History = []configv1beta1.VersionRecord{{ProfileSpecHash: []byte{0xab, 0xcd}, Outcome: configv1beta1.OutcomeInProgress, Started: t0,
		Deployed: []string{"ConfigMap default/x"},
		Stages: []configv1beta1.StageRecord{
			{Name: "qa", Outcome: configv1beta1.OutcomeSucceeded, Started: &t0, Finished: &t0, ApprovedBy: "alice", ApprovedAt: &t0, Retries: 2},
			{Name: "prod", Outcome: configv1beta1.OutcomeInProgress, Started: &t0},
		}}}
	h := PromotionHistoryOf(p)
	data, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"versions":[{"version":"abcd","outcome":"InProgress","started":"2026-11-27T10:00:00Z","finished":null,` +
		`"deployed":["ConfigMap default/x"],"stages":[` +
		`{"name":"qa","started":"2026-11-27T10:00:00Z","finished":"2026-11-27T10:00:00Z","outcome":"Succeeded","approvedBy":"alice","approvedAt":"2026-11-27T10:00:00Z","retries":2},` +
		`{"name":"prod","started":"2026-11-27T10:00:00Z","finished":null,"outcome":"InProgress","approvedBy":""}]}]}`
	if string(data) != want {
		t.Errorf("JSON\n%s\nwant\n%s", data, want)
	}
	var b strings.Builder
	if err := WriteHistoryText(&b, h); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.HasPrefix(out, "Version abcd: InProgress") || !strings.Contains(out, "approved by alice at 2026-11-27T10:00:00Z") || !strings.Contains(out, "retried 2 times") {
		t.Errorf("text:\n%s", out)
	}
	if data, _ := json.Marshal(PromotionHistoryOf(&configv1beta1.ClusterPromotion{})); string(data) != `{"versions":[]}` {
		t.Errorf("no history: %s", data)
	}
}

// TestRunVersion: an update run as a version: its snapshot, outcome, the stages it reached, and
// when an approval was asked for and given.
func TestRunVersion(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Minute))
	r := &placementv1beta1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: "run-1"}}
	r.Spec.ResourceSnapshotIndex = "3"
	r.Status.Conditions = []metav1.Condition{{Type: string(placementv1beta1.StagedUpdateRunConditionSucceeded), Status: metav1.ConditionTrue, LastTransitionTime: t1}}
	approval := placementv1beta1.StageTaskStatus{Type: placementv1beta1.StageTaskTypeApproval, ApprovalRequestName: "run-1-dev", Conditions: []metav1.Condition{
		{Type: string(placementv1beta1.StageTaskConditionApprovalRequestCreated), Status: metav1.ConditionTrue, LastTransitionTime: t0},
		{Type: string(placementv1beta1.StageTaskConditionApprovalRequestApproved), Status: metav1.ConditionTrue, LastTransitionTime: t1},
	}}
	r.Status.StagesStatus = []placementv1beta1.StageUpdatingStatus{
		{StageName: "dev", StartTime: &t0, EndTime: &t1, AfterStageTaskStatus: []placementv1beta1.StageTaskStatus{approval},
			Conditions: []metav1.Condition{{Type: string(placementv1beta1.StageUpdatingConditionSucceeded), Status: metav1.ConditionTrue}}},
		{StageName: "never"},
	}
	v := RunVersion(r, map[string]string{"run-1-dev": "alice"})
	if v.Version != "3" || v.Run != "run-1" || v.Outcome != configv1beta1.OutcomeSucceeded || !v.Started.Equal(&t0) || !v.Finished.Equal(&t1) || len(v.Stages) != 1 {
		t.Fatalf("version %+v", v)
	}
	if s := v.Stages[0]; s.Name != "dev" || s.Outcome != configv1beta1.OutcomeSucceeded || !s.ApprovalNeededSince.Equal(&t0) || !s.ApprovedAt.Equal(&t1) || s.ApprovedBy != "alice" {
		t.Errorf("stage %+v", s)
	}
}
