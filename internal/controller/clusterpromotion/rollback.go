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
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/freeze"
)

// Reasons of a rollback.
const (
	ReasonRollingBack     = "RollingBack"
	ReasonStageRolledBack = "StageRolledBack"
	// ReasonRollbackRequested: the stagecoach.dev/rollback annotation asked for a rollback.
	ReasonRollbackRequested = "RollbackRequested"
	// ReasonRollbackRefused: a rollback was asked for, and there is no version to go back to.
	ReasonRollbackRefused = "RollbackRefused"
)

// recordKnownGood keeps the version that just went through every stage as the one to roll back
// to.
func recordKnownGood(p *configv1beta1.ClusterPromotion, frozen map[freeze.Ref]string, now metav1.Time) {
	if lkg := p.Status.LastKnownGood; lkg != nil && slices.Equal(lkg.ProfileSpecHash, p.Status.ProfileSpecHash) {
		return
	}
	p.Status.LastKnownGood = &configv1beta1.KnownGoodVersion{
		ProfileSpecHash: p.Status.ProfileSpecHash, ProfileSpec: *p.Spec.ProfileSpec.DeepCopy(),
		FrozenContent: freeze.Encode(frozen), Time: now,
	}
}

// knownGoodSpec is the spec a stage with selector had in the last known good version.
func knownGoodSpec(lkg *configv1beta1.KnownGoodVersion, selector libv1beta1.Selector) configv1beta1.Spec {
	spec := lkg.ProfileSpec.ToSpec(selector)
	freeze.FreezeSpec(&spec, freeze.Decode(lkg.FrozenContent))
	return spec
}

// startRollback plans the rollback of a version that failed at stage idx when onFailure asks
// for it. Without a last known good version there is nothing to go back to.
func startRollback(p *configv1beta1.ClusterPromotion, idx int) bool {
	if p.Spec.OnFailure != configv1beta1.OnFailureRollback || !canRollBack(p) {
		return false
	}
	planRollback(p, idx)
	return true
}

// canRollBack says whether there is a version to roll the current one back to.
func canRollBack(p *configv1beta1.ClusterPromotion) bool {
	lkg := p.Status.LastKnownGood
	return lkg != nil && !slices.Equal(lkg.ProfileSpecHash, p.Status.ProfileSpecHash)
}

// planRollback plans the way back from stage idx: that stage, then the earlier ones in reverse.
func planRollback(p *configv1beta1.ClusterPromotion, idx int) {
	rb := &configv1beta1.RollbackStatus{ToProfileSpecHash: p.Status.LastKnownGood.ProfileSpecHash}
	for i := idx; i >= 0; i-- {
		rb.Stages = append(rb.Stages, p.Spec.Stages[i].Name)
	}
	p.Status.Rollback = rb
}

// takeRollbackRequest rolls the version back from stage idx, whatever onFailure says, when the
// stagecoach.dev/rollback annotation names it and it has not failed already. Without a version
// to go back to, it says so once and changes nothing.
func (r *Reconciler) takeRollbackRequest(p *configv1beta1.ClusterPromotion, idx int, now metav1.Time) {
	v, ok := p.Annotations[configv1beta1.RollbackAnnotation]
	if !ok || len(p.Status.ProfileSpecHash) == 0 || v != hex.EncodeToString(p.Status.ProfileSpecHash) || p.FailedVersion() != nil {
		return
	}
	if !canRollBack(p) {
		r.warnOnce(p, ReasonRollbackRefused, "a rollback was requested ("+configv1beta1.RollbackAnnotation+
			"), but no earlier version has gone through every stage: there is nothing to roll back to")
		return
	}
	stage := p.Spec.Stages[idx].Name
	p.Status.Failure = &configv1beta1.PromotionFailure{Stage: stage, ProfileSpecHash: p.Status.ProfileSpecHash, Requested: true,
		Message: "a rollback was requested (" + configv1beta1.RollbackAnnotation + ")", Time: now}
	planRollback(p, idx)
	r.event(p, corev1.EventTypeNormal, ReasonRollbackRequested, "rollback requested at stage %s: rolling back stages %s", stage, strings.Join(p.Status.Rollback.Stages, ", "))
}

// failureWords says what happened to a failed version: where it failed and why, or where its
// rollback was asked for.
func failureWords(f *configv1beta1.PromotionFailure) string {
	if f.Requested {
		return "rollback requested at stage " + f.Stage
	}
	return fmt.Sprintf("stage %s failed: %s", f.Stage, f.Message)
}

// afterFailure keeps a failed version where it stopped, or rolls it back one stage at a time:
// each stage gets the last known good spec and is done once its clusters run it, provisioned
// and healthy; no soak, check or approval is asked for on the way back.
func (r *Reconciler) afterFailure(ctx context.Context, p *configv1beta1.ClusterPromotion) (ctrl.Result, error) {
	owned, err := r.ownedProfiles(ctx, p)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.holdProfiles(ctx, owned, false); err != nil {
		return ctrl.Result{}, err
	}
	rb, lkg := p.Status.Rollback, p.Status.LastKnownGood
	if rb == nil || lkg == nil || !slices.Equal(rb.ToProfileSpecHash, lkg.ProfileSpecHash) {
		r.stopFailed(p)
		return ctrl.Result{}, nil
	}
	version := fmt.Sprintf("%x", lkg.ProfileSpecHash[:min(4, len(lkg.ProfileSpecHash))])
	f := p.Status.Failure
	if int(rb.Done) >= len(rb.Stages) {
		msg := fmt.Sprintf("%s; rolled back stages %s to version %s; the promotion stops until a new version starts",
			failureWords(f), strings.Join(rb.Stages, ", "), version)
		r.transition(p, corev1.EventTypeWarning, configv1beta1.PromotionRolledBackReason, msg)
		r.setStalled(p, configv1beta1.PromotionRolledBackReason, msg)
		setCondition(p, configv1beta1.PromotionReadyCondition, metav1.ConditionFalse, configv1beta1.PromotionRolledBackReason, msg)
		setCondition(p, configv1beta1.PromotionProgressingCondition, metav1.ConditionFalse, configv1beta1.PromotionRolledBackReason, msg)
		return ctrl.Result{}, nil
	}
	name := rb.Stages[rb.Done]
	stage := p.Spec.Stage(name)
	if stage == nil { // gone from the spec, and its profile retired with it
		rb.Done++
		return ctrl.Result{RequeueAfter: time.Millisecond}, nil
	}
	profile, err := r.writeStageProfile(ctx, p, stage, func(profile *configv1beta1.ClusterProfile) {
		profile.Spec = knownGoodSpec(lkg, stage.ClusterSelector)
		delete(profile.Annotations, checksAnnotation)
	})
	if err != nil {
		return ctrl.Result{}, err
	}
	state, err := r.provisioned(ctx, profile)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !state.done {
		msg := fmt.Sprintf("%s; rolling back stage %s to version %s: %s", failureWords(f), name, version, state.waitingOn)
		r.transition(p, corev1.EventTypeWarning, ReasonRollingBack, msg)
		setCondition(p, configv1beta1.PromotionReadyCondition, metav1.ConditionFalse, ReasonRollingBack, msg)
		setCondition(p, configv1beta1.PromotionProgressingCondition, metav1.ConditionTrue, ReasonRollingBack, msg)
		return ctrl.Result{RequeueAfter: 5 * time.Second}, nil
	}
	r.event(p, corev1.EventTypeNormal, ReasonStageRolledBack, "stage %s is back on version %s", name, version)
	rb.Done++
	return ctrl.Result{RequeueAfter: time.Millisecond}, nil
}
