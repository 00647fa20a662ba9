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

// Package clusterpromotion reconciles ClusterPromotions: one ClusterProfile per stage, deployed
// in order, each stage released by its trigger as internal/rollout decides.
package clusterpromotion

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
	"github.com/stagecoach-dev/stagecoach/internal/freeze"
	"github.com/stagecoach-dev/stagecoach/internal/metrics"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

// Reconciler reconciles ClusterPromotions.
type Reconciler struct {
	client.Client
	// Recorder receives an Event at every transition of a promotion; nil records none.
	Recorder events.EventRecorder
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	// informers hold the fleet's clusters and summaries, read in place; set up with the manager.
	informers cache.Informers
	warned    patch.Warnings
}

// Event reasons.
const (
	ReasonRolloutStarted   = "RolloutStarted"
	ReasonStagePromoted    = "StagePromoted"
	ReasonAwaitingApproval = "AwaitingApproval"
	// ReasonStageBlocked: a cluster of the stage is unreachable, or its deployment or health
	// check fails and is being retried. The Warning Event comes once per new message.
	ReasonStageBlocked     = "StageBlocked"
	ReasonDeploymentFailed = "DeploymentFailed"
	// ReasonStageMatchesNoCluster: a stage's selector matches no cluster; it passes at once.
	ReasonStageMatchesNoCluster = "StageMatchesNoCluster"
	ReasonInvalidWindow         = "InvalidPromotionWindow"
	// ReasonInvalidSpec: a field of the spec cannot be acted on as written; the message names it.
	ReasonInvalidSpec = "InvalidSpec"
	ReasonError       = "Error"
)

func (r *Reconciler) event(p *configv1beta1.ClusterPromotion, eventType, reason, format string, args ...any) {
	if r.Recorder != nil {
		r.Recorder.Eventf(p, nil, eventType, reason, "Promote", format, args...)
	}
}

func (r *Reconciler) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// Reconcile moves one promotion on by at most one step (a stage provisioned, a gate passed, the
// next stage started) and writes its status.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, retErr error) {
	p := &configv1beta1.ClusterPromotion{}
	if err := r.Get(ctx, req.NamespacedName, p); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	sw, err := patch.NewStatusWriter(r.Client, p, patch.WithOptimisticLock())
	if err != nil {
		return ctrl.Result{}, err
	}
	defer sw.Write(ctx, &result, &retErr)
	if !p.DeletionTimestamp.IsZero() {
		metrics.ForgetPromotion(p.Name)
		return r.reconcileDelete(ctx, p)
	}
	if err := patch.AddFinalizer(ctx, r.Client, p, configv1beta1.ClusterPromotionFinalizer); err != nil {
		return ctrl.Result{}, err
	}
	res, err := r.reconcileNormal(ctx, p)
	if err != nil && !patch.LostRace(err) {
		r.transition(p, corev1.EventTypeWarning, ReasonError, err.Error())
		setCondition(p, configv1beta1.PromotionReadyCondition, metav1.ConditionFalse, ReasonError, err.Error())
	}
	return res, err
}

// hashes identify what restarts a promotion: the profile spec with the content it refers to,
// and each stage's name and selector (triggers are left out, so approving does not restart
// anything). A promotion that refers to no content keeps the hash of its profile spec alone.
func hashes(p *configv1beta1.ClusterPromotion, contents []freeze.Content) (profile, stages []byte) {
	type stageKey struct {
		Name     string `json:"name"`
		Selector any    `json:"clusterSelector"`
	}
	var keys []stageKey
	for _, s := range p.Spec.Stages {
		keys = append(keys, stageKey{s.Name, s.ClusterSelector})
	}
	profile = digest(p.Spec.ProfileSpec)
	if len(contents) > 0 {
		profile = digest([][]byte{profile, freeze.Digest(contents)})
	}
	return profile, digest(keys)
}

func digest(v any) []byte {
	data, _ := json.Marshal(v) // plain API structs: cannot fail
	sum := sha256.Sum256(data)
	return sum[:]
}

func (r *Reconciler) reconcileNormal(ctx context.Context, p *configv1beta1.ClusterPromotion) (ctrl.Result, error) {
	now := metav1.NewTime(r.now())
	if err := r.resetConsumedApprovals(ctx, p); err != nil {
		return ctrl.Result{}, err
	}
	if msg := invalid(p); msg != "" {
		// Nothing moves, and nothing deployed changes, until the spec is fixed.
		r.setStalled(p, ReasonInvalidSpec, msg)
		setCondition(p, configv1beta1.PromotionReadyCondition, metav1.ConditionFalse, ReasonInvalidSpec, msg)
		return ctrl.Result{}, nil
	}
	if p.Spec.Suspend {
		return r.suspend(ctx, p, now)
	}
	r.resume(p, now)
	contents, err := freeze.Read(ctx, r, contentRefs(p))
	if err != nil {
		return ctrl.Result{}, err
	}
	profileHash, stagesHash := hashes(p, contents)
	idx := slices.IndexFunc(p.Spec.Stages, func(s configv1beta1.Stage) bool { return s.Name == p.Status.CurrentStageName })
	if idx < 0 || !equality.Semantic.DeepEqual(p.Status.ProfileSpecHash, profileHash) || !equality.Semantic.DeepEqual(p.Status.StagesHash, stagesHash) {
		if started, res, err := r.startVersion(ctx, p, profileHash, stagesHash, now); !started || err != nil {
			return res, err
		}
		idx = 0
	}
	stage := &p.Spec.Stages[idx]
	st := stageStatus(p, stage.Name)
	st.LastStatusCheckTime = &now
	setDeadline(stage, st, now)
	r.takeRollbackRequest(p, idx, now)
	if p.FailedVersion() != nil {
		// The version failed: it stays where it stopped, or goes back, until a new one starts.
		return r.afterFailure(ctx, p)
	}
	// The current stage gets this version's content; the copies of earlier versions stay while
	// a later stage, or a cluster a rolling update has not reached, still deploys them.
	frozen, err := freeze.Ensure(ctx, r.Client, r.Scheme(), owner(p), contents)
	if err != nil {
		return ctrl.Result{}, err
	}
	profile, err := r.applyStageProfile(ctx, p, stage, false, frozen)
	if err != nil {
		return ctrl.Result{}, err
	}
	owned, err := r.ownedProfiles(ctx, p)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.holdProfiles(ctx, owned, false); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.collectCopies(ctx, p, frozen, owned); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.handOverRetired(ctx, p, owned); err != nil {
		return ctrl.Result{}, err
	}
	state, err := r.provisioned(ctx, profile)
	if err != nil {
		return ctrl.Result{}, err
	}
	if state.clusters != nil {
		metrics.SetPromotionStageClusters(p.Name, stage.Name, state.clusters)
	}
	if failed, res, err := r.checkBudget(p, idx, st, state, now); failed || err != nil {
		return res, err
	}
	provisioned := state.done
	r.setStalled(p, ReasonDeploymentFailed, state.failed)
	// lastSuccessfulAppliedTime is when the stage was first provisioned with this version: the
	// soak delay counts from it. It stays while the stage redeploys (with its post-delay checks,
	// say) and goes with the version, when a new one resets the stages.
	// It is stored to the second, so it is rounded up: a soak counted from it is never shorter
	// than asked, whatever reconcile reads it back.
	if provisioned && st.LastSuccessfulAppliedTime == nil {
		at := metav1.NewTime(ceilSecond(now.Time))
		st.LastSuccessfulAppliedTime = &at
	}
	gate := rollout.StageGate{
		Stage: stage.Name, Last: idx == len(p.Spec.Stages)-1, Trigger: rollout.StageTriggerFrom(stage.Trigger),
		Provisioned: provisioned, Failing: state.regressed, DenyWindows: p.Spec.DenyWindows,
	}
	gate.Trigger.Approved = approved(p, stage)
	if gate.Last && completed(p) {
		// The last gate was passed for this version: its approval, window or soak is not asked
		// for again, and Ready only follows the clusters.
		gate.Trigger = rollout.StageTrigger{}
	}
	if st.LastSuccessfulAppliedTime != nil {
		gate.ProvisionedAt = st.LastSuccessfulAppliedTime.Time
	}
	if gate.Trigger.HasPreHealthCheckDeployment {
		if gate.PreHealthCheckDeployed, err = r.preVerificationDeployed(ctx, p, stage); err != nil {
			return ctrl.Result{}, err
		}
	}
	if gate.Trigger.HasPostDelayHealthChecks {
		gate.PostDelayChecks = postDelayState(profile, provisioned, p.Status.ProfileSpecHash)
	}
	decision, err := rollout.DecideStage(gate, now.Time)
	if err != nil {
		// Only a malformed promotion window gets here: nothing but a spec change can fix it.
		msg := err.Error()
		st.FailureMessage = &msg
		r.setStalled(p, ReasonInvalidWindow, msg)
		setCondition(p, configv1beta1.PromotionReadyCondition, metav1.ConditionFalse, ReasonInvalidWindow, msg)
		setCondition(p, configv1beta1.PromotionProgressingCondition, metav1.ConditionFalse, ReasonInvalidWindow, msg)
		return ctrl.Result{}, nil
	}
	if !provisioned {
		wakeAtDeadline(st, &decision)
	}
	if decision.RestartSoak {
		// The soak counts again from when the stage is provisioned again.
		st.LastSuccessfulAppliedTime = nil
	}
	recordHold(p, stage, decision.Hold)
	desc := decision.Description
	st.CurrentStatusDescription = &desc
	blocked := ""
	if state.blocked && decision.Action == rollout.Wait {
		blocked = state.waitingOn
		if st.FailureMessage == nil || *st.FailureMessage != blocked {
			r.warnOnce(p, ReasonStageBlocked, fmt.Sprintf("stage %s: %s", stage.Name, blocked))
		}
	} else {
		r.warned.Clear(p.UID, ReasonStageBlocked)
	}
	st.FailureMessage = nil
	if state.waitingOn != "" {
		st.FailureMessage = &state.waitingOn
	}
	if state.empty {
		r.warnOnce(p, ReasonStageMatchesNoCluster, fmt.Sprintf("stage %s: %s", stage.Name, state.waitingOn))
	}
	return r.act(ctx, p, idx, decision, blocked, frozen, now)
}

// startVersion starts a new version at the first stage, unless a freeze holds it back: the
// stages then keep what they run, and started is false.
func (r *Reconciler) startVersion(ctx context.Context, p *configv1beta1.ClusterPromotion, profileHash, stagesHash []byte, now metav1.Time) (started bool, _ ctrl.Result, _ error) {
	hold, err := newVersionHeld(p, now.Time)
	if err != nil {
		return false, ctrl.Result{}, err
	}
	if hold != nil {
		return false, r.holdNewVersion(p, profileHash, hold, now), nil
	}
	// Later stages keep the previous version until the rollout reaches them.
	p.Status.Stages = []configv1beta1.StageStatus{{Name: p.Spec.Stages[0].Name, LastUpdateReconciledTime: &now}}
	p.Status.CurrentStageName = p.Spec.Stages[0].Name
	p.Status.LastPromotionTime = &now
	p.Status.ProfileSpecHash, p.Status.StagesHash = profileHash, stagesHash
	p.Status.Failure, p.Status.Rollback = nil, nil
	consumeStandingApprovals(p)
	msg := fmt.Sprintf("rolling out profile spec %x, starting with stage %s", profileHash[:4], p.Status.CurrentStageName)
	r.event(p, corev1.EventTypeNormal, ReasonRolloutStarted, "%s", msg)
	setCondition(p, configv1beta1.PromotionReadyCondition, metav1.ConditionFalse, ReasonRolloutStarted, msg)
	setCondition(p, configv1beta1.PromotionProgressingCondition, metav1.ConditionTrue, ReasonRolloutStarted, msg)
	return true, ctrl.Result{}, r.retireRemovedStages(ctx, p)
}

// setStalled sets the Stalled condition: True with reason and msg, or False when msg is empty.
// A Warning Event marks each new reason to stall.
func (r *Reconciler) setStalled(p *configv1beta1.ClusterPromotion, reason, msg string) {
	if msg == "" {
		if meta.IsStatusConditionTrue(p.Status.Conditions, configv1beta1.PromotionStalledCondition) {
			setCondition(p, configv1beta1.PromotionStalledCondition, metav1.ConditionFalse, "Progressing", "nothing blocks the rollout")
		}
		for _, reason := range []string{ReasonInvalidSpec, ReasonInvalidWindow, ReasonDeploymentFailed} {
			r.warned.Clear(p.UID, reason)
		}
		return
	}
	if c := meta.FindStatusCondition(p.Status.Conditions, configv1beta1.PromotionStalledCondition); c == nil || c.Status != metav1.ConditionTrue || c.Message != msg {
		r.warnOnce(p, reason, msg)
	}
	setCondition(p, configv1beta1.PromotionStalledCondition, metav1.ConditionTrue, reason, msg)
}

// warnOnce emits a Warning Event unless the last one of this reason about the promotion said the
// same.
func (r *Reconciler) warnOnce(p *configv1beta1.ClusterPromotion, reason, msg string) {
	if r.warned.New(p.UID, reason, msg) {
		r.event(p, corev1.EventTypeWarning, reason, "%s", msg)
	}
}

// transition records an Event when the Ready condition is about to say something new.
func (r *Reconciler) transition(p *configv1beta1.ClusterPromotion, eventType, reason, msg string) {
	if c := meta.FindStatusCondition(p.Status.Conditions, configv1beta1.PromotionReadyCondition); c == nil || c.Message != msg || c.Reason != reason {
		r.event(p, eventType, reason, "%s", msg)
	}
}

// completed reports whether the current version went through every stage: Progressing says
// so until a new version starts, whatever the health of the clusters since.
func completed(p *configv1beta1.ClusterPromotion) bool {
	c := meta.FindStatusCondition(p.Status.Conditions, configv1beta1.PromotionProgressingCondition)
	return c != nil && c.Status == metav1.ConditionFalse && c.Reason == configv1beta1.PromotionPromotedReason
}

// act carries a stage decision out. blocked is what went wrong on the stage, if anything: a
// wait then says it.
func (r *Reconciler) act(ctx context.Context, p *configv1beta1.ClusterPromotion, idx int, d rollout.GateDecision, blocked string,
	frozen map[freeze.Ref]string, now metav1.Time) (ctrl.Result, error) {
	stage := &p.Spec.Stages[idx]
	switch d.Action {
	case rollout.DeployPreHealthCheck:
		return ctrl.Result{}, r.applyPreVerification(ctx, p, stage, frozen)
	case rollout.RunPostDelayChecks:
		_, err := r.applyStageProfile(ctx, p, stage, true, frozen)
		return ctrl.Result{}, err
	case rollout.Advance, rollout.Complete:
		if err := r.deletePreVerification(ctx, p, stage); err != nil {
			return ctrl.Result{}, err
		}
		if d.ResetApproval {
			// The status moves on with the approval listed as used; the next reconcile resets
			// the spec.
			consumeApproval(p, stage)
		}
		if d.Action == rollout.Complete {
			recordKnownGood(p, frozen, now)
			const msg = "every stage is deployed"
			r.transition(p, corev1.EventTypeNormal, configv1beta1.PromotionPromotedReason, msg)
			setCondition(p, configv1beta1.PromotionReadyCondition, metav1.ConditionTrue, configv1beta1.PromotionPromotedReason, msg)
			setCondition(p, configv1beta1.PromotionProgressingCondition, metav1.ConditionFalse, configv1beta1.PromotionPromotedReason, msg)
			if len(p.Status.ConsumedApprovals) > 0 {
				return ctrl.Result{RequeueAfter: time.Millisecond}, nil
			}
			return ctrl.Result{}, nil
		}
		next := p.Spec.Stages[idx+1].Name
		r.event(p, corev1.EventTypeNormal, ReasonStagePromoted, "stage %s is done; promoting to stage %s", stage.Name, next)
		p.Status.Stages = append(p.Status.Stages, configv1beta1.StageStatus{Name: next, LastUpdateReconciledTime: &now})
		p.Status.CurrentStageName = next
		p.Status.LastPromotionTime = &now
		setCondition(p, configv1beta1.PromotionProgressingCondition, metav1.ConditionTrue, "StagePromoted", "promoted to stage "+next)
		return ctrl.Result{RequeueAfter: time.Millisecond}, nil
	}
	msg := fmt.Sprintf("stage %s: %s", stage.Name, d.Message)
	reason := configv1beta1.PromotionWaitingReason
	switch {
	case blocked != "":
		msg, reason = fmt.Sprintf("stage %s: %s: %s", stage.Name, d.Message, blocked), ReasonStageBlocked
	case d.Message == rollout.DescAwaitingApproval:
		reason = ReasonAwaitingApproval
	case d.Hold != nil && d.Hold.DenyWindow >= 0:
		msg, reason = fmt.Sprintf("stage %s is done, but the next one may not start: %s", stage.Name, holdWords(p, d.Hold)), ReasonFrozen
	}
	if blocked == "" { // a blocked stage had its Warning Event
		r.transition(p, corev1.EventTypeNormal, reason, msg)
	}
	setCondition(p, configv1beta1.PromotionReadyCondition, metav1.ConditionFalse, reason, msg)
	if !completed(p) {
		setCondition(p, configv1beta1.PromotionProgressingCondition, metav1.ConditionTrue, "Waiting", msg)
	}
	if !d.RequeueAt.IsZero() {
		return ctrl.Result{RequeueAfter: max(d.RequeueAt.Sub(now.Time), time.Millisecond)}, nil
	}
	return ctrl.Result{}, nil
}

func ceilSecond(t time.Time) time.Time {
	if down := t.Truncate(time.Second); !down.Equal(t) {
		return down.Add(time.Second)
	}
	return t
}

// stageStatus is the status of the named stage, added when it has none.
func stageStatus(p *configv1beta1.ClusterPromotion, name string) *configv1beta1.StageStatus {
	if st := findStageStatus(p, name); st != nil {
		return st
	}
	p.Status.Stages = append(p.Status.Stages, configv1beta1.StageStatus{Name: name})
	return &p.Status.Stages[len(p.Status.Stages)-1]
}

func setCondition(p *configv1beta1.ClusterPromotion, t string, s metav1.ConditionStatus, reason, msg string) {
	patch.SetCondition(&p.Status.Conditions, p.Generation, t, s, reason, msg)
}
