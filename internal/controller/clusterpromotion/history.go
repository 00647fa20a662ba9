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
	"slices"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

// status.history is written from the status the pass computed, in the same status patch: a
// transition and its record are stored together or not at all, so none is lost across a crash,
// and a lost race recomputes both. It lives in status (not objects of its own) because it is
// bounded (MaxHistory versions of a few stages each) and belongs to the promotion alone.

// historyFacts is what a pass learnt about the version that its status does not keep.
type historyFacts struct {
	// started: the version started in this pass; deployed is then what it deploys.
	started  bool
	deployed []string
	// gate names the stage whose gate the pass decided; approvedBy is set when an approval
	// opened (or opens) it, to the approver the API server stamped, and awaiting when the gate
	// waits for an approval only; message is what the gate waits for.
	gate       string
	approvedBy *string
	awaiting   bool
	message    string
	// completed: the version went through every stage.
	completed bool
}

// historyFacts gathers the facts of the pass, once summarise has run.
func (ps *pass) historyFacts() historyFacts {
	f := historyFacts{started: ps.started, completed: completed(ps.p), approvedBy: ps.approvedBy}
	if ps.started {
		f.deployed = deployedBy(&ps.p.Spec.ProfileSpec)
	}
	if ps.stage != nil && ps.outcome != 0 {
		f.gate = ps.stage.Name
		if ps.outcome == waiting {
			f.awaiting = ps.decision.Message == rollout.DescAwaitingApproval && ps.blocked == ""
			f.message = waitVerdict(ps).message
		}
	}
	return f
}

// deployedBy lists what a profile spec deploys, as VersionRecord.Deployed says.
func deployedBy(spec *configv1beta1.ProfileSpec) []string {
	var out []string
	for _, c := range spec.HelmCharts {
		out = append(out, "chart "+c.RepositoryURL+"/"+c.ChartName+"@"+c.ChartVersion)
	}
	for _, r := range spec.PolicyRefs {
		out = append(out, r.Kind+" "+r.Namespace+"/"+r.Name)
	}
	for _, r := range spec.KustomizationRefs {
		out = append(out, r.Kind+" "+r.Namespace+"/"+r.Name)
	}
	return out
}

// recordHistory is the history after a pass: old with the current version's record brought up
// to date with the status the pass computed (st) and its facts, at now. It changes nothing it
// is given.
func recordHistory(old []configv1beta1.VersionRecord, st *configv1beta1.ClusterPromotionStatus, f historyFacts, now metav1.Time) []configv1beta1.VersionRecord {
	if len(st.ProfileSpecHash) == 0 {
		return old
	}
	h := make([]configv1beta1.VersionRecord, len(old))
	for i := range old {
		old[i].DeepCopyInto(&h[i])
	}
	if f.started || len(h) == 0 || !slices.Equal(h[0].ProfileSpecHash, st.ProfileSpecHash) {
		if len(h) > 0 {
			supersede(&h[0], now)
		}
		v := configv1beta1.VersionRecord{ProfileSpecHash: slices.Clone(st.ProfileSpecHash), Deployed: boundDeployed(f.deployed),
			Outcome: configv1beta1.OutcomeInProgress, Started: now}
		h = append([]configv1beta1.VersionRecord{v}, h[:min(len(h), configv1beta1.MaxHistory-1)]...)
	}
	v := &h[0]
	failing := st.Failure != nil && slices.Equal(st.Failure.ProfileSpecHash, st.ProfileSpecHash)
	if rt := st.Retry; rt != nil && !failing && slices.Equal(rt.ProfileSpecHash, st.ProfileSpecHash) {
		reopen(v, rt)
	}
	// The stages the version reached, in order; all but the one under way have passed.
	current := slices.IndexFunc(st.Stages, func(s configv1beta1.StageStatus) bool { return s.Name == st.CurrentStageName })
	for i, s := range st.Stages {
		r := stageRecord(v, s.Name, now)
		if i < current || f.completed {
			finish(r, configv1beta1.OutcomeSucceeded, now)
			if r.Outcome == configv1beta1.OutcomeSucceeded {
				r.Message = ""
			}
		}
	}
	if f.gate != "" {
		recordGate(stageRecord(v, f.gate, now), f, now)
	}
	switch {
	case failing:
		recordFailure(v, st, now)
	case f.completed:
		finishVersion(v, configv1beta1.OutcomeSucceeded, now)
	}
	for i := range v.Stages {
		v.Stages[i].Message = boundMessage(v.Stages[i].Message)
	}
	return h
}

// reopen opens again the stage a retry cleared the failure of, and the version with it: the
// retry is a new attempt, and the stage ends as that attempt ends. A stage that failed after the
// retry (Finished later than it) stays as it is.
func reopen(v *configv1beta1.VersionRecord, rt *configv1beta1.PromotionRetry) {
	i := slices.IndexFunc(v.Stages, func(r configv1beta1.StageRecord) bool { return r.Name == rt.Stage })
	if i < 0 {
		return
	}
	r := &v.Stages[i]
	if r.Outcome != configv1beta1.OutcomeFailed || r.Finished == nil || rt.Time.Before(r.Finished) {
		return
	}
	r.Outcome, r.Finished = configv1beta1.OutcomeInProgress, nil
	r.Retries++
	if v.Outcome == configv1beta1.OutcomeFailed {
		v.Outcome, v.Finished = configv1beta1.OutcomeInProgress, nil
	}
}

// boundMessage cuts a message longer than MaxHistoryMessage characters, marking the cut.
func boundMessage(m string) string {
	if utf8.RuneCountInString(m) <= configv1beta1.MaxHistoryMessage {
		return m
	}
	return string([]rune(m)[:configv1beta1.MaxHistoryMessage-1]) + "…"
}

// boundDeployed keeps the first MaxDeployed-1 entries of a long list, and says how many more
// there are.
func boundDeployed(d []string) []string {
	if len(d) <= configv1beta1.MaxDeployed {
		return d
	}
	n := configv1beta1.MaxDeployed - 1
	return append(slices.Clip(d[:n]), fmt.Sprintf("and %d more", len(d)-n))
}

// recordGate records what the stage's gate found: an approval wanted, given or taken back.
func recordGate(r *configv1beta1.StageRecord, f historyFacts, now metav1.Time) {
	if r.Outcome != configv1beta1.OutcomeInProgress && r.Outcome != configv1beta1.OutcomeSucceeded {
		return
	}
	if f.awaiting && r.ApprovalNeededSince == nil {
		r.ApprovalNeededSince = &now
	}
	switch {
	case f.approvedBy != nil && r.ApprovedAt == nil:
		r.ApprovedBy, r.ApprovedAt = *f.approvedBy, &now
	case f.approvedBy == nil && r.Outcome == configv1beta1.OutcomeInProgress:
		// Taken back before the gate opened.
		r.ApprovedBy, r.ApprovedAt = "", nil
	}
	if r.Outcome == configv1beta1.OutcomeInProgress {
		r.Message = f.message
	}
}

// recordFailure records the failed stage, and the rollback of the version while it runs.
func recordFailure(v *configv1beta1.VersionRecord, st *configv1beta1.ClusterPromotionStatus, now metav1.Time) {
	fail := st.Failure
	r := stageRecord(v, fail.Stage, now)
	r.Message = fail.Message
	if !fail.Requested {
		finish(r, configv1beta1.OutcomeFailed, fail.Time)
		finishVersion(v, configv1beta1.OutcomeFailed, fail.Time)
	}
	rb := st.Rollback
	if rb == nil {
		return
	}
	for _, name := range rb.Stages[:min(int(rb.Done), len(rb.Stages))] {
		if r := stageRecord(v, name, now); r.Outcome != configv1beta1.OutcomeFailed && r.Outcome != configv1beta1.OutcomeRolledBack {
			r.Outcome, r.Finished = configv1beta1.OutcomeRolledBack, &now
		}
	}
	if int(rb.Done) >= len(rb.Stages) && v.Outcome != configv1beta1.OutcomeRolledBack {
		v.Outcome, v.Finished = configv1beta1.OutcomeRolledBack, &now
	}
}

// supersede ends a version that a newer one replaces before it ended.
func supersede(v *configv1beta1.VersionRecord, now metav1.Time) {
	for i := range v.Stages {
		finish(&v.Stages[i], configv1beta1.OutcomeSuperseded, now)
	}
	finishVersion(v, configv1beta1.OutcomeSuperseded, now)
}

// stageRecord is the version's record of the named stage, added (started now) when it has none.
func stageRecord(v *configv1beta1.VersionRecord, name string, now metav1.Time) *configv1beta1.StageRecord {
	if i := slices.IndexFunc(v.Stages, func(r configv1beta1.StageRecord) bool { return r.Name == name }); i >= 0 {
		return &v.Stages[i]
	}
	v.Stages = append(v.Stages, configv1beta1.StageRecord{Name: name, Started: &now, Outcome: configv1beta1.OutcomeInProgress})
	return &v.Stages[len(v.Stages)-1]
}

// finish ends a stage in progress with outcome at t; an ended stage stays as it ended.
func finish(r *configv1beta1.StageRecord, outcome string, t metav1.Time) {
	if r.Outcome == configv1beta1.OutcomeInProgress {
		r.Outcome, r.Finished = outcome, &t
	}
}

// finishVersion ends a version in progress with outcome at t.
func finishVersion(v *configv1beta1.VersionRecord, outcome string, t metav1.Time) {
	if v.Outcome == configv1beta1.OutcomeInProgress {
		v.Outcome, v.Finished = outcome, &t
	}
}
