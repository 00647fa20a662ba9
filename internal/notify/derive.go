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

package notify

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

// ForPromotion derives the events a ClusterPromotion's status says are due: from status.history
// where the controller keeps it, and from the current version's stages, failure, rollback and
// last known good version otherwise. recheck, when positive, is when stage.blocked may become
// due: nothing in status changes then, so the caller must look again.
//
// An id tells apart two rollouts of one version (history starts a new record when a version
// comes back, or its stages change) by when the rollout started, and two failures of a stage
// (a retry in between) by when it failed; history and the current status give the same ids.
func ForPromotion(p *configv1beta1.ClusterPromotion, now time.Time, blockedAfter time.Duration) (events []Event, recheck time.Duration) {
	obj := Object{APIVersion: configv1beta1.GroupVersion.String(), Kind: "ClusterPromotion", Name: p.Name, UID: p.UID}
	add := func(typ string, hash []byte, stage string, attempt []string, at time.Time, msg string) {
		if at.IsZero() {
			at = now
		}
		ev := newEvent(obj, typ, hex.EncodeToString(hash), stage, attempt, at, msg)
		if !slices.ContainsFunc(events, func(e Event) bool { return e.ID == ev.ID }) {
			events = append(events, ev)
		}
	}
	hist := p.Status.History
	for _, v := range hist {
		gen := stamp(v.Started.Time)
		for _, s := range v.Stages {
			if s.ApprovalNeededSince != nil {
				add(TypeApprovalNeeded, v.ProfileSpecHash, s.Name, []string{gen}, s.ApprovalNeededSince.Time, "stage "+s.Name+" waits for a manual approval")
			}
			if s.Outcome == configv1beta1.OutcomeFailed {
				// The record's Finished is the failure's time (status.failure.time).
				add(TypeStageFailed, v.ProfileSpecHash, s.Name, failure(p, gen, v.ProfileSpecHash, s.Name, timeOf(s.Finished)), timeOf(s.Finished), "stage "+s.Name+" failed: "+s.Message)
			}
		}
		switch v.Outcome {
		case configv1beta1.OutcomeSucceeded:
			add(TypeVersionCompleted, v.ProfileSpecHash, "", []string{gen}, timeOf(v.Finished), "the version went through every stage")
		case configv1beta1.OutcomeRolledBack:
			add(TypeRollbackFinished, v.ProfileSpecHash, "", []string{gen}, timeOf(v.Finished), "the version was rolled back")
		}
	}
	st := &p.Status
	cur := st.ProfileSpecHash
	if len(cur) == 0 {
		return events, 0
	}
	gen := []string{started(hist, cur, false)}
	for _, s := range st.Stages {
		if s.Name == st.CurrentStageName && s.CurrentStatusDescription != nil && strings.HasPrefix(*s.CurrentStatusDescription, rollout.DescAwaitingApproval) {
			add(TypeApprovalNeeded, cur, s.Name, gen, describedAt(*s.CurrentStatusDescription), "stage "+s.Name+" waits for a manual approval")
		}
	}
	if f := st.Failure; f != nil {
		failed := []string{started(hist, f.ProfileSpecHash, false)}
		if !f.Requested {
			add(TypeStageFailed, f.ProfileSpecHash, f.Stage, failure(p, failed[0], f.ProfileSpecHash, f.Stage, f.Time.Time), f.Time.Time, "stage "+f.Stage+" failed: "+f.Message)
		}
		if rb := st.Rollback; rb != nil {
			add(TypeRollbackStarted, f.ProfileSpecHash, f.Stage, failed, f.Time.Time,
				fmt.Sprintf("rolling back to version %s, stages %s", short(rb.ToProfileSpecHash), strings.Join(rb.Stages, ", ")))
			if int(rb.Done) >= len(rb.Stages) {
				add(TypeRollbackFinished, f.ProfileSpecHash, "", failed, time.Time{}, "the version was rolled back to version "+short(rb.ToProfileSpecHash))
			}
		}
	}
	if lkg := st.LastKnownGood; lkg != nil {
		add(TypeVersionCompleted, lkg.ProfileSpecHash, "", []string{started(hist, lkg.ProfileSpecHash, true)}, lkg.Time.Time, "the version went through every stage")
	}
	if st.Failure != nil || p.Spec.Suspend || st.CurrentStageName == "" || st.LastPromotionTime == nil ||
		(st.LastKnownGood != nil && slices.Equal(st.LastKnownGood.ProfileSpecHash, cur)) {
		return events, 0
	}
	// The stage is measured from when it started, or was last retried: a retry starts it over.
	from := st.LastPromotionTime.Time
	if rt := st.Retry; rt != nil && rt.Stage == st.CurrentStageName && slices.Equal(rt.ProfileSpecHash, cur) && rt.Time.After(from) {
		from = rt.Time.Time
	}
	since := now.Sub(from)
	if since < blockedAfter {
		return events, blockedAfter - since
	}
	add(TypeStageBlocked, cur, st.CurrentStageName, append(gen, stamp(from)), from.Add(blockedAfter),
		fmt.Sprintf("stage %s has not passed in %s: %s", st.CurrentStageName, since.Round(time.Second), stageWords(p)))
	return events, 0
}

// failure is the attempt of a stage failure at t: the rollout's start, t, and, when the stage was
// retried within the same second (a cluster that fails again at once), the retry's token, which
// tells this failure from the one the retry cleared.
func failure(p *configv1beta1.ClusterPromotion, rollout string, hash []byte, stage string, t time.Time) []string {
	attempt := []string{rollout, stamp(t)}
	if rt := p.Status.Retry; rt != nil && rt.Stage == stage && slices.Equal(rt.ProfileSpecHash, hash) && stamp(rt.Time.Time) == stamp(t) {
		attempt = append(attempt, rt.Token)
	}
	return attempt
}

// started is when the newest rollout of version hash that status.history records started (the
// newest that succeeded, when succeeded is set), as ids write it; "" when history has none.
func started(hist []configv1beta1.VersionRecord, hash []byte, succeeded bool) string {
	for _, v := range hist {
		if slices.Equal(v.ProfileSpecHash, hash) && (!succeeded || v.Outcome == configv1beta1.OutcomeSucceeded) {
			return stamp(v.Started.Time)
		}
	}
	return ""
}

// stageWords says where the current stage is, as its status describes it.
func stageWords(p *configv1beta1.ClusterPromotion) string {
	for _, s := range p.Status.Stages {
		if s.Name != p.Status.CurrentStageName {
			continue
		}
		if s.FailureMessage != nil && *s.FailureMessage != "" {
			return *s.FailureMessage
		}
		if s.CurrentStatusDescription != nil {
			return *s.CurrentStatusDescription
		}
	}
	return "no status yet"
}

// describedAt reads the time a CurrentStatusDescription ends with, "... (2026-02-16T06:28:24Z)".
func describedAt(desc string) time.Time {
	i := strings.LastIndex(desc, "(")
	if i < 0 {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339, strings.TrimSuffix(desc[i+1:], ")"))
	if err != nil {
		return time.Time{}
	}
	return t
}

func short(hash []byte) string {
	s := hex.EncodeToString(hash)
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

func timeOf(t *metav1.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.Time
}
