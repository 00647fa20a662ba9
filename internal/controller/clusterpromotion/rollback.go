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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/freeze"
)

// Reasons of a rollback.
const (
	reasonRollingBack     = "RollingBack"
	reasonStageRolledBack = "StageRolledBack"
	// reasonRollbackRequested: the stagecoach.dev/rollback annotation asked for a rollback.
	reasonRollbackRequested = "RollbackRequested"
	// reasonRollbackRefused: a rollback was asked for, and there is no version to go back to.
	reasonRollbackRefused = "RollbackRefused"
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

// rolledBackFromAnnotation, on a stage's ClusterProfile being rolled back, holds the specDigest
// of the spec it had before: an unreachable cluster whose summary still carries that spec may run
// the failed version, and the rollback waits for it. One whose summary carries an older spec
// never got the failed version, and does not hold the rollback.
const rolledBackFromAnnotation = "stagecoach.dev/rolled-back-from"

// specDigest identifies the content a profile spec deploys. The health checks are left out: a
// stage's post-delay checks join its spec partway through a version.
func specDigest(spec *configv1beta1.Spec) string {
	s := *spec
	s.ValidateHealths = nil
	b, _ := json.Marshal(&s) // plain data: it always marshals
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
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
		r.warnOnce(p, reasonRollbackRefused, "a rollback was requested ("+configv1beta1.RollbackAnnotation+
			"), but no earlier version has gone through every stage: there is nothing to roll back to")
		return
	}
	stage := p.Spec.Stages[idx].Name
	p.Status.Failure = &configv1beta1.PromotionFailure{Stage: stage, ProfileSpecHash: p.Status.ProfileSpecHash, Requested: true,
		Message: "a rollback was requested (" + configv1beta1.RollbackAnnotation + ")", Time: now}
	planRollback(p, idx)
	r.event(p, corev1.EventTypeNormal, reasonRollbackRequested, "rollback requested at stage %s: rolling back stages %s", stage, strings.Join(p.Status.Rollback.Stages, ", "))
}

// failureWords says what happened to a failed version: where it failed and why, or where its
// rollback was asked for.
func failureWords(f *configv1beta1.PromotionFailure) string {
	if f.Requested {
		return "rollback requested at stage " + f.Stage
	}
	return fmt.Sprintf("stage %s failed: %s", f.Stage, f.Message)
}

// failurePhase keeps a failed version where it stopped, or rolls it back one stage at a time:
// each stage gets the last known good spec and is done once its clusters run it, provisioned
// and healthy; no soak, check or approval is asked for on the way back. A failed version ends
// the pass here.
func (r *Reconciler) failurePhase(ctx context.Context, ps *pass) error {
	p := ps.p
	if p.FailedVersion() == nil {
		return nil
	}
	owned, err := r.ownedProfiles(ctx, p)
	if err != nil {
		return err
	}
	if err := r.holdProfiles(ctx, owned, false); err != nil {
		return err
	}
	rb, lkg := p.Status.Rollback, p.Status.LastKnownGood
	switch {
	case rb == nil || lkg == nil || !slices.Equal(rb.ToProfileSpecHash, lkg.ProfileSpecHash):
		stopFailed(ps)
	case int(rb.Done) >= len(rb.Stages):
		ps.rolledBack = true
	default:
		if err := r.rollBackStage(ctx, ps); err != nil {
			return err
		}
	}
	return errHalt
}

// rollBackStage gives the next stage of the rollback the last known good spec, and moves on to
// the stage after once its clusters run it.
func (r *Reconciler) rollBackStage(ctx context.Context, ps *pass) error {
	p, rb, lkg := ps.p, ps.p.Status.Rollback, ps.p.Status.LastKnownGood
	name := rb.Stages[rb.Done]
	stage := p.Spec.Stage(name)
	if stage == nil { // gone from the spec, and its profile retired with it
		rb.Done++
		ps.requeueAfter(time.Millisecond)
		return nil
	}
	profile, err := r.writeStageProfile(ctx, p, stage, func(profile *configv1beta1.ClusterProfile) {
		spec := knownGoodSpec(lkg, stage.ClusterSelector)
		if !profile.CreationTimestamp.IsZero() && !equality.Semantic.DeepEqual(profile.Spec, spec) {
			profile.Annotations[rolledBackFromAnnotation] = specDigest(&profile.Spec)
		}
		profile.Spec = spec
		delete(profile.Annotations, checksAnnotation)
	})
	if err != nil {
		return err
	}
	if ps.state, err = r.provisioned(ctx, profile); err != nil {
		return err
	}
	if !ps.state.done {
		ps.rollingBack = name
		ps.requeueAfter(5 * time.Second)
		return nil
	}
	r.event(p, corev1.EventTypeNormal, reasonStageRolledBack, "stage %s is back on version %s", name, formatHash(lkg.ProfileSpecHash))
	rb.Done++
	ps.requeueAfter(time.Millisecond)
	return nil
}

// rollingBackWords says which stage is being rolled back, and what it waits for.
func rollingBackWords(ps *pass) string {
	p := ps.p
	return fmt.Sprintf("%s; rolling back stage %s to version %s: %s", failureWords(p.Status.Failure), ps.rollingBack,
		formatHash(p.Status.LastKnownGood.ProfileSpecHash), ps.state.waitingOn)
}

// rolledBackWords says that the failed version was rolled back, and where.
func rolledBackWords(p *configv1beta1.ClusterPromotion) string {
	return fmt.Sprintf("%s; rolled back stages %s to version %s; the promotion stops until a new version starts",
		failureWords(p.Status.Failure), strings.Join(p.Status.Rollback.Stages, ", "), formatHash(p.Status.LastKnownGood.ProfileSpecHash))
}
