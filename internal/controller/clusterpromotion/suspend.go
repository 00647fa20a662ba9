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
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

// Event and condition reasons of suspension and freeze windows.
const (
	ReasonSuspended = "Suspended"
	ReasonResumed   = "Resumed"
	// ReasonFrozen: a deny window holds the next stage, or a new version, back.
	ReasonFrozen = "Frozen"
)

// suspend holds the promotion where it is: the rolling updates of its profiles start no other
// cluster, and nothing else moves (no stage, no version, no approval, no soak) until
// spec.suspend is false again.
func (r *Reconciler) suspend(ctx context.Context, p *configv1beta1.ClusterPromotion, now metav1.Time) (ctrl.Result, error) {
	owned, err := r.ownedProfiles(ctx, p)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.holdProfiles(ctx, owned, true); err != nil {
		return ctrl.Result{}, err
	}
	if st := findStageStatus(p, p.Status.CurrentStageName); st != nil {
		st.LastStatusCheckTime = &now
	}
	recordHold(p, nil, nil)
	since := now
	if c := meta.FindStatusCondition(p.Status.Conditions, configv1beta1.PromotionSuspendedCondition); c != nil && c.Status == metav1.ConditionTrue {
		since = c.LastTransitionTime
	} else {
		r.event(p, corev1.EventTypeNormal, ReasonSuspended, "suspended at stage %q", p.Status.CurrentStageName)
	}
	where := "before its first stage"
	if p.Status.CurrentStageName != "" {
		where = "at stage " + p.Status.CurrentStageName
	}
	msg := fmt.Sprintf("suspended %s since %s (spec.suspend): no stage starts, and no cluster starts deploying, until it is false",
		where, since.UTC().Format(time.RFC3339))
	patch.SetConditionAt(&p.Status.Conditions, now, p.Generation, configv1beta1.PromotionSuspendedCondition, metav1.ConditionTrue, ReasonSuspended, msg)
	setCondition(p, configv1beta1.PromotionReadyCondition, metav1.ConditionFalse, ReasonSuspended, msg)
	if !completed(p) {
		// A completed version stays completed: its last gate is not asked for again on resume.
		setCondition(p, configv1beta1.PromotionProgressingCondition, metav1.ConditionFalse, ReasonSuspended, msg)
	}
	return ctrl.Result{}, nil
}

// holdNewVersion leaves the stages as they are while a deny window is open, and says that a new
// version waits and until when.
func (r *Reconciler) holdNewVersion(p *configv1beta1.ClusterPromotion, profileHash []byte, h *rollout.Hold, now metav1.Time) ctrl.Result {
	recordHold(p, nil, h)
	msg := fmt.Sprintf("profile spec %x waits to start: %s", profileHash[:4], holdWords(p, h))
	r.transition(p, corev1.EventTypeNormal, ReasonFrozen, msg)
	setCondition(p, configv1beta1.PromotionReadyCondition, metav1.ConditionFalse, ReasonFrozen, msg)
	setCondition(p, configv1beta1.PromotionProgressingCondition, metav1.ConditionTrue, ReasonFrozen, msg)
	if h.Until.IsZero() {
		return ctrl.Result{}
	}
	return ctrl.Result{RequeueAfter: max(h.Until.Sub(now.Time), time.Millisecond)}
}

// resume takes the promotion out of a suspension, if it was in one: the soak of the current
// stage counts the time served before, and not the suspension. The holds on its profiles are
// lifted by the pass that follows (liftHolds), whatever happens to this one.
func (r *Reconciler) resume(p *configv1beta1.ClusterPromotion, now metav1.Time) {
	c := meta.FindStatusCondition(p.Status.Conditions, configv1beta1.PromotionSuspendedCondition)
	if c == nil || c.Status != metav1.ConditionTrue {
		return
	}
	suspended := now.Sub(c.LastTransitionTime.Time).Round(time.Second)
	if st := findStageStatus(p, p.Status.CurrentStageName); st != nil {
		// The soak and the progress deadline count on from where they stopped.
		for _, t := range []**metav1.Time{&st.LastSuccessfulAppliedTime, &st.ProgressDeadlineTime} {
			if *t != nil {
				at := metav1.NewTime(rollout.ResumeClock((*t).Time, c.LastTransitionTime.Time, now.Time))
				*t = &at
			}
		}
	}
	msg := fmt.Sprintf("resumed after %s suspended", suspended)
	r.event(p, corev1.EventTypeNormal, ReasonResumed, "%s", msg)
	patch.SetConditionAt(&p.Status.Conditions, now, p.Generation, configv1beta1.PromotionSuspendedCondition, metav1.ConditionFalse, ReasonResumed, msg)
}

// holdProfiles puts the hold on the rolling update of every profile, or lifts it.
func (r *Reconciler) holdProfiles(ctx context.Context, profiles []configv1beta1.ClusterProfile, hold bool) error {
	for i := range profiles {
		pr := &profiles[i]
		if _, held := pr.Annotations[configv1beta1.HoldRolloutAnnotation]; held == hold {
			continue
		}
		before := pr.DeepCopy()
		if hold {
			if pr.Annotations == nil {
				pr.Annotations = map[string]string{}
			}
			pr.Annotations[configv1beta1.HoldRolloutAnnotation] = "suspended"
		} else {
			delete(pr.Annotations, configv1beta1.HoldRolloutAnnotation)
		}
		if err := r.Patch(ctx, pr, client.MergeFrom(before)); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("holding the rollout of ClusterProfile %s: %w", pr.Name, err)
		}
	}
	return nil
}

// findStageStatus is the status of the named stage, nil when it has none.
func findStageStatus(p *configv1beta1.ClusterPromotion, name string) *configv1beta1.StageStatus {
	for i := range p.Status.Stages {
		if p.Status.Stages[i].Name == name {
			return &p.Status.Stages[i]
		}
	}
	return nil
}

// recordHold writes, in the status, the window that holds the rollout and when it may go on;
// a nil hold clears both.
func recordHold(p *configv1beta1.ClusterPromotion, stage *configv1beta1.Stage, h *rollout.Hold) {
	p.Status.NextPromotionTime, p.Status.BlockingWindow = nil, nil
	if h == nil {
		return
	}
	if !h.Until.IsZero() {
		p.Status.NextPromotionTime = &metav1.Time{Time: h.Until}
	}
	switch {
	case h.DenyWindow >= 0 && h.DenyWindow < len(p.Spec.DenyWindows):
		i := int32(h.DenyWindow)
		p.Status.BlockingWindow = &configv1beta1.BlockingWindow{Kind: configv1beta1.BlockingWindowDeny, Index: &i, TimeWindow: p.Spec.DenyWindows[i]}
	case stage != nil && stage.Trigger != nil && stage.Trigger.Auto != nil && stage.Trigger.Auto.PromotionWindow != nil:
		p.Status.BlockingWindow = &configv1beta1.BlockingWindow{Kind: configv1beta1.BlockingWindowPromotion, TimeWindow: *stage.Trigger.Auto.PromotionWindow}
	}
}

// holdWords says in words what holds the rollout and until when, for the Ready condition.
func holdWords(p *configv1beta1.ClusterPromotion, h *rollout.Hold) string {
	until := "no end in sight: the window never closes again"
	if !h.Until.IsZero() {
		until = "until " + h.Until.UTC().Format(time.RFC3339)
	}
	if h.DenyWindow >= 0 && h.DenyWindow < len(p.Spec.DenyWindows) {
		w := p.Spec.DenyWindows[h.DenyWindow]
		return fmt.Sprintf("deny window %d (from %q to %q) is open, %s", h.DenyWindow, w.From, w.To, until)
	}
	return "the promotion window is closed, " + until
}

// newVersionHeld reports whether a deny window holds a new version from starting now.
func newVersionHeld(p *configv1beta1.ClusterPromotion, now time.Time) (*rollout.Hold, error) {
	if len(p.Spec.DenyWindows) == 0 {
		return nil, nil
	}
	deny, err := rollout.ParseDenyWindows(p.Spec.DenyWindows)
	if err != nil {
		return nil, err
	}
	if h, held := rollout.HoldAt(nil, deny, now); held {
		return &h, nil
	}
	return nil, nil
}
