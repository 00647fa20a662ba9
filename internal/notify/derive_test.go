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
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

var (
	t0     = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	v1, v2 = []byte{0x01, 0x02}, []byte{0x0a, 0x0b}
)

func ptr[T any](v T) *T { return &v }

func promotion(mut func(*configv1beta1.ClusterPromotionStatus)) *configv1beta1.ClusterPromotion {
	p := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: "web", UID: "uid-1"}}
	p.Status.ProfileSpecHash = v2
	p.Status.CurrentStageName = "staging"
	p.Status.LastPromotionTime = &metav1.Time{Time: t0}
	mut(&p.Status)
	return p
}

// kinds lists the events as "type stage version".
func kinds(evs []Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Type[len(TypePrefix):]+" "+e.Stage+" "+e.Version)
	}
	slices.Sort(out)
	return out
}

func TestForPromotion(t *testing.T) {
	lkg := func(h []byte) *configv1beta1.KnownGoodVersion {
		return &configv1beta1.KnownGoodVersion{ProfileSpecHash: h, Time: metav1.Time{Time: t0}}
	}
	for _, tc := range []struct {
		name    string
		status  func(*configv1beta1.ClusterPromotionStatus)
		now     time.Time
		want    []string
		recheck time.Duration
	}{
		{"deploying, not blocked yet", func(*configv1beta1.ClusterPromotionStatus) {}, t0.Add(10 * time.Minute), nil, 50 * time.Minute},
		{"blocked", func(s *configv1beta1.ClusterPromotionStatus) {
			s.Stages = []configv1beta1.StageStatus{{Name: "staging", FailureMessage: ptr("cluster a is not healthy")}}
		}, t0.Add(2 * time.Hour), []string{"stage.blocked staging 0a0b"}, 0},
		{"awaiting approval", func(s *configv1beta1.ClusterPromotionStatus) {
			s.Stages = []configv1beta1.StageStatus{{Name: "dev"}, {Name: "staging", CurrentStatusDescription: ptr(rollout.DescAwaitingApproval + " (2026-11-27T12:05:00Z)")}}
		}, t0.Add(time.Minute), []string{"approval.needed staging 0a0b"}, 59 * time.Minute},
		{"failed", func(s *configv1beta1.ClusterPromotionStatus) {
			s.Failure = &configv1beta1.PromotionFailure{Stage: "staging", ProfileSpecHash: v2, Message: "budget exceeded", Time: metav1.Time{Time: t0}}
		}, t0.Add(2 * time.Hour), []string{"stage.failed staging 0a0b"}, 0},
		{"completed", func(s *configv1beta1.ClusterPromotionStatus) { s.LastKnownGood = lkg(v2) }, t0.Add(2 * time.Hour),
			[]string{"version.completed  0a0b"}, 0},
		{"rolling back", func(s *configv1beta1.ClusterPromotionStatus) {
			s.LastKnownGood = lkg(v1)
			s.Failure = &configv1beta1.PromotionFailure{Stage: "staging", ProfileSpecHash: v2, Message: "deadline", Time: metav1.Time{Time: t0}}
			s.Rollback = &configv1beta1.RollbackStatus{ToProfileSpecHash: v1, Stages: []string{"staging", "dev"}, Done: 1}
		}, t0, []string{"rollback.started staging 0a0b", "stage.failed staging 0a0b", "version.completed  0102"}, 0},
		{"rolled back on request", func(s *configv1beta1.ClusterPromotionStatus) {
			s.LastKnownGood = lkg(v1)
			s.Failure = &configv1beta1.PromotionFailure{Stage: "staging", ProfileSpecHash: v2, Requested: true, Time: metav1.Time{Time: t0}}
			s.Rollback = &configv1beta1.RollbackStatus{ToProfileSpecHash: v1, Stages: []string{"staging", "dev"}, Done: 2}
		}, t0, []string{"rollback.finished  0a0b", "rollback.started staging 0a0b", "version.completed  0102"}, 0},
		{"from history", func(s *configv1beta1.ClusterPromotionStatus) {
			s.ProfileSpecHash = nil
			s.History = []configv1beta1.VersionRecord{
				{ProfileSpecHash: v2, Outcome: configv1beta1.OutcomeRolledBack, Stages: []configv1beta1.StageRecord{
					{Name: "dev", Outcome: configv1beta1.OutcomeRolledBack, ApprovalNeededSince: &metav1.Time{Time: t0}},
					{Name: "staging", Outcome: configv1beta1.OutcomeFailed, Message: "boom"}}},
				{ProfileSpecHash: v1, Outcome: configv1beta1.OutcomeSucceeded},
			}
		}, t0, []string{"approval.needed dev 0a0b", "rollback.finished  0a0b", "stage.failed staging 0a0b", "version.completed  0102"}, 0},
		{"blocked for hours", func(s *configv1beta1.ClusterPromotionStatus) {}, t0.Add(5 * time.Hour), []string{"stage.blocked staging 0a0b"}, 0},
		{"retried late, not blocked yet", func(s *configv1beta1.ClusterPromotionStatus) {
			s.Retry = &configv1beta1.PromotionRetry{Token: "t1", Stage: "staging", ProfileSpecHash: v2, Time: metav1.Time{Time: t0.Add(2 * time.Hour)}}
		}, t0.Add(2*time.Hour + 10*time.Minute), nil, 50 * time.Minute},
		{"retried late, blocked since", func(s *configv1beta1.ClusterPromotionStatus) {
			s.Retry = &configv1beta1.PromotionRetry{Token: "t1", Stage: "staging", ProfileSpecHash: v2, Time: metav1.Time{Time: t0.Add(2 * time.Hour)}}
		}, t0.Add(3 * time.Hour), []string{"stage.blocked staging 0a0b"}, 0},
		{"a retry of another stage does not count", func(s *configv1beta1.ClusterPromotionStatus) {
			s.Retry = &configv1beta1.PromotionRetry{Token: "t1", Stage: "dev", ProfileSpecHash: v2, Time: metav1.Time{Time: t0.Add(2 * time.Hour)}}
		}, t0.Add(2*time.Hour + 10*time.Minute), []string{"stage.blocked staging 0a0b"}, 0},
		{"a retry of another version does not count", func(s *configv1beta1.ClusterPromotionStatus) {
			s.Retry = &configv1beta1.PromotionRetry{Token: "t1", Stage: "staging", ProfileSpecHash: v1, Time: metav1.Time{Time: t0.Add(2 * time.Hour)}}
		}, t0.Add(2*time.Hour + 10*time.Minute), []string{"stage.blocked staging 0a0b"}, 0},
		{"a retry before the stage started does not count", func(s *configv1beta1.ClusterPromotionStatus) {
			s.Retry = &configv1beta1.PromotionRetry{Token: "t1", Stage: "staging", ProfileSpecHash: v2, Time: metav1.Time{Time: t0.Add(-time.Hour)}}
		}, t0.Add(2 * time.Hour), []string{"stage.blocked staging 0a0b"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, recheck := ForPromotion(promotion(tc.status), tc.now, time.Hour)
			if got := kinds(evs); !slices.Equal(got, tc.want) {
				t.Fatalf("events %q, want %q", got, tc.want)
			}
			if recheck != tc.recheck {
				t.Fatalf("recheck %s, want %s", recheck, tc.recheck)
			}
		})
	}
}

// The id of a transition is the same whenever it is derived, and differs between
// transitions; history and the current status derive the same ids.
func TestIDs(t *testing.T) {
	failedAt := metav1.Time{Time: t0.Add(30 * time.Minute)}
	record := configv1beta1.VersionRecord{ProfileSpecHash: v2, Started: metav1.Time{Time: t0}, Outcome: configv1beta1.OutcomeFailed,
		Stages: []configv1beta1.StageRecord{{Name: "staging", Outcome: configv1beta1.OutcomeFailed, Finished: &failedAt}}}
	failed := func(s *configv1beta1.ClusterPromotionStatus) {
		s.History = []configv1beta1.VersionRecord{record}
		s.Failure = &configv1beta1.PromotionFailure{Stage: "staging", ProfileSpecHash: v2, Time: failedAt}
	}
	a, _ := ForPromotion(promotion(failed), t0, time.Hour)
	b, _ := ForPromotion(promotion(failed), t0.Add(time.Hour), time.Hour)
	h, _ := ForPromotion(promotion(func(s *configv1beta1.ClusterPromotionStatus) {
		s.History = []configv1beta1.VersionRecord{record}
	}), t0, time.Hour)
	if len(a) != 1 || len(b) != 1 || len(h) != 1 || a[0].ID != b[0].ID || a[0].ID != h[0].ID || len(a[0].ID) != 32 {
		t.Fatalf("ids %v %v %v", a, b, h)
	}
	other := promotion(failed)
	other.UID = "uid-2"
	c, _ := ForPromotion(other, t0, time.Hour)
	if c[0].ID == a[0].ID {
		t.Fatal("two objects' transitions share an id")
	}
}

// A later transition of the same kind, on the same version and stage, has a new id: it is
// told, where the earlier one is settled. Each case derives the events of the status before
// and after, and lists those of after whose ids before did not have.
func TestIDsOfLaterAttempts(t *testing.T) {
	at := func(d time.Duration) *metav1.Time { return &metav1.Time{Time: t0.Add(d)} }
	failedStage := func(d time.Duration) configv1beta1.StageRecord {
		return configv1beta1.StageRecord{Name: "staging", Started: at(0), Outcome: configv1beta1.OutcomeFailed, Finished: at(d), Message: "boom"}
	}
	failure := func(d time.Duration) *configv1beta1.PromotionFailure {
		return &configv1beta1.PromotionFailure{Stage: "staging", ProfileSpecHash: v2, Message: "boom", Time: *at(d)}
	}
	firstFailure := func(s *configv1beta1.ClusterPromotionStatus) {
		s.History = []configv1beta1.VersionRecord{{ProfileSpecHash: v2, Started: *at(0), Outcome: configv1beta1.OutcomeFailed, Finished: at(time.Minute),
			Stages: []configv1beta1.StageRecord{failedStage(time.Minute)}}}
		s.Failure = failure(time.Minute)
	}
	// A, then B, then A again: status.history as the controller writes it.
	firstA := configv1beta1.VersionRecord{ProfileSpecHash: v1, Started: *at(-5 * time.Hour), Outcome: configv1beta1.OutcomeSucceeded, Finished: at(-4 * time.Hour),
		Stages: []configv1beta1.StageRecord{{Name: "staging", Outcome: configv1beta1.OutcomeSucceeded, ApprovalNeededSince: at(-5 * time.Hour)}}}
	b := configv1beta1.VersionRecord{ProfileSpecHash: v2, Started: *at(-3 * time.Hour), Outcome: configv1beta1.OutcomeSucceeded, Finished: at(-2 * time.Hour)}
	onA := func(s *configv1beta1.ClusterPromotionStatus) {
		s.ProfileSpecHash = v1
		s.LastKnownGood = &configv1beta1.KnownGoodVersion{ProfileSpecHash: v1, Time: *at(-4 * time.Hour)}
		s.History = []configv1beta1.VersionRecord{firstA}
	}
	onB := func(s *configv1beta1.ClusterPromotionStatus) {
		s.ProfileSpecHash = v2
		s.LastKnownGood = &configv1beta1.KnownGoodVersion{ProfileSpecHash: v2, Time: *at(-2 * time.Hour)}
		s.History = []configv1beta1.VersionRecord{b, firstA}
	}
	// The second rollout of A waits for the approval of staging, fails there, or completes.
	secondA := func(mut func(*configv1beta1.VersionRecord, *configv1beta1.ClusterPromotionStatus)) func(*configv1beta1.ClusterPromotionStatus) {
		return func(s *configv1beta1.ClusterPromotionStatus) {
			onB(s)
			s.ProfileSpecHash = v1
			again := configv1beta1.VersionRecord{ProfileSpecHash: v1, Started: *at(0), Outcome: configv1beta1.OutcomeInProgress,
				Stages: []configv1beta1.StageRecord{{Name: "staging", Outcome: configv1beta1.OutcomeInProgress, ApprovalNeededSince: at(time.Minute)}}}
			s.Stages = []configv1beta1.StageStatus{{Name: "staging", CurrentStatusDescription: ptr(rollout.DescAwaitingApproval + " (2026-11-27T12:01:00Z)")}}
			mut(&again, s)
			s.History = append([]configv1beta1.VersionRecord{again}, s.History...)
		}
	}
	waiting := func(*configv1beta1.VersionRecord, *configv1beta1.ClusterPromotionStatus) {}
	for _, tc := range []struct {
		name          string
		before, after func(*configv1beta1.ClusterPromotionStatus)
		now           time.Time
		want          []string
	}{
		{"failed again after a retry, history keeping the first failure", firstFailure, func(s *configv1beta1.ClusterPromotionStatus) {
			firstFailure(s)
			s.Retry = &configv1beta1.PromotionRetry{Token: "t1", Stage: "staging", ProfileSpecHash: v2, Time: *at(10 * time.Minute)}
			s.Failure = failure(40 * time.Minute)
		}, t0.Add(time.Hour), []string{"stage.failed staging 0a0b"}},
		{"failed again after a retry, history recording the second failure", firstFailure, func(s *configv1beta1.ClusterPromotionStatus) {
			firstFailure(s)
			s.History[0].Stages[0] = failedStage(40 * time.Minute)
			s.Retry = &configv1beta1.PromotionRetry{Token: "t1", Stage: "staging", ProfileSpecHash: v2, Time: *at(10 * time.Minute)}
			s.Failure = failure(40 * time.Minute)
		}, t0.Add(time.Hour), []string{"stage.failed staging 0a0b"}},
		{"failed again within the second of the retry", firstFailure, func(s *configv1beta1.ClusterPromotionStatus) {
			firstFailure(s)
			s.Retry = &configv1beta1.PromotionRetry{Token: "t1", Stage: "staging", ProfileSpecHash: v2, Time: *at(time.Minute)}
			s.Failure = failure(time.Minute)
		}, t0.Add(time.Hour), []string{"stage.failed staging 0a0b"}},
		{"retried, not failed again", firstFailure, func(s *configv1beta1.ClusterPromotionStatus) {
			firstFailure(s)
			s.Retry = &configv1beta1.PromotionRetry{Token: "t1", Stage: "staging", ProfileSpecHash: v2, Time: *at(10 * time.Minute)}
			s.Failure = nil
		}, t0.Add(20 * time.Minute), nil},
		{"blocked again after a retry", func(s *configv1beta1.ClusterPromotionStatus) {}, func(s *configv1beta1.ClusterPromotionStatus) {
			s.Retry = &configv1beta1.PromotionRetry{Token: "t1", Stage: "staging", ProfileSpecHash: v2, Time: *at(2 * time.Hour)}
		}, t0.Add(3*time.Hour + time.Minute), []string{"stage.blocked staging 0a0b"}},
		{"A again after B: approval needed", onB, secondA(waiting), t0.Add(2 * time.Minute), []string{"approval.needed staging 0102"}},
		{"A again after B: blocked", onB, secondA(waiting), t0.Add(2 * time.Hour), []string{"approval.needed staging 0102", "stage.blocked staging 0102"}},
		{"A again after B: failed", onB, secondA(func(v *configv1beta1.VersionRecord, s *configv1beta1.ClusterPromotionStatus) {
			v.Outcome, v.Stages[0] = configv1beta1.OutcomeFailed, failedStage(10*time.Minute)
			s.Stages = nil
			s.Failure = failure(10 * time.Minute)
			s.Failure.ProfileSpecHash = v1
		}), t0.Add(time.Hour), []string{"stage.failed staging 0102"}},
		{"A again after B: completed", onB, secondA(func(v *configv1beta1.VersionRecord, s *configv1beta1.ClusterPromotionStatus) {
			v.Outcome, v.Finished = configv1beta1.OutcomeSucceeded, at(time.Hour)
			v.Stages[0].Outcome = configv1beta1.OutcomeSucceeded
			s.Stages = nil
			s.LastKnownGood = &configv1beta1.KnownGoodVersion{ProfileSpecHash: v1, Time: *at(time.Hour)}
		}), t0.Add(time.Hour), []string{"approval.needed staging 0102", "version.completed  0102"}},
		{"the same version again, its stages changed", onA, func(s *configv1beta1.ClusterPromotionStatus) {
			onA(s)
			again := firstA
			again.Started, again.Outcome, again.Finished = *at(0), configv1beta1.OutcomeRolledBack, at(time.Hour)
			again.Stages = []configv1beta1.StageRecord{failedStage(30 * time.Minute)}
			s.History = []configv1beta1.VersionRecord{again, firstA}
		}, t0.Add(time.Hour), []string{"rollback.finished  0102", "stage.failed staging 0102"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			settled := map[string]bool{}
			before, _ := ForPromotion(promotion(tc.before), tc.now, time.Hour)
			for _, e := range before {
				settled[e.ID] = true
			}
			after, _ := ForPromotion(promotion(tc.after), tc.now, time.Hour)
			var told []Event
			for _, e := range after {
				if !settled[e.ID] {
					told = append(told, e)
				}
			}
			if got := kinds(told); !slices.Equal(got, tc.want) {
				t.Fatalf("told %q, want %q (before: %q, after: %q)", got, tc.want, kinds(before), kinds(after))
			}
		})
	}
}

func run(mut func(*placementv1beta1.ClusterStagedUpdateRun)) *placementv1beta1.ClusterStagedUpdateRun {
	r := &placementv1beta1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: "run-1", UID: "uid-r"}}
	r.Status.ResourceSnapshotIndexUsed = "3"
	mut(r)
	return r
}

func cond(typ string, s metav1.ConditionStatus, msg string) []metav1.Condition {
	return []metav1.Condition{{Type: typ, Status: s, Message: msg, LastTransitionTime: metav1.Time{Time: t0}}}
}

func TestForUpdateRun(t *testing.T) {
	started := &metav1.Time{Time: t0}
	for _, tc := range []struct {
		name    string
		mut     func(*placementv1beta1.ClusterStagedUpdateRun)
		now     time.Time
		want    []string
		recheck time.Duration
	}{
		{"running", func(r *placementv1beta1.ClusterStagedUpdateRun) {
			r.Status.StagesStatus = []placementv1beta1.StageUpdatingStatus{{StageName: "canary", StartTime: started}}
		}, t0.Add(time.Minute), nil, 59 * time.Minute},
		{"waiting for approval", func(r *placementv1beta1.ClusterStagedUpdateRun) {
			r.Status.StagesStatus = []placementv1beta1.StageUpdatingStatus{{StageName: "canary", StartTime: started,
				AfterStageTaskStatus: []placementv1beta1.StageTaskStatus{{Type: placementv1beta1.StageTaskTypeApproval, ApprovalRequestName: "run-1-canary",
					Conditions: cond(string(placementv1beta1.StageTaskConditionApprovalRequestCreated), metav1.ConditionTrue, "")}}}}
		}, t0.Add(2 * time.Hour), []string{"approval.needed canary 3", "stage.blocked canary 3"}, 0},
		{"approved, the stage going on", func(r *placementv1beta1.ClusterStagedUpdateRun) {
			r.Status.StagesStatus = []placementv1beta1.StageUpdatingStatus{{StageName: "canary", StartTime: started,
				BeforeStageTaskStatus: []placementv1beta1.StageTaskStatus{{Type: placementv1beta1.StageTaskTypeApproval, ApprovalRequestName: "run-1-before-canary",
					Conditions: append(cond(string(placementv1beta1.StageTaskConditionApprovalRequestCreated), metav1.ConditionTrue, ""),
						cond(string(placementv1beta1.StageTaskConditionApprovalRequestApproved), metav1.ConditionTrue, "")...)}}}}
		}, t0.Add(time.Minute), nil, 59 * time.Minute},
		{"a retry run's kept stage", func(r *placementv1beta1.ClusterStagedUpdateRun) {
			r.Annotations = map[string]string{placementv1beta1.RetryOfAnnotation: "run-0"}
			r.Status.StagesStatus = []placementv1beta1.StageUpdatingStatus{{StageName: "canary", StartTime: started, EndTime: started,
				Conditions: cond(string(placementv1beta1.StageUpdatingConditionSucceeded), metav1.ConditionTrue, ""),
				AfterStageTaskStatus: []placementv1beta1.StageTaskStatus{{Type: placementv1beta1.StageTaskTypeApproval, ApprovalRequestName: "run-0-canary",
					Conditions: cond(string(placementv1beta1.StageTaskConditionApprovalRequestCreated), metav1.ConditionTrue, "")}}},
				{StageName: "prod", StartTime: &metav1.Time{Time: t0.Add(time.Minute)}}}
		}, t0.Add(2 * time.Minute), nil, 59 * time.Minute},
		{"stage failed", func(r *placementv1beta1.ClusterStagedUpdateRun) {
			r.Status.StagesStatus = []placementv1beta1.StageUpdatingStatus{{StageName: "canary", StartTime: started, EndTime: started,
				Conditions: cond(string(placementv1beta1.StageUpdatingConditionSucceeded), metav1.ConditionFalse, "cluster a failed")}}
			r.Status.Conditions = cond(string(placementv1beta1.StagedUpdateRunConditionSucceeded), metav1.ConditionFalse, "stage canary failed")
			r.Status.RollbackRunName = "run-1-rollback"
		}, t0, []string{"rollback.started  3", "stage.failed canary 3"}, 0},
		{"run failed", func(r *placementv1beta1.ClusterStagedUpdateRun) {
			r.Status.Conditions = cond(string(placementv1beta1.StagedUpdateRunConditionSucceeded), metav1.ConditionFalse, "deadline")
		}, t0, []string{"stage.failed  3"}, 0},
		{"could not start", func(r *placementv1beta1.ClusterStagedUpdateRun) {
			r.Status.ResourceSnapshotIndexUsed = ""
			r.Status.Conditions = cond(string(placementv1beta1.StagedUpdateRunConditionInitialized), metav1.ConditionFalse, "strategy not found")
		}, t0, []string{"stage.failed  "}, 0},
		{"succeeded", func(r *placementv1beta1.ClusterStagedUpdateRun) {
			r.Status.Conditions = cond(string(placementv1beta1.StagedUpdateRunConditionSucceeded), metav1.ConditionTrue, "")
		}, t0, []string{"version.completed  3"}, 0},
		{"rollback run succeeded", func(r *placementv1beta1.ClusterStagedUpdateRun) {
			r.Annotations = map[string]string{placementv1beta1.RollbackOfAnnotation: "run-0"}
			r.Status.Conditions = cond(string(placementv1beta1.StagedUpdateRunConditionSucceeded), metav1.ConditionTrue, "")
		}, t0, []string{"rollback.finished  3"}, 0},
		{"stopped", func(r *placementv1beta1.ClusterStagedUpdateRun) {
			r.Spec.State = placementv1beta1.StateStop
			r.Status.StagesStatus = []placementv1beta1.StageUpdatingStatus{{StageName: "canary", StartTime: started}}
		}, t0.Add(5 * time.Hour), nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, recheck := ForUpdateRun(run(tc.mut), tc.now, time.Hour)
			if got := kinds(evs); !slices.Equal(got, tc.want) {
				t.Fatalf("events %q, want %q", got, tc.want)
			}
			if recheck != tc.recheck {
				t.Fatalf("recheck %s, want %s", recheck, tc.recheck)
			}
		})
	}
}
