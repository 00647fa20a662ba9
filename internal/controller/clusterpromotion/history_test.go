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
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/diff"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
)

func TestRecordHistory(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Minute))
	v1, v2 := []byte{1}, []byte{2}
	alice := "alice"
	const (
		inProgress = configv1beta1.OutcomeInProgress
		succeeded  = configv1beta1.OutcomeSucceeded
		failed     = configv1beta1.OutcomeFailed
		rolledBack = configv1beta1.OutcomeRolledBack
		superseded = configv1beta1.OutcomeSuperseded
	)
	stages := func(names ...string) []configv1beta1.StageStatus {
		var out []configv1beta1.StageStatus
		for _, n := range names {
			out = append(out, configv1beta1.StageStatus{Name: n})
		}
		return out
	}
	status := func(hash []byte, current string, reached ...string) *configv1beta1.ClusterPromotionStatus {
		return &configv1beta1.ClusterPromotionStatus{ProfileSpecHash: hash, CurrentStageName: current, Stages: stages(reached...)}
	}
	stage := func(name, outcome string, started metav1.Time, finished *metav1.Time) configv1beta1.StageRecord {
		return configv1beta1.StageRecord{Name: name, Outcome: outcome, Started: &started, Finished: finished}
	}
	version := func(hash []byte, outcome string, finished *metav1.Time, s ...configv1beta1.StageRecord) configv1beta1.VersionRecord {
		return configv1beta1.VersionRecord{ProfileSpecHash: hash, Outcome: outcome, Started: t0, Finished: finished, Stages: s}
	}
	dev := stage("dev", inProgress, t0, nil)
	devDone := stage("dev", succeeded, t0, &t1)

	for _, tc := range []struct {
		name string
		old  []configv1beta1.VersionRecord
		st   *configv1beta1.ClusterPromotionStatus
		f    historyFacts
		now  metav1.Time
		want []configv1beta1.VersionRecord
	}{{
		name: "no version yet",
		st:   &configv1beta1.ClusterPromotionStatus{},
	}, {
		name: "a version starts",
		st:   status(v1, "dev", "dev"),
		f:    historyFacts{started: true, deployed: []string{"chart https://r/nginx@1.0"}},
		now:  t0,
		want: []configv1beta1.VersionRecord{{ProfileSpecHash: v1, Deployed: []string{"chart https://r/nginx@1.0"},
			Outcome: inProgress, Started: t0, Stages: []configv1beta1.StageRecord{dev}}},
	}, {
		name: "the next stage starts, the first passed",
		old:  []configv1beta1.VersionRecord{version(v1, inProgress, nil, dev)},
		st:   status(v1, "prod", "dev", "prod"),
		now:  t1,
		want: []configv1beta1.VersionRecord{version(v1, inProgress, nil, devDone, stage("prod", inProgress, t1, nil))},
	}, {
		name: "a stage waits for approval",
		old:  []configv1beta1.VersionRecord{version(v1, inProgress, nil, dev)},
		st:   status(v1, "dev", "dev"),
		f:    historyFacts{gate: "dev", awaiting: true, message: "stage dev: awaiting approval"},
		now:  t1,
		want: []configv1beta1.VersionRecord{version(v1, inProgress, nil, configv1beta1.StageRecord{Name: "dev", Outcome: inProgress,
			Started: &t0, ApprovalNeededSince: &t1, Message: "stage dev: awaiting approval"})},
	}, {
		name: "an approval opens the last gate",
		old: []configv1beta1.VersionRecord{version(v1, inProgress, nil, configv1beta1.StageRecord{Name: "dev", Outcome: inProgress,
			Started: &t0, ApprovalNeededSince: &t0, Message: "stage dev: awaiting approval"})},
		st:  status(v1, "dev", "dev"),
		f:   historyFacts{gate: "dev", approvedBy: &alice, completed: true},
		now: t1,
		want: []configv1beta1.VersionRecord{version(v1, succeeded, &t1, configv1beta1.StageRecord{Name: "dev", Outcome: succeeded,
			Started: &t0, Finished: &t1, ApprovalNeededSince: &t0, ApprovedBy: "alice", ApprovedAt: &t1})},
	}, {
		name: "an approval taken back before the gate opened",
		old: []configv1beta1.VersionRecord{version(v1, inProgress, nil, configv1beta1.StageRecord{Name: "dev", Outcome: inProgress,
			Started: &t0, ApprovedBy: "alice", ApprovedAt: &t0})},
		st:   status(v1, "dev", "dev"),
		f:    historyFacts{gate: "dev", awaiting: true},
		now:  t1,
		want: []configv1beta1.VersionRecord{version(v1, inProgress, nil, configv1beta1.StageRecord{Name: "dev", Outcome: inProgress, Started: &t0, ApprovalNeededSince: &t1})},
	}, {
		name: "a stage fails",
		old:  []configv1beta1.VersionRecord{version(v1, inProgress, nil, devDone, stage("prod", inProgress, t1, nil))},
		st: func() *configv1beta1.ClusterPromotionStatus {
			st := status(v1, "prod", "dev", "prod")
			st.Failure = &configv1beta1.PromotionFailure{Stage: "prod", ProfileSpecHash: v1, Message: "boom", Time: t1}
			return st
		}(),
		now: t1,
		want: []configv1beta1.VersionRecord{version(v1, failed, &t1, devDone,
			configv1beta1.StageRecord{Name: "prod", Outcome: failed, Started: &t1, Finished: &t1, Message: "boom"})},
	}, {
		name: "a failed version is rolled back",
		old: []configv1beta1.VersionRecord{version(v1, failed, &t0, devDone,
			configv1beta1.StageRecord{Name: "prod", Outcome: failed, Started: &t0, Finished: &t0, Message: "boom"})},
		st: func() *configv1beta1.ClusterPromotionStatus {
			st := status(v1, "prod", "dev", "prod")
			st.Failure = &configv1beta1.PromotionFailure{Stage: "prod", ProfileSpecHash: v1, Message: "boom", Time: t0}
			st.Rollback = &configv1beta1.RollbackStatus{ToProfileSpecHash: v2, Stages: []string{"prod", "dev"}, Done: 2}
			return st
		}(),
		now: t1,
		want: []configv1beta1.VersionRecord{version(v1, rolledBack, &t1, stage("dev", rolledBack, t0, &t1),
			configv1beta1.StageRecord{Name: "prod", Outcome: failed, Started: &t0, Finished: &t0, Message: "boom"})},
	}, {
		name: "a retry clears the failure: the stage and the version are open again",
		old: []configv1beta1.VersionRecord{version(v1, failed, &t0,
			configv1beta1.StageRecord{Name: "dev", Outcome: failed, Started: &t0, Finished: &t0, Message: "boom"})},
		st: func() *configv1beta1.ClusterPromotionStatus {
			st := status(v1, "dev", "dev")
			st.Retry = &configv1beta1.PromotionRetry{Token: "t", Stage: "dev", ProfileSpecHash: v1, Time: t1}
			return st
		}(),
		now: t1,
		want: []configv1beta1.VersionRecord{version(v1, inProgress, nil,
			configv1beta1.StageRecord{Name: "dev", Outcome: inProgress, Started: &t0, Message: "boom", Retries: 1})},
	}, {
		name: "after the retry the stage passes and the next starts",
		old: []configv1beta1.VersionRecord{version(v1, inProgress, nil,
			configv1beta1.StageRecord{Name: "dev", Outcome: inProgress, Started: &t0, Message: "boom", Retries: 1})},
		st: func() *configv1beta1.ClusterPromotionStatus {
			st := status(v1, "prod", "dev", "prod")
			st.Retry = &configv1beta1.PromotionRetry{Token: "t", Stage: "dev", ProfileSpecHash: v1, Time: t0}
			return st
		}(),
		now: t1,
		want: []configv1beta1.VersionRecord{version(v1, inProgress, nil,
			configv1beta1.StageRecord{Name: "dev", Outcome: succeeded, Started: &t0, Finished: &t1, Retries: 1}, stage("prod", inProgress, t1, nil))},
	}, {
		name: "the retried stage fails again",
		old: []configv1beta1.VersionRecord{version(v1, inProgress, nil,
			configv1beta1.StageRecord{Name: "dev", Outcome: inProgress, Started: &t0, Retries: 1})},
		st: func() *configv1beta1.ClusterPromotionStatus {
			st := status(v1, "dev", "dev")
			st.Retry = &configv1beta1.PromotionRetry{Token: "t", Stage: "dev", ProfileSpecHash: v1, Time: t0}
			st.Failure = &configv1beta1.PromotionFailure{Stage: "dev", ProfileSpecHash: v1, Message: "boom again", Time: t1}
			return st
		}(),
		now: t1,
		want: []configv1beta1.VersionRecord{version(v1, failed, &t1,
			configv1beta1.StageRecord{Name: "dev", Outcome: failed, Started: &t0, Finished: &t1, Message: "boom again", Retries: 1})},
	}, {
		name: "a failed stage keeps its message once the version moved on",
		old: []configv1beta1.VersionRecord{version(v1, failed, &t0,
			configv1beta1.StageRecord{Name: "dev", Outcome: failed, Started: &t0, Finished: &t0, Message: "boom"})},
		st: func() *configv1beta1.ClusterPromotionStatus {
			st := status(v1, "prod", "dev", "prod")
			// A retry older than the failure opens nothing.
			st.Retry = &configv1beta1.PromotionRetry{Token: "t", Stage: "dev", ProfileSpecHash: v1, Time: metav1.NewTime(t0.Add(-time.Minute))}
			return st
		}(),
		now: t1,
		want: []configv1beta1.VersionRecord{version(v1, failed, &t0,
			configv1beta1.StageRecord{Name: "dev", Outcome: failed, Started: &t0, Finished: &t0, Message: "boom"}, stage("prod", inProgress, t1, nil))},
	}, {
		name: "a new version supersedes one in progress",
		old:  []configv1beta1.VersionRecord{version(v1, inProgress, nil, dev)},
		st:   status(v2, "dev", "dev"),
		f:    historyFacts{started: true},
		now:  t1,
		want: []configv1beta1.VersionRecord{
			{ProfileSpecHash: v2, Outcome: inProgress, Started: t1, Stages: []configv1beta1.StageRecord{stage("dev", inProgress, t1, nil)}},
			version(v1, superseded, &t1, stage("dev", superseded, t0, &t1)),
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			before := make([]configv1beta1.VersionRecord, len(tc.old))
			for i := range tc.old {
				tc.old[i].DeepCopyInto(&before[i])
			}
			got := recordHistory(tc.old, tc.st, tc.f, tc.now)
			if !equality.Semantic.DeepEqual(tc.want, got) {
				t.Errorf("history (-want +got):\n%s", diff.Diff(tc.want, got))
			}
			if !equality.Semantic.DeepEqual(before, tc.old) {
				t.Errorf("recordHistory changed the history it was given:\n%s", diff.Diff(before, tc.old))
			}
		})
	}
}

// TestRecordHistoryBounded: the history keeps the newest MaxHistory versions.
func TestRecordHistoryBounded(t *testing.T) {
	var h []configv1beta1.VersionRecord
	now := metav1.Now()
	for i := range configv1beta1.MaxHistory + 5 {
		h = recordHistory(h, &configv1beta1.ClusterPromotionStatus{ProfileSpecHash: []byte{byte(i)}}, historyFacts{started: true}, now)
	}
	if len(h) != configv1beta1.MaxHistory {
		t.Fatalf("history has %d versions, want %d", len(h), configv1beta1.MaxHistory)
	}
	if h[0].ProfileSpecHash[0] != configv1beta1.MaxHistory+4 || h[len(h)-1].ProfileSpecHash[0] != 5 {
		t.Errorf("history keeps versions %d..%d, want the newest first", h[0].ProfileSpecHash[0], h[len(h)-1].ProfileSpecHash[0])
	}
}

// TestRecordHistorySizes: long messages and long lists of content are cut, and say so.
func TestRecordHistorySizes(t *testing.T) {
	long := strings.Repeat("é", configv1beta1.MaxHistoryMessage+10)
	var deployed []string
	for i := range configv1beta1.MaxDeployed + 5 {
		deployed = append(deployed, fmt.Sprintf("ConfigMap ns/c%d", i))
	}
	st := &configv1beta1.ClusterPromotionStatus{ProfileSpecHash: []byte{1}, CurrentStageName: "dev", Stages: []configv1beta1.StageStatus{{Name: "dev"}},
		Failure: &configv1beta1.PromotionFailure{Stage: "dev", ProfileSpecHash: []byte{1}, Message: long, Time: metav1.Now()}}
	h := recordHistory(nil, st, historyFacts{started: true, deployed: deployed}, metav1.Now())
	m := h[0].Stages[0].Message
	if n := utf8.RuneCountInString(m); n != configv1beta1.MaxHistoryMessage || !strings.HasSuffix(m, "é…") {
		t.Errorf("message of %d characters ending %q, want %d ending with …", n, m[len(m)-8:], configv1beta1.MaxHistoryMessage)
	}
	d := h[0].Deployed
	if len(d) != configv1beta1.MaxDeployed || d[len(d)-2] != "ConfigMap ns/c18" || d[len(d)-1] != "and 6 more" {
		t.Errorf("deployed %q: want the first %d and %q", d, configv1beta1.MaxDeployed-1, "and 6 more")
	}
	if short := boundDeployed(deployed[:3]); len(short) != 3 {
		t.Errorf("a short list was cut: %q", short)
	}
}

// TestApprover: the approver is read from the annotation the admission policy stamps only when
// the controller is told the policy is there; otherwise anyone could write it.
func TestApprover(t *testing.T) {
	p := &configv1beta1.ClusterPromotion{}
	p.Annotations = map[string]string{configv1beta1.ApprovedByAnnotationPrefix + "prod": "bob"}
	if got := approver(p, "prod", true); got != "bob" {
		t.Errorf("trusted: approver %q, want bob", got)
	}
	if got := approver(p, "prod", false); got != "" {
		t.Errorf("not trusted: approver %q, want none", got)
	}
	if got := approver(p, "dev", true); got != "" {
		t.Errorf("another stage: approver %q, want none", got)
	}
}
