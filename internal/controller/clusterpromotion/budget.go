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

package clusterpromotion

import (
	"bytes"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/metrics"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

// ReasonStageFailed is the reason of a stage that exceeded its failure budget or missed its
// progress deadline: the promotion stops there until a new version starts.
const ReasonStageFailed = "StageFailed"

// setDeadline gives the stage its progress deadline, counted from when it started, the first
// time it has one; a stage without progressDeadline has none.
func setDeadline(stage *configv1beta1.Stage, st *configv1beta1.StageStatus, now metav1.Time) {
	switch {
	case stage.ProgressDeadline == nil:
		st.ProgressDeadlineTime = nil
	case st.ProgressDeadlineTime == nil:
		start := now
		if st.LastUpdateReconciledTime != nil {
			start = *st.LastUpdateReconciledTime
		}
		at := metav1.NewTime(start.Add(stage.ProgressDeadline.Duration))
		st.ProgressDeadlineTime = &at
	}
}

// checkBudget fails the version at stage idx when the stage has a failure budget and its
// failures or deadline say so. Once through every stage, a version is no longer being rolled
// out: Ready follows its clusters, as without a budget.
func (r *Reconciler) checkBudget(p *configv1beta1.ClusterPromotion, idx int, st *configv1beta1.StageStatus, state stageState,
	now metav1.Time) (failed bool, _ ctrl.Result, _ error) {
	stage := &p.Spec.Stages[idx]
	if !stage.HasFailureBudget() || completed(p) {
		return false, ctrl.Result{}, nil
	}
	msg, err := stageFailure(stage, st, state, now)
	if err != nil || msg == "" {
		return false, ctrl.Result{}, err
	}
	return true, r.failStage(p, idx, msg, now), nil
}

// stageFailure says why the stage failed, or "" while it has not.
func stageFailure(stage *configv1beta1.Stage, st *configv1beta1.StageStatus, state stageState, now metav1.Time) (string, error) {
	total := 0
	for _, n := range state.clusters {
		total += n
	}
	budget, err := rollout.MaxFailures(stage.MaxFailures, total)
	if err != nil {
		return "", err
	}
	progress := rollout.StageProgress{
		Failing: state.failing, FailingCount: state.clusters[metrics.ClusterFailed], MaxFailures: budget, Provisioned: state.done,
	}
	if st.ProgressDeadlineTime != nil {
		progress.Deadline = st.ProgressDeadlineTime.Time
	}
	return rollout.StageFailure(progress, now.Time), nil
}

// failStage records that the version failed at stage idx: nothing moves on until a new version
// starts, and with onFailure: Rollback the stages that received it go back to the last known
// good version.
func (r *Reconciler) failStage(p *configv1beta1.ClusterPromotion, idx int, msg string, now metav1.Time) ctrl.Result {
	stage := p.Spec.Stages[idx].Name
	if lkg := p.Status.LastKnownGood; p.Spec.OnFailure == configv1beta1.OnFailureRollback &&
		(lkg == nil || bytes.Equal(lkg.ProfileSpecHash, p.Status.ProfileSpecHash)) {
		msg += "; no version has gone through every stage yet: there is nothing to roll back to"
	}
	p.Status.Failure = &configv1beta1.PromotionFailure{Stage: stage, ProfileSpecHash: p.Status.ProfileSpecHash, Message: msg, Time: now}
	if startRollback(p, idx) {
		r.warnOnce(p, ReasonStageFailed, fmt.Sprintf("stage %s failed: %s; rolling back", stage, msg))
		return ctrl.Result{RequeueAfter: time.Millisecond}
	}
	r.stopFailed(p)
	return ctrl.Result{}
}

// stopFailed says, in the conditions, that the version failed and where.
func (r *Reconciler) stopFailed(p *configv1beta1.ClusterPromotion) {
	f := p.Status.Failure
	msg := failureWords(f) + "; the promotion stops until a new version starts"
	if st := findStageStatus(p, f.Stage); st != nil {
		st.FailureMessage = &f.Message
	}
	r.setStalled(p, ReasonStageFailed, msg)
	setCondition(p, configv1beta1.PromotionReadyCondition, metav1.ConditionFalse, ReasonStageFailed, msg)
	setCondition(p, configv1beta1.PromotionProgressingCondition, metav1.ConditionFalse, ReasonStageFailed, msg)
}

// wakeAtDeadline makes a stage that waits look again when its progress deadline passes: it fails
// then, unless done.
func wakeAtDeadline(st *configv1beta1.StageStatus, d *rollout.GateDecision) {
	if dl := st.ProgressDeadlineTime; dl != nil && d.Action == rollout.Wait && (d.RequeueAt.IsZero() || dl.Time.Before(d.RequeueAt)) {
		d.RequeueAt = dl.Time
	}
}
