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
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

// stageFailure checks the stage's failure budget and progress deadline (maxFailures and
// progressDeadline, extensions of the strategy's stage): why the stage failed, or "" while it has
// not. The deadline is recorded in the stage's status when the stage has started, so that a stop
// can move it on. failing lists the started clusters whose binding reports a failure, "name: reason"; done
// says every cluster of the stage is updated. A stage with neither field never fails this way.
func stageFailure(ru *run, st *placementv1beta1.StageUpdatingStatus, cfg placementv1beta1.StageConfig, failing []string, done bool) (string, error) {
	if cfg.MaxFailures == nil && cfg.ProgressDeadline == nil {
		return "", nil
	}
	budget, err := rollout.MaxFailures(cfg.MaxFailures, st.Size())
	if err != nil {
		return "", abort(fmt.Sprintf("stage %s: %v", st.StageName, err))
	}
	p := rollout.StageProgress{Failing: failing, FailingCount: len(failing), MaxFailures: budget, Provisioned: done}
	if cfg.ProgressDeadline != nil && st.StartTime != nil {
		if st.ProgressDeadlineTime == nil {
			at := metav1.NewTime(st.StartTime.Add(cfg.ProgressDeadline.Duration))
			st.ProgressDeadlineTime = &at
		}
		p.Deadline = st.ProgressDeadlineTime.Time
	}
	return rollout.StageFailure(p, ru.now.Time), nil
}

// failStage fails the stage and the run with why; with the strategy's onFailure Rollback, it
// first starts the rollback run, unless this run is one.
func (r *kindReconciler) failStage(ctx context.Context, ru *run, st *placementv1beta1.StageUpdatingStatus, why string) error {
	msg := fmt.Sprintf("stage %s failed: %s", st.StageName, why)
	ru.setStage(st, placementv1beta1.StageUpdatingConditionSucceeded, metav1.ConditionFalse, placementv1beta1.StageUpdatingFailedReason, msg)
	if ru.status.UpdateStrategySnapshot.OnFailure != placementv1beta1.OnFailureRollback {
		return abort(msg)
	}
	if of := ru.GetAnnotations()[placementv1beta1.RollbackOfAnnotation]; of != "" {
		return abort(msg + "; this run rolls back " + of + ", and is not rolled back in turn")
	}
	name, index, err := r.startRollback(ctx, ru)
	if err != nil {
		return err // the stage fails again on the next pass, which retries
	}
	if name == "" {
		return abort(msg + "; there is no earlier resource snapshot to roll back to")
	}
	ru.status.RollbackRunName = name
	started := fmt.Sprintf("rolling back: started %s %s to resource snapshot index %d", r.family.UpdateRunKind(), name, index)
	r.event(ru, corev1.EventTypeNormal, "RollbackStarted", started)
	return abort(msg + "; " + started)
}

// startRollback creates the run that puts the placement back on the latest resource snapshot
// before the one this run rolls out, and returns its name and that index; "" when there is none.
func (r *kindReconciler) startRollback(ctx context.Context, ru *run) (string, int, error) {
	indices, err := ru.inputs.snapshotIndices(ctx, ru.inputs, ru.spec.PlacementName)
	if err != nil {
		return "", 0, err
	}
	used, _ := strconv.Atoi(ru.status.ResourceSnapshotIndexUsed)
	previous := -1
	for _, i := range indices {
		if i < used {
			previous = i
		}
	}
	if previous < 0 {
		return "", 0, nil
	}
	rb := r.family.NewUpdateRun()
	rb.SetName(rollbackRunName(ru.GetName()))
	rb.SetNamespace(ru.GetNamespace())
	rb.SetAnnotations(map[string]string{placementv1beta1.RollbackOfAnnotation: ru.GetName()})
	*rb.UpdateRunSpec() = placementv1beta1.UpdateRunSpec{
		PlacementName: ru.spec.PlacementName, StagedUpdateStrategyName: ru.spec.StagedUpdateStrategyName,
		ResourceSnapshotIndex: strconv.Itoa(previous), State: placementv1beta1.StateRun,
	}
	if err := r.client.Create(ctx, rb); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", 0, fmt.Errorf("starting the rollback run: %w", err)
	}
	return rb.GetName(), previous, nil
}

// rollbackRunName is the name of the run that rolls back the named run: "<run>-rollback", the
// run's name cut so that it stays a valid name.
func rollbackRunName(run string) string {
	const suffix, limit = "-rollback", 63
	if len(run)+len(suffix) > limit {
		run = run[:limit-len(suffix)]
	}
	return run + suffix
}

// asRollback turns a rollback run's copy of the strategy around: its stages in reverse, so that
// the clusters that received the failing change last are the first to lose it, and stripped of
// what would hold the way back: their tasks (no wait, no approval), failure budgets and deadlines.
func asRollback(strategy *placementv1beta1.UpdateStrategySpec) {
	slices.Reverse(strategy.Stages)
	for i := range strategy.Stages {
		s := &strategy.Stages[i]
		s.BeforeStageTasks, s.AfterStageTasks, s.MaxFailures, s.ProgressDeadline = nil, nil, nil, nil
	}
}
