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

package notify

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// ForUpdateRun derives the events a staged update run's status says are due: approvals its
// stages wait for (while they wait: one given before this controller saw it wanted is not
// told), the stage or the run that failed (or could not start), the run that succeeded, and its
// rollback run (a run marked stagecoach.dev/rollback-of: started when the failed run names it,
// finished when it succeeds). A run is one attempt (a retry is a new run, of another UID), so
// its ids need no attempt. recheck is as for ForPromotion.
func ForUpdateRun(run placementv1beta1.UpdateRunObj, now time.Time, blockedAfter time.Duration) (events []Event, recheck time.Duration) {
	fam := placementv1beta1.FamilyOf(run)
	obj := Object{APIVersion: placementv1beta1.GroupVersion.String(), Kind: fam.UpdateRunKind(), Namespace: run.GetNamespace(), Name: run.GetName(), UID: run.GetUID()}
	st := run.UpdateRunStatus()
	version := st.ResourceSnapshotIndexUsed
	rollbackOf := run.GetAnnotations()[placementv1beta1.RollbackOfAnnotation]
	add := func(typ, stage, idStage string, at time.Time, msg string) {
		if at.IsZero() {
			at = now
		}
		ev := newEvent(obj, typ, version, idStage, nil, at, msg)
		ev.Stage = stage
		events = append(events, ev)
	}
	var current *placementv1beta1.StageUpdatingStatus
	for i := range st.StagesStatus {
		s := &st.StagesStatus[i]
		// A stage that succeeded waits for nothing: that includes the stages a retry run
		// (stagecoach.dev/retry-of) keeps from the run it retries, their requests created and
		// approved there.
		passed := meta.IsStatusConditionTrue(s.Conditions, string(placementv1beta1.StageUpdatingConditionSucceeded))
		for part, tasks := range [][]placementv1beta1.StageTaskStatus{s.BeforeStageTaskStatus, s.AfterStageTaskStatus} {
			for _, t := range tasks {
				c := meta.FindStatusCondition(t.Conditions, string(placementv1beta1.StageTaskConditionApprovalRequestCreated))
				approved := meta.IsStatusConditionTrue(t.Conditions, string(placementv1beta1.StageTaskConditionApprovalRequestApproved))
				if t.Type == placementv1beta1.StageTaskTypeApproval && c != nil && c.Status == metav1.ConditionTrue && !approved && !passed {
					add(TypeApprovalNeeded, s.StageName, s.StageName+"#"+[]string{"before", "after"}[part], c.LastTransitionTime.Time,
						fmt.Sprintf("stage %s waits for the approval of %s %s (%s the stage)", s.StageName, fam.ApprovalRequestKind(), t.ApprovalRequestName, []string{"before", "after"}[part]))
				}
			}
		}
		if c := meta.FindStatusCondition(s.Conditions, string(placementv1beta1.StageUpdatingConditionSucceeded)); c != nil && c.Status == metav1.ConditionFalse {
			add(TypeStageFailed, s.StageName, s.StageName, c.LastTransitionTime.Time, "stage "+s.StageName+" failed: "+c.Message)
		}
		if s.StartTime != nil && s.EndTime == nil && current == nil {
			current = s
		}
	}
	done := meta.FindStatusCondition(st.Conditions, string(placementv1beta1.StagedUpdateRunConditionSucceeded))
	switch {
	case done != nil && done.Status == metav1.ConditionTrue && rollbackOf != "":
		add(TypeRollbackFinished, "", "", done.LastTransitionTime.Time, "the rollback of run "+rollbackOf+" succeeded")
	case done != nil && done.Status == metav1.ConditionTrue:
		add(TypeVersionCompleted, "", "", done.LastTransitionTime.Time, "the run went through every stage (resource snapshot "+version+")")
	case done != nil && done.Status == metav1.ConditionFalse && !hasType(events, TypeStageFailed):
		add(TypeStageFailed, "", "", done.LastTransitionTime.Time, "the run failed: "+done.Message)
	}
	// A run that cannot start (its strategy or placement missing, say) never gets Succeeded.
	if c := meta.FindStatusCondition(st.Conditions, string(placementv1beta1.StagedUpdateRunConditionInitialized)); c != nil && c.Status == metav1.ConditionFalse {
		add(TypeStageFailed, "", "", c.LastTransitionTime.Time, "the run could not start: "+c.Message)
	}
	if st.RollbackRunName != "" {
		add(TypeRollbackStarted, "", "", time.Time{}, "rollback run "+st.RollbackRunName+" started")
	}
	if done != nil || current == nil || hasType(events, TypeStageFailed) || run.UpdateRunSpec().State == placementv1beta1.StateStop {
		return events, 0
	}
	since := now.Sub(current.StartTime.Time)
	if since < blockedAfter {
		return events, blockedAfter - since
	}
	add(TypeStageBlocked, current.StageName, current.StageName, current.StartTime.Add(blockedAfter),
		fmt.Sprintf("stage %s has not finished in %s", current.StageName, since.Round(time.Second)))
	return events, 0
}

func hasType(events []Event, typ string) bool {
	for _, e := range events {
		if e.Type == typ {
			return true
		}
	}
	return false
}
