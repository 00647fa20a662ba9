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
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fluxsource"
	"github.com/stagecoach-dev/stagecoach/internal/freeze"
	"github.com/stagecoach-dev/stagecoach/internal/metrics"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

// stagePhase takes up the stage under way: it is looked at now, gets its progress deadline, and
// a rollback asked for by annotation starts from it.
func (r *Reconciler) stagePhase(_ context.Context, ps *pass) error {
	ps.stage = &ps.p.Spec.Stages[ps.idx]
	ps.st = stageStatus(ps.p, ps.stage.Name)
	ps.st.LastStatusCheckTime = &ps.now
	setDeadline(ps.stage, ps.st, ps.now)
	r.takeRollbackRequest(ps.p, ps.idx, ps.now)
	return nil
}

// deployPhase gives the stage this version's content, and lifts the hold a suspension put on the
// promotion's profiles.
func (r *Reconciler) deployPhase(ctx context.Context, ps *pass) error {
	frozen, err := freeze.Ensure(ctx, r.client, r.client.Scheme(), owner(ps.p), ps.contents)
	var tooLarge *fluxsource.TooLargeError
	if errors.As(err, &tooLarge) {
		// A Flux source's artifact that cannot be kept: no retry helps, a new artifact does.
		ps.invalid = err.Error()
		return errHalt
	}
	if err != nil {
		return err
	}
	ps.frozen = frozen
	if ps.profile, err = r.applyStageProfile(ctx, ps.p, ps.stage, false, frozen); err != nil {
		return err
	}
	if ps.owned, err = r.ownedProfiles(ctx, ps.p); err != nil {
		return err
	}
	return r.holdProfiles(ctx, ps.owned, false)
}

// tidyPhase deletes the content copies of earlier versions once no stage, and no cluster a
// rolling update has not reached, deploys them, and hands the clusters of retired stages over to
// the stages that cover them now.
func (r *Reconciler) tidyPhase(ctx context.Context, ps *pass) error {
	if err := r.collectCopies(ctx, ps.p, ps.frozen, ps.owned); err != nil {
		return err
	}
	return r.handOverRetired(ctx, ps.p, ps.owned)
}

// observePhase finds where the stage's clusters stand.
func (r *Reconciler) observePhase(ctx context.Context, ps *pass) error {
	noteRetry(ps)
	state, err := r.provisioned(ctx, ps.profile)
	if err != nil {
		return err
	}
	ps.state = state
	if state.clusters != nil {
		metrics.SetPromotionStageClusters(ps.p.Name, ps.stage.Name, state.clusters)
	}
	return nil
}

// gatePhase decides the stage's gate on where its clusters stand, and records the decision in
// the stage's status.
func (r *Reconciler) gatePhase(ctx context.Context, ps *pass) error {
	gate, err := r.stageGate(ctx, ps)
	if err != nil {
		return err
	}
	decision, err := rollout.DecideStage(gate, ps.now.Time)
	if err != nil {
		// Only a malformed promotion window gets here: nothing but a spec change can fix it.
		msg := err.Error()
		ps.st.FailureMessage = &msg
		ps.badWindow = msg
		return errHalt
	}
	if !gate.Provisioned {
		wakeAtDeadline(ps.st, &decision)
	}
	if decision.RestartSoak {
		// The soak counts again from when the stage is provisioned again.
		ps.st.LastSuccessfulAppliedTime = nil
	}
	recordHold(ps.p, ps.stage, decision.Hold)
	desc := decision.Description
	ps.st.CurrentStatusDescription = &desc
	ps.decision = decision
	r.noteWaitingOn(ps)
	return nil
}

// stageGate is what the stage's gate is decided on.
func (r *Reconciler) stageGate(ctx context.Context, ps *pass) (rollout.StageGate, error) {
	p, stage, st, state := ps.p, ps.stage, ps.st, ps.state
	gate := rollout.StageGate{
		Stage: stage.Name, Last: ps.idx == len(p.Spec.Stages)-1, Trigger: rollout.StageTriggerFrom(stage.Trigger),
		Provisioned: state.done, Failing: state.regressed, DenyWindows: p.Spec.DenyWindows,
	}
	gate.Trigger.Approved = approved(p, stage)
	if gate.Trigger.Approved {
		by := approver(p, stage.Name, r.recordApprovers)
		ps.approvedBy = &by
	}
	if gate.Last && ps.completed {
		// The last gate was passed for this version: its approval, window or soak is not asked
		// for again, and Ready only follows the clusters.
		gate.Trigger = rollout.StageTrigger{}
	}
	if st.LastSuccessfulAppliedTime != nil {
		gate.ProvisionedAt = st.LastSuccessfulAppliedTime.Time
	}
	if gate.Trigger.HasPreHealthCheckDeployment {
		var err error
		if gate.PreHealthCheckDeployed, err = r.preVerificationDeployed(ctx, p, stage); err != nil {
			return gate, err
		}
	}
	if gate.Trigger.HasPostDelayHealthChecks {
		gate.PostDelayChecks = postDelayState(ps.profile, state.done, p.Status.ProfileSpecHash)
	}
	return gate, nil
}

// approver is who approved the stage, as the API server stamped it, or "" when stamps are not
// trusted: without the admission policy that writes them, the annotation is whatever the last
// client to edit the promotion put there.
func approver(p *configv1beta1.ClusterPromotion, stage string, trusted bool) string {
	if !trusted {
		return ""
	}
	return p.Annotations[configv1beta1.ApprovedByAnnotationPrefix+stage]
}

// noteWaitingOn writes what the stage waits for in its status, and warns once of what went
// wrong on it while the gate waits.
func (r *Reconciler) noteWaitingOn(ps *pass) {
	p, stage, st, state := ps.p, ps.stage, ps.st, ps.state
	if state.blocked && ps.decision.Action == rollout.Wait {
		ps.blocked = state.waitingOn
		if st.FailureMessage == nil || *st.FailureMessage != ps.blocked {
			r.warnOnce(p, reasonStageBlocked, fmt.Sprintf("stage %s: %s", stage.Name, ps.blocked))
		}
	} else {
		r.warned.Clear(p.UID, reasonStageBlocked)
	}
	st.FailureMessage = nil
	if state.waitingOn != "" {
		waitingOn := state.waitingOn
		st.FailureMessage = &waitingOn
	}
	if state.empty {
		r.warnOnce(p, reasonStageMatchesNoCluster, fmt.Sprintf("stage %s: %s", stage.Name, state.waitingOn))
	}
}

// actPhase carries the gate's decision out.
func (r *Reconciler) actPhase(ctx context.Context, ps *pass) error {
	switch ps.decision.Action {
	case rollout.DeployPreHealthCheck:
		return r.applyPreVerification(ctx, ps.p, ps.stage, ps.frozen)
	case rollout.RunPostDelayChecks:
		_, err := r.applyStageProfile(ctx, ps.p, ps.stage, true, ps.frozen)
		return err
	case rollout.Advance, rollout.Complete:
		return r.leaveStage(ctx, ps)
	}
	ps.outcome = waiting
	if at := ps.decision.RequeueAt; !at.IsZero() {
		ps.requeueAfter(at.Sub(ps.now.Time))
	}
	return nil
}

// leaveStage moves on from a stage whose gate is open: to the next stage, or, from the last, to
// the end of the version.
func (r *Reconciler) leaveStage(ctx context.Context, ps *pass) error {
	p, stage, now := ps.p, ps.stage, ps.now
	if err := r.deletePreVerification(ctx, p, stage); err != nil {
		return err
	}
	if ps.decision.ResetApproval {
		// The status moves on with the approval listed as used; the next reconcile resets the
		// spec.
		consumeApproval(p, stage)
	}
	if ps.decision.Action == rollout.Complete {
		recordKnownGood(p, ps.frozen, now)
		ps.outcome = promoted
		if len(p.Status.ConsumedApprovals) > 0 {
			ps.requeueAfter(time.Millisecond)
		}
		return nil
	}
	next := p.Spec.Stages[ps.idx+1].Name
	r.event(p, corev1.EventTypeNormal, reasonStagePromoted, "stage %s is done; promoting to stage %s", stage.Name, next)
	p.Status.Stages = append(p.Status.Stages, configv1beta1.StageStatus{Name: next, LastUpdateReconciledTime: &now})
	p.Status.CurrentStageName = next
	p.Status.LastPromotionTime = &now
	ps.outcome = advanced
	ps.requeueAfter(time.Millisecond)
	return nil
}

// provisionedAt records when the stage was first provisioned with this version: the soak delay
// counts from it. It stays while the stage redeploys (with its post-delay checks, say) and goes
// with the version, when a new one resets the stages. It is stored to the second, so it is
// rounded up: a soak counted from it is never shorter than asked, whatever reconcile reads it
// back.
func provisionedAt(ps *pass) {
	if ps.state.done && ps.st.LastSuccessfulAppliedTime == nil {
		at := metav1.NewTime(ceilSecond(ps.now.Time))
		ps.st.LastSuccessfulAppliedTime = &at
	}
}
