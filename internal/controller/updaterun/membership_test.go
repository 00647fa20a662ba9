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

package updaterun

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

func started(name string, succeeded bool) placementv1beta1.ClusterUpdatingStatus {
	c := placementv1beta1.ClusterUpdatingStatus{ClusterName: name,
		Conditions: []metav1.Condition{{Type: string(placementv1beta1.ClusterUpdatingConditionStarted), Status: metav1.ConditionTrue}}}
	if succeeded {
		c.Conditions = append(c.Conditions, metav1.Condition{Type: string(placementv1beta1.ClusterUpdatingConditionSucceeded), Status: metav1.ConditionTrue})
	}
	return c
}

// TestDropLeft: clusters the placement no longer picks leave a stage not finished, started or
// not, but one that succeeded stays; those still bound go to the deletion stage.
func TestDropLeft(t *testing.T) {
	st := placementv1beta1.StageUpdatingStatus{StageName: "prod", Clusters: []placementv1beta1.ClusterUpdatingStatus{
		started("done-gone", true), started("updating-gone", false), {ClusterName: "waiting-gone"}, {ClusterName: "stays"}}}
	ru := &run{spec: &placementv1beta1.UpdateRunSpec{PlacementName: "web"}, status: &placementv1beta1.UpdateRunStatus{
		StagesStatus: []placementv1beta1.StageUpdatingStatus{st}, DeletionStageStatus: &placementv1beta1.StageUpdatingStatus{}}}
	bound := map[string]placementv1beta1.BindingObj{"updating-gone": &placementv1beta1.ClusterResourceBinding{}}
	picked := func(name string) bool { return name == "stays" }
	r := &kindReconciler{Reconciler: &Reconciler{}}
	r.dropLeft(ru, &ru.status.StagesStatus[0], picked, bound)
	if got := stageNames(&ru.status.StagesStatus[0]); !slices.Equal(got, []string{"done-gone", "stays"}) {
		t.Errorf("stage prod names %v, want done-gone (succeeded) and stays", got)
	}
	if got := stageNames(ru.status.DeletionStageStatus); !slices.Equal(got, []string{"updating-gone"}) {
		t.Errorf("the deletion stage names %v, want the one still bound", got)
	}

	// A bounded stage counts one cluster fewer.
	bounded := placementv1beta1.StageUpdatingStatus{StageName: "big", NotStartedClusters: []string{"a", "gone"},
		ClusterCounts: &placementv1beta1.StageClusterCounts{Total: 150}}
	r.dropLeft(ru, &bounded, func(n string) bool { return n != "gone" }, nil)
	if !slices.Equal(bounded.NotStartedClusters, []string{"a"}) || bounded.ClusterCounts.Total != 149 {
		t.Errorf("bounded stage: %v, total %d", bounded.NotStartedClusters, bounded.ClusterCounts.Total)
	}
}

// TestRestartStage: a failed run's stage starts over in its retry: no condition or time left,
// clusters not started but with their pinned overrides, approval requests named for the new run.
func TestRestartStage(t *testing.T) {
	now := metav1.Now()
	failed := started("member2", false)
	failed.ResourceOverrideSnapshots = []placementv1beta1.NamespacedName{{Name: "ro-1", Namespace: "app"}}
	st := placementv1beta1.StageUpdatingStatus{StageName: "canary", StartTime: &now, EndTime: &now, ProgressDeadlineTime: &now,
		Conditions: []metav1.Condition{{Type: string(placementv1beta1.StageUpdatingConditionSucceeded), Status: metav1.ConditionFalse}},
		Clusters:   []placementv1beta1.ClusterUpdatingStatus{failed},
		AfterStageTaskStatus: []placementv1beta1.StageTaskStatus{{Type: placementv1beta1.StageTaskTypeApproval, ApprovalRequestName: "old-canary",
			Conditions: []metav1.Condition{{Type: string(placementv1beta1.StageTaskConditionApprovalRequestCreated), Status: metav1.ConditionTrue}}}},
		BeforeStageTaskStatus: []placementv1beta1.StageTaskStatus{{Type: placementv1beta1.StageTaskTypeApproval, ApprovalRequestName: "old-before-canary"}}}
	restartStage(&st, "new")
	if st.Conditions != nil || st.StartTime != nil || st.EndTime != nil || st.ProgressDeadlineTime != nil {
		t.Errorf("stage not reset: %+v", st)
	}
	c := st.Clusters[0]
	if c.Conditions != nil || len(c.ResourceOverrideSnapshots) != 1 {
		t.Errorf("cluster %+v: want no condition and its pinned overrides", c)
	}
	if a, b := st.AfterStageTaskStatus[0], st.BeforeStageTaskStatus[0]; a.ApprovalRequestName != "new-canary" || a.Conditions != nil || b.ApprovalRequestName != "new-before-canary" {
		t.Errorf("tasks %+v, %+v", a, b)
	}
}

// TestInitializeRetryRefuses: a run that retries a run that does not exist, has not failed,
// never started or updates another placement fails to initialize, saying why.
func TestInitializeRetryRefuses(t *testing.T) {
	cond := func(typ placementv1beta1.StagedUpdateRunConditionType, s metav1.ConditionStatus) metav1.Condition {
		return metav1.Condition{Type: string(typ), Status: s, Reason: "r"}
	}
	old := func(name, placement string, conds ...metav1.Condition) *placementv1beta1.ClusterStagedUpdateRun {
		r := &placementv1beta1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: name}}
		r.Spec.PlacementName = placement
		r.Status.Conditions = conds
		r.Status.UpdateStrategySnapshot = &placementv1beta1.UpdateStrategySpec{}
		return r
	}
	initialized := cond(placementv1beta1.StagedUpdateRunConditionInitialized, metav1.ConditionTrue)
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(
		old("running", "web", initialized),
		old("never", "web", cond(placementv1beta1.StagedUpdateRunConditionInitialized, metav1.ConditionFalse)),
		old("other", "api", initialized, cond(placementv1beta1.StagedUpdateRunConditionSucceeded, metav1.ConditionFalse)),
	).Build()
	r := &kindReconciler{Reconciler: &Reconciler{client: c}, family: placementv1beta1.ClusterFamily}
	for of, want := range map[string]string{
		"gone":    "ClusterStagedUpdateRun gone, which this run retries, not found",
		"running": "ClusterStagedUpdateRun running, which this run retries, has not failed: only a failed run can be retried",
		"never":   "ClusterStagedUpdateRun never, which this run retries, never started: there is nothing to resume",
		"other":   "ClusterStagedUpdateRun other, which this run retries, updates api, not web",
	} {
		ru := &run{spec: &placementv1beta1.UpdateRunSpec{PlacementName: "web"}, status: &placementv1beta1.UpdateRunStatus{},
			inputs: inputs{Client: c, family: placementv1beta1.ClusterFamily}}
		ru.UpdateRunObj = &placementv1beta1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: "retry"}}
		msg, ok := isAbort(r.initializeRetry(t.Context(), ru, of))
		if !ok || msg != want {
			t.Errorf("retrying %s: %q (abort %t), want %q", of, msg, ok, want)
		}
	}
}
