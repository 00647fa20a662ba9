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
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

// Event and condition reasons of suspension and freeze windows.
const (
	reasonSuspended = "Suspended"
	reasonResumed   = "Resumed"
	// reasonFrozen: a deny window holds the next stage, or a new version, back.
	reasonFrozen = "Frozen"
)

// suspendPhase holds the promotion where it is while spec.suspend is true: the rolling updates
// of its profiles start no other cluster, and nothing else moves (no stage, no version, no
// approval, no soak). The pass that finds it false again resumes it.
func (r *Reconciler) suspendPhase(ctx context.Context, ps *pass) error {
	if !ps.p.Spec.Suspend {
		r.resume(ps)
		return nil
	}
	p := ps.p
	owned, err := r.ownedProfiles(ctx, p)
	if err != nil {
		return err
	}
	if err := r.holdProfiles(ctx, owned, true); err != nil {
		return err
	}
	if st := findStageStatus(p, p.Status.CurrentStageName); st != nil {
		st.LastStatusCheckTime = &ps.now
	}
	recordHold(p, nil, nil)
	since := ps.now
	if c := meta.FindStatusCondition(p.Status.Conditions, configv1beta1.PromotionSuspendedCondition); c != nil && c.Status == metav1.ConditionTrue {
		since = c.LastTransitionTime
	} else {
		r.event(p, corev1.EventTypeNormal, reasonSuspended, "suspended at stage %q", p.Status.CurrentStageName)
	}
	ps.suspendedSince = &since
	return errHalt
}

// suspendWords says where the promotion is suspended, and since when.
func suspendWords(p *configv1beta1.ClusterPromotion, since metav1.Time) string {
	where := "before its first stage"
	if p.Status.CurrentStageName != "" {
		where = "at stage " + p.Status.CurrentStageName
	}
	return fmt.Sprintf("suspended %s since %s (spec.suspend): no stage starts, and no cluster starts deploying, until it is false",
		where, since.UTC().Format(time.RFC3339))
}

// heldWords says that a new version waits to start, and until when.
func heldWords(ps *pass) string {
	return fmt.Sprintf("profile spec %s waits to start: %s", formatHash(ps.profileHash), holdWords(ps.p, ps.held))
}

// resume takes the promotion out of a suspension, if it was in one: the soak of the current
// stage counts the time served before, and not the suspension. The holds on its profiles are
// lifted later in the pass (deployPhase, failurePhase), or by the pass that follows.
func (r *Reconciler) resume(ps *pass) {
	p, now := ps.p, ps.now
	c := meta.FindStatusCondition(p.Status.Conditions, configv1beta1.PromotionSuspendedCondition)
	if c == nil || c.Status != metav1.ConditionTrue {
		return
	}
	if st := findStageStatus(p, p.Status.CurrentStageName); st != nil {
		// The soak and the progress deadline count on from where they stopped.
		for _, t := range []**metav1.Time{&st.LastSuccessfulAppliedTime, &st.ProgressDeadlineTime} {
			if *t != nil {
				at := metav1.NewTime(rollout.ResumeClock((*t).Time, c.LastTransitionTime.Time, now.Time))
				*t = &at
			}
		}
	}
	ps.resumed, ps.suspendedFor = true, now.Sub(c.LastTransitionTime.Time).Round(time.Second)
	r.event(p, corev1.EventTypeNormal, reasonResumed, "%s", resumeWords(ps.suspendedFor))
}

func resumeWords(suspended time.Duration) string {
	return fmt.Sprintf("resumed after %s suspended", suspended)
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
		if err := r.client.Patch(ctx, pr, client.MergeFrom(before)); client.IgnoreNotFound(err) != nil {
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
