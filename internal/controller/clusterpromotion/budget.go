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
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/metrics"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

// reasonStageFailed is the reason of a stage that exceeded its failure budget or missed its
// progress deadline: the promotion stops there until a new version starts.
const reasonStageFailed = "StageFailed"

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

// budgetPhase fails the version at the stage when the stage has a failure budget and its
// failures or deadline say so; otherwise the stage's clusters have been looked at, and once all
// are provisioned the soak starts.
func (r *Reconciler) budgetPhase(_ context.Context, ps *pass) error {
	failed, err := r.checkBudget(ps)
	if err != nil {
		return err
	}
	if failed {
		return errHalt
	}
	ps.observed = true
	provisionedAt(ps)
	return nil
}

// checkBudget fails the version at the stage under way when the stage has a failure budget and
// its failures or deadline say so. Once through every stage, a version is no longer being rolled
// out: Ready follows its clusters, as without a budget.
func (r *Reconciler) checkBudget(ps *pass) (failed bool, _ error) {
	if !ps.stage.HasFailureBudget() || ps.completed {
		return false, nil
	}
	msg, err := stageFailure(ps.stage, ps.st, ps.state, ps.now)
	if err != nil || msg == "" {
		return false, err
	}
	r.failStage(ps, msg)
	return true, nil
}

// stageFailure says why the stage failed, or "" while it has not.
func stageFailure(stage *configv1beta1.Stage, st *configv1beta1.StageStatus, state stageState, now metav1.Time) (string, error) {
	// Paused clusters are out of the rollout: a percentage is of the others.
	total := -len(state.paused)
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

// failStage records that the version failed at the stage under way: nothing moves on until a
// new version starts, and with onFailure: Rollback the stages that received it go back to the
// last known good version.
func (r *Reconciler) failStage(ps *pass, msg string) {
	p, stage := ps.p, ps.stage.Name
	if lkg := p.Status.LastKnownGood; p.Spec.OnFailure == configv1beta1.OnFailureRollback &&
		(lkg == nil || bytes.Equal(lkg.ProfileSpecHash, p.Status.ProfileSpecHash)) {
		msg += "; no version has gone through every stage yet: there is nothing to roll back to"
	}
	p.Status.Failure = &configv1beta1.PromotionFailure{Stage: stage, ProfileSpecHash: p.Status.ProfileSpecHash, Message: msg, Time: ps.now}
	if startRollback(p, ps.idx) {
		r.warnOnce(p, reasonStageFailed, fmt.Sprintf("stage %s failed: %s; rolling back", stage, msg))
		ps.requeueAfter(time.Millisecond)
		return
	}
	stopFailed(ps)
}

// stopFailed keeps the failed version where it stopped, and says why in the stage's status.
func stopFailed(ps *pass) {
	f := ps.p.Status.Failure
	if st := findStageStatus(ps.p, f.Stage); st != nil {
		st.FailureMessage = &f.Message
	}
	ps.stopped = true
}

// stopWords says where the version failed and why, and that it stops there.
func stopWords(p *configv1beta1.ClusterPromotion) string {
	return failureWords(p.Status.Failure) + "; the promotion stops until a new version starts"
}

// wakeAtDeadline makes a stage that waits look again when its progress deadline passes: it fails
// then, unless done.
func wakeAtDeadline(st *configv1beta1.StageStatus, d *rollout.GateDecision) {
	if dl := st.ProgressDeadlineTime; dl != nil && d.Action == rollout.Wait && (d.RequeueAt.IsZero() || dl.Time.Before(d.RequeueAt)) {
		d.RequeueAt = dl.Time
	}
}
