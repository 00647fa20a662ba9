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
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

// verdict is what one condition says.
type verdict struct {
	status          metav1.ConditionStatus
	reason, message string
}

func isTrue(reason, msg string) verdict  { return verdict{metav1.ConditionTrue, reason, msg} }
func isFalse(reason, msg string) verdict { return verdict{metav1.ConditionFalse, reason, msg} }

// summarise writes the promotion's conditions from the facts the pass recorded. A condition
// says what the phase that went furthest found; one that no phase of this pass spoke to keeps
// what it said. Ready's changes are announced by an Event; Stalled's by a Warning, once per
// message.
func (r *Reconciler) summarise(ps *pass) {
	p := ps.p
	if ps.suspendedSince != nil {
		patch.SetConditionAt(&p.Status.Conditions, ps.now, p.Generation, configv1beta1.PromotionSuspendedCondition,
			metav1.ConditionTrue, reasonSuspended, suspendWords(p, *ps.suspendedSince))
	} else if ps.resumed {
		patch.SetConditionAt(&p.Status.Conditions, ps.now, p.Generation, configv1beta1.PromotionSuspendedCondition,
			metav1.ConditionFalse, reasonResumed, resumeWords(ps.suspendedFor))
	}
	r.summariseReady(ps)
	if v, ok := progressing(ps); ok {
		setCondition(p, configv1beta1.PromotionProgressingCondition, v)
	}
	r.summariseStalled(ps)
}

// summariseStalled sets Stalled True with what stops the promotion until someone acts, or False
// once the stage's clusters show nothing does.
func (r *Reconciler) summariseStalled(ps *pass) {
	p := ps.p
	v, ok := stalled(ps)
	switch {
	case !ok:
		return
	case v.status != metav1.ConditionTrue:
		if meta.IsStatusConditionTrue(p.Status.Conditions, configv1beta1.PromotionStalledCondition) {
			setCondition(p, configv1beta1.PromotionStalledCondition, v)
		}
		for _, reason := range []string{reasonInvalidSpec, reasonInvalidWindow, reasonDeploymentFailed} {
			r.warned.Clear(p.UID, reason)
		}
		return
	}
	if c := meta.FindStatusCondition(p.Status.Conditions, configv1beta1.PromotionStalledCondition); c == nil || c.Status != metav1.ConditionTrue || c.Message != v.message {
		r.warnOnce(p, v.reason, v.message)
	}
	setCondition(p, configv1beta1.PromotionStalledCondition, v)
}

// summariseReady sets Ready, with an Event when it says something new.
func (r *Reconciler) summariseReady(ps *pass) {
	p := ps.p
	v, eventType, ok := ready(ps)
	if !ok {
		return
	}
	// What Ready said before: a version started in this pass said it started.
	c := meta.FindStatusCondition(p.Status.Conditions, configv1beta1.PromotionReadyCondition)
	if eventType != "" && (ps.started || c == nil || c.Reason != v.reason || c.Message != v.message) {
		r.event(p, eventType, v.reason, "%s", v.message)
	}
	setCondition(p, configv1beta1.PromotionReadyCondition, v)
}

// stalled is what Stalled says; a False verdict clears it.
func stalled(ps *pass) (verdict, bool) {
	switch {
	case ps.invalid != "":
		return isTrue(reasonInvalidSpec, ps.invalid), true
	case ps.stopped:
		return isTrue(reasonStageFailed, stopWords(ps.p)), true
	case ps.rolledBack:
		return isTrue(configv1beta1.PromotionRolledBackReason, rolledBackWords(ps.p)), true
	case ps.badWindow != "":
		return isTrue(reasonInvalidWindow, ps.badWindow), true
	case ps.observed && ps.state.failed != "":
		return isTrue(reasonDeploymentFailed, ps.state.failed), true
	case ps.observed:
		return isFalse("Progressing", "nothing blocks the rollout"), true
	}
	return verdict{}, false
}

// ready is what Ready says, and the type of the Event that announces a change (none when another
// Event tells of it).
func ready(ps *pass) (_ verdict, eventType string, _ bool) {
	p := ps.p
	switch {
	case ps.err != nil:
		return isFalse(reasonError, ps.err.Error()), corev1.EventTypeWarning, true
	case ps.invalid != "":
		return isFalse(reasonInvalidSpec, ps.invalid), "", true
	case ps.suspendedSince != nil:
		return isFalse(reasonSuspended, suspendWords(p, *ps.suspendedSince)), "", true
	case ps.held != nil:
		return isFalse(reasonFrozen, heldWords(ps)), corev1.EventTypeNormal, true
	case ps.stopped:
		return isFalse(reasonStageFailed, stopWords(p)), "", true
	case ps.rolledBack:
		return isFalse(configv1beta1.PromotionRolledBackReason, rolledBackWords(p)), corev1.EventTypeWarning, true
	case ps.rollingBack != "":
		return isFalse(reasonRollingBack, rollingBackWords(ps)), corev1.EventTypeWarning, true
	case ps.badWindow != "":
		return isFalse(reasonInvalidWindow, ps.badWindow), "", true
	case ps.outcome == promoted:
		return isTrue(configv1beta1.PromotionPromotedReason, promotedWords), corev1.EventTypeNormal, true
	case ps.outcome == waiting && ps.blocked != "":
		// The stage's Warning told of it.
		return waitVerdict(ps), "", true
	case ps.outcome == waiting:
		return waitVerdict(ps), corev1.EventTypeNormal, true
	case ps.started:
		return isFalse(reasonRolloutStarted, startWords(p)), "", true
	}
	return verdict{}, "", false
}

// progressing is what Progressing says.
func progressing(ps *pass) (verdict, bool) {
	p := ps.p
	switch {
	case ps.invalid != "":
		return verdict{}, false
	case ps.suspendedSince != nil:
		// A completed version stays completed: its last gate is not asked for again on resume.
		return isFalse(reasonSuspended, suspendWords(p, *ps.suspendedSince)), !ps.completed
	case ps.held != nil:
		return isTrue(reasonFrozen, heldWords(ps)), true
	case ps.stopped:
		return isFalse(reasonStageFailed, stopWords(p)), true
	case ps.rolledBack:
		return isFalse(configv1beta1.PromotionRolledBackReason, rolledBackWords(p)), true
	case ps.rollingBack != "":
		return isTrue(reasonRollingBack, rollingBackWords(ps)), true
	case ps.badWindow != "":
		return isFalse(reasonInvalidWindow, ps.badWindow), true
	case ps.outcome == promoted:
		return isFalse(configv1beta1.PromotionPromotedReason, promotedWords), true
	case ps.outcome == advanced:
		return isTrue(reasonStagePromoted, "promoted to stage "+p.Status.CurrentStageName), true
	case ps.outcome == waiting && !ps.completed:
		return isTrue(configv1beta1.PromotionWaitingReason, waitVerdict(ps).message), true
	case ps.started:
		return isTrue(reasonRolloutStarted, startWords(p)), true
	}
	return verdict{}, false
}

const promotedWords = "every stage is deployed"

// waitVerdict says what the stage's gate waits for: its trigger, a window, or what went wrong on
// the stage.
func waitVerdict(ps *pass) verdict {
	stage, d := ps.stage, ps.decision
	switch {
	case ps.blocked != "":
		return isFalse(reasonStageBlocked, fmt.Sprintf("stage %s: %s: %s", stage.Name, d.Message, ps.blocked))
	case d.Message == rollout.DescAwaitingApproval:
		return isFalse(reasonAwaitingApproval, fmt.Sprintf("stage %s: %s", stage.Name, d.Message))
	case d.Hold != nil && d.Hold.DenyWindow >= 0:
		return isFalse(reasonFrozen, fmt.Sprintf("stage %s is done, but the next one may not start: %s", stage.Name, holdWords(ps.p, d.Hold)))
	}
	return isFalse(configv1beta1.PromotionWaitingReason, fmt.Sprintf("stage %s: %s", stage.Name, d.Message))
}

// completed reports whether the current version went through every stage: Progressing says
// so until a new version starts, whatever the health of the clusters since.
func completed(p *configv1beta1.ClusterPromotion) bool {
	c := meta.FindStatusCondition(p.Status.Conditions, configv1beta1.PromotionProgressingCondition)
	return c != nil && c.Status == metav1.ConditionFalse && c.Reason == configv1beta1.PromotionPromotedReason
}

func setCondition(p *configv1beta1.ClusterPromotion, t string, v verdict) {
	patch.SetCondition(&p.Status.Conditions, p.Generation, t, v.status, v.reason, v.message)
}
