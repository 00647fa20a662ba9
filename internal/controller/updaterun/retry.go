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
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// initializeRetry initializes a run that retries the failed run of (stagecoach.dev/retry-of):
// it takes that run's apply strategy, resource snapshot, strategy copy, stages and clusters with
// their pinned override snapshots, rather than reading them again, keeps the stages that
// succeeded as they were, and starts over at the first one that did not. The snapshot must still
// exist; anything else the user must fix is an abortError.
func (r *kindReconciler) initializeRetry(ctx context.Context, ru *run, of string) error {
	old := r.family.NewUpdateRun()
	name := ru.inputs.describe(r.family.UpdateRunKind(), of)
	if err := r.client.Get(ctx, r.family.Key(ru.GetNamespace(), of), old); err != nil {
		if client.IgnoreNotFound(err) != nil {
			return err
		}
		return r.missing(ctx, old, r.family.Key(ru.GetNamespace(), of), name+", which this run retries,")
	}
	st := old.UpdateRunStatus()
	init := meta.FindStatusCondition(st.Conditions, string(placementv1beta1.StagedUpdateRunConditionInitialized))
	succeeded := meta.FindStatusCondition(st.Conditions, string(placementv1beta1.StagedUpdateRunConditionSucceeded))
	switch {
	case old.UpdateRunSpec().PlacementName != ru.spec.PlacementName:
		return abort(fmt.Sprintf("%s, which this run retries, updates %s, not %s", name, old.UpdateRunSpec().PlacementName, ru.spec.PlacementName))
	case init == nil || init.Status != "True" || st.UpdateStrategySnapshot == nil:
		return abort(name + ", which this run retries, never started: there is nothing to resume")
	case succeeded == nil || succeeded.Status != "False":
		return abort(name + ", which this run retries, has not failed: only a failed run can be retried")
	case ru.spec.ResourceSnapshotIndex != "" && ru.spec.ResourceSnapshotIndex != st.ResourceSnapshotIndexUsed:
		return abort(fmt.Sprintf("this run names resource snapshot index %s, but %s, which it retries, rolled out %s",
			ru.spec.ResourceSnapshotIndex, name, st.ResourceSnapshotIndexUsed))
	}
	// The snapshot must still be there (a placement keeps only the latest few).
	asked := ru.spec.ResourceSnapshotIndex
	ru.spec.ResourceSnapshotIndex = st.ResourceSnapshotIndexUsed
	_, err := r.resourceIndex(ctx, ru, ru.inputs.describe(r.family.PlacementKind(), ru.spec.PlacementName))
	ru.spec.ResourceSnapshotIndex = asked
	if err != nil {
		return err
	}
	ru.status.ApplyStrategy = st.ApplyStrategy.DeepCopy()
	ru.status.PolicySnapshotIndexUsed = st.PolicySnapshotIndexUsed
	ru.status.PolicyObservedClusterCount = st.PolicyObservedClusterCount
	ru.status.ResourceSnapshotIndexUsed = st.ResourceSnapshotIndexUsed
	ru.status.UpdateStrategySnapshot = st.UpdateStrategySnapshot.DeepCopy()
	ru.status.StagesStatus = nil
	resumed := false
	for i := range st.StagesStatus {
		stage := *st.StagesStatus[i].DeepCopy()
		if resumed || !stageSucceeded(&stage) {
			resumed = true
			restartStage(&stage, ru.GetName())
		}
		ru.status.StagesStatus = append(ru.status.StagesStatus, stage)
	}
	if d := st.DeletionStageStatus; d != nil {
		deletion := *d.DeepCopy()
		restartStage(&deletion, ru.GetName())
		ru.status.DeletionStageStatus = &deletion
	}
	return nil
}

// restartStage makes a stage of a failed run's copy start again: no condition, no time, its
// clusters not started (each keeping its pinned override snapshots), its approval requests this
// run's.
func restartStage(st *placementv1beta1.StageUpdatingStatus, run string) {
	st.Conditions = nil
	st.StartTime, st.EndTime, st.StoppedTime, st.ProgressDeadlineTime = nil, nil, nil, nil
	for j := range st.Clusters {
		st.Clusters[j].Conditions = nil
	}
	for _, tasks := range []struct {
		list []placementv1beta1.StageTaskStatus
		fmt  string
	}{{st.BeforeStageTaskStatus, placementv1beta1.BeforeStageApprovalTaskNameFmt}, {st.AfterStageTaskStatus, placementv1beta1.AfterStageApprovalTaskNameFmt}} {
		for j := range tasks.list {
			t := &tasks.list[j]
			t.Conditions = nil
			if t.Type == placementv1beta1.StageTaskTypeApproval {
				t.ApprovalRequestName = fmt.Sprintf(tasks.fmt, run, st.StageName)
			}
		}
	}
}
