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
	"bytes"
	"encoding/hex"
	"errors"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/metrics"
)

const (
	condReady       = configv1beta1.PromotionReadyCondition
	condProgressing = configv1beta1.PromotionProgressingCondition
	condStalled     = configv1beta1.PromotionStalledCondition
	condSuspended   = configv1beta1.PromotionSuspendedCondition

	condFalse = metav1.ConditionFalse
	condTrue  = metav1.ConditionTrue
)

func TestValidatePhase(t *testing.T) {
	negative := intstr.FromInt32(-1)
	for _, tc := range []struct {
		name    string
		edit    func(*configv1beta1.ClusterPromotion)
		halt    bool
		words   string
		already bool // Stalled says so already
	}{
		{name: "valid", edit: func(*configv1beta1.ClusterPromotion) {}},
		{name: "negative maxFailures", edit: func(p *configv1beta1.ClusterPromotion) { p.Spec.Stages[1].MaxFailures = &negative },
			halt: true, words: "spec.stages[1].maxFailures -1 is negative"},
		{name: "bad deny window", edit: func(p *configv1beta1.ClusterPromotion) {
			p.Spec.DenyWindows = []configv1beta1.TimeWindow{{From: "often", To: "0 0 * * *"}}
		}, halt: true, words: "spec.denyWindows"},
		{name: "still invalid", edit: func(p *configv1beta1.ClusterPromotion) { p.Spec.Stages[1].MaxFailures = &negative },
			halt: true, words: "spec.stages[1].maxFailures -1 is negative", already: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			p := promotion(stage("dev", nil), stage("prod", nil))
			tc.edit(p)
			if tc.already {
				withCondition(p, condStalled, condTrue, reasonInvalidSpec, invalid(p), t0.Add(-time.Hour))
			}
			ps := f.r.newPass(p)
			err := f.run(t, ps, f.r.validatePhase)
			f.r.summarise(ps)
			if !tc.halt {
				if err != nil || ps.invalid != "" || len(p.Status.Conditions) != 0 {
					t.Fatalf("got %v, %q, %v", err, ps.invalid, p.Status.Conditions)
				}
				return
			}
			if !errors.Is(err, errHalt) {
				t.Fatalf("got %v, want the pass halted", err)
			}
			checkCondition(t, p, condStalled, want{condTrue, reasonInvalidSpec, tc.words})
			checkCondition(t, p, condReady, want{condFalse, reasonInvalidSpec, tc.words})
			checkCondition(t, p, condProgressing, want{})
			if tc.already {
				checkEvents(t, f.emitted())
			} else {
				checkEvents(t, f.emitted(), "Warning InvalidSpec "+tc.words)
			}
		})
	}
}

func TestVersionPhase(t *testing.T) {
	for _, tc := range []struct {
		name        string
		promotion   func() *configv1beta1.ClusterPromotion
		halt        bool
		started     bool
		idx         int
		requeue     time.Duration
		ready, prog want
		events      []string
		check       func(*testing.T, *configv1beta1.ClusterPromotion)
	}{{
		name: "first version",
		promotion: func() *configv1beta1.ClusterPromotion {
			return promotion(stage("dev", nil), stage("prod", manual(true)))
		},
		started: true,
		ready:   want{condFalse, reasonRolloutStarted, "starting with stage dev"},
		prog:    want{condTrue, reasonRolloutStarted, "starting with stage dev"},
		events:  []string{"Normal RolloutStarted rolling out profile spec"},
		check: func(t *testing.T, p *configv1beta1.ClusterPromotion) {
			if p.Status.CurrentStageName != "dev" || len(p.Status.Stages) != 1 || !p.Status.Stages[0].LastUpdateReconciledTime.Time.Equal(t0) {
				t.Errorf("status: %+v", p.Status)
			}
			// The approval was given before this version: it does not count for it.
			if len(p.Status.ConsumedApprovals) != 1 || p.Status.ConsumedApprovals[0] != "prod" {
				t.Errorf("consumed approvals: %v", p.Status.ConsumedApprovals)
			}
		},
	}, {
		name: "same version",
		promotion: func() *configv1beta1.ClusterPromotion {
			return at(promotion(stage("dev", nil), stage("prod", nil)), "prod", t0.Add(-time.Minute))
		},
		idx: 1,
	}, {
		name: "new profile spec after the last one completed",
		promotion: func() *configv1beta1.ClusterPromotion {
			p := at(promotion(stage("dev", nil), stage("prod", nil)), "prod", t0.Add(-time.Hour))
			withCondition(p, condProgressing, condFalse, configv1beta1.PromotionPromotedReason, promotedWords, t0.Add(-time.Hour))
			p.Spec.ProfileSpec.Tier = 50
			return p
		},
		started: true,
		ready:   want{condFalse, reasonRolloutStarted, "starting with stage dev"},
		prog:    want{condTrue, reasonRolloutStarted, "starting with stage dev"},
		events:  []string{"Normal RolloutStarted"},
		check: func(t *testing.T, p *configv1beta1.ClusterPromotion) {
			if p.Status.CurrentStageName != "dev" || len(p.Status.Stages) != 1 {
				t.Errorf("status: %+v", p.Status)
			}
		},
	}, {
		name: "a deny window holds a new version back",
		promotion: func() *configv1beta1.ClusterPromotion {
			p := at(promotion(stage("dev", nil), stage("prod", nil)), "prod", t0.Add(-time.Hour))
			p.Spec.DenyWindows = []configv1beta1.TimeWindow{{From: "0 9 * * *", To: "0 11 * * *"}}
			p.Spec.ProfileSpec.Tier = 50
			return p
		},
		halt:    true,
		idx:     1,
		requeue: time.Hour,
		ready:   want{condFalse, reasonFrozen, `waits to start: deny window 0 (from "0 9 * * *" to "0 11 * * *") is open, until 2026-03-02T11:00:00Z`},
		prog:    want{condTrue, reasonFrozen, "waits to start"},
		events:  []string{"Normal Frozen profile spec"},
		check: func(t *testing.T, p *configv1beta1.ClusterPromotion) {
			if p.Status.CurrentStageName != "prod" || p.Status.BlockingWindow == nil || !p.Status.NextPromotionTime.Time.Equal(t0.Add(time.Hour)) {
				t.Errorf("status: %+v", p.Status)
			}
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			p := tc.promotion()
			ps := f.r.newPass(p)
			err := f.run(t, ps, f.r.contentPhase, f.r.versionPhase, f.r.retirePhase)
			f.r.summarise(ps)
			if got := errors.Is(err, errHalt); got != tc.halt || (err != nil && !got) {
				t.Fatalf("got %v, want halted %v", err, tc.halt)
			}
			if ps.started != tc.started || ps.idx != tc.idx || ps.requeue != tc.requeue {
				t.Errorf("started %v, stage %d, requeue %v; want %v, %d, %v", ps.started, ps.idx, ps.requeue, tc.started, tc.idx, tc.requeue)
			}
			if tc.started && (ps.completed || !bytes.Equal(p.Status.ProfileSpecHash, ps.profileHash)) {
				t.Errorf("completed %v, hash %x, want %x", ps.completed, p.Status.ProfileSpecHash, ps.profileHash)
			}
			checkCondition(t, p, condReady, tc.ready)
			checkCondition(t, p, condProgressing, tc.prog)
			checkEvents(t, f.emitted(), tc.events...)
			if tc.check != nil {
				tc.check(t, p)
			}
		})
	}
}

func TestSuspendPhase(t *testing.T) {
	const suspendedWords = "suspended at stage dev since "
	for _, tc := range []struct {
		name                   string
		suspend                bool
		before                 func(*configv1beta1.ClusterPromotion)
		halt                   bool
		suspended, ready, prog want
		events                 []string
		check                  func(*testing.T, *configv1beta1.ClusterPromotion, *configv1beta1.ClusterProfile)
	}{{
		name: "suspend", suspend: true, halt: true,
		suspended: want{condTrue, reasonSuspended, suspendedWords + "2026-03-02T10:00:00Z"},
		ready:     want{condFalse, reasonSuspended, suspendedWords},
		prog:      want{condFalse, reasonSuspended, suspendedWords},
		events:    []string{`Normal Suspended suspended at stage "dev"`},
		check: func(t *testing.T, p *configv1beta1.ClusterPromotion, profile *configv1beta1.ClusterProfile) {
			if profile.Annotations[configv1beta1.HoldRolloutAnnotation] != "suspended" {
				t.Errorf("the profile's rollout is not held: %v", profile.Annotations)
			}
			if c := condition(p, condSuspended); !c.LastTransitionTime.Time.Equal(t0) {
				t.Errorf("suspended at %v", c.LastTransitionTime)
			}
			if !p.Status.Stages[0].LastStatusCheckTime.Time.Equal(t0) {
				t.Errorf("last checked %v", p.Status.Stages[0].LastStatusCheckTime)
			}
		},
	}, {
		name: "still suspended", suspend: true, halt: true,
		before: func(p *configv1beta1.ClusterPromotion) {
			withCondition(p, condSuspended, condTrue, reasonSuspended, "", t0.Add(-time.Hour))
		},
		suspended: want{condTrue, reasonSuspended, suspendedWords + "2026-03-02T09:00:00Z"},
		ready:     want{condFalse, reasonSuspended, suspendedWords + "2026-03-02T09:00:00Z"},
		prog:      want{condFalse, reasonSuspended, suspendedWords},
	}, {
		name: "a completed version stays completed", suspend: true, halt: true,
		before: func(p *configv1beta1.ClusterPromotion) {
			withCondition(p, condProgressing, condFalse, configv1beta1.PromotionPromotedReason, promotedWords, t0.Add(-time.Hour))
		},
		suspended: want{condTrue, reasonSuspended, suspendedWords},
		ready:     want{condFalse, reasonSuspended, suspendedWords},
		prog:      want{condFalse, configv1beta1.PromotionPromotedReason, promotedWords},
		events:    []string{"Normal Suspended"},
	}, {
		name: "resume",
		before: func(p *configv1beta1.ClusterPromotion) {
			withCondition(p, condSuspended, condTrue, reasonSuspended, "", t0.Add(-time.Hour))
			soaked, deadline := metav1.NewTime(t0.Add(-90*time.Minute)), metav1.NewTime(t0.Add(30*time.Minute))
			p.Status.Stages[0].LastSuccessfulAppliedTime, p.Status.Stages[0].ProgressDeadlineTime = &soaked, &deadline
		},
		suspended: want{condFalse, reasonResumed, "resumed after 1h0m0s suspended"},
		events:    []string{"Normal Resumed resumed after 1h0m0s suspended"},
		check: func(t *testing.T, p *configv1beta1.ClusterPromotion, profile *configv1beta1.ClusterProfile) {
			// The hour suspended does not count: the soak and the deadline move on by as much.
			st := p.Status.Stages[0]
			if !st.LastSuccessfulAppliedTime.Time.Equal(t0.Add(-30*time.Minute)) || !st.ProgressDeadlineTime.Time.Equal(t0.Add(90*time.Minute)) {
				t.Errorf("soaked since %v, deadline %v", st.LastSuccessfulAppliedTime, st.ProgressDeadlineTime)
			}
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			profile := &configv1beta1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Name: "web-dev",
				Labels: map[string]string{configv1beta1.PromotionNameLabel: "web"}}}
			f := newFixture(t, profile)
			p := at(promotion(stage("dev", nil), stage("prod", nil)), "dev", t0.Add(-2*time.Hour))
			p.Spec.Suspend = tc.suspend
			if tc.before != nil {
				tc.before(p)
			}
			ps := f.r.newPass(p)
			err := f.run(t, ps, f.r.suspendPhase)
			f.r.summarise(ps)
			if got := errors.Is(err, errHalt); got != tc.halt || (err != nil && !got) {
				t.Fatalf("got %v, want halted %v", err, tc.halt)
			}
			checkCondition(t, p, condSuspended, tc.suspended)
			checkCondition(t, p, condReady, tc.ready)
			checkCondition(t, p, condProgressing, tc.prog)
			checkEvents(t, f.emitted(), tc.events...)
			if tc.check != nil {
				if err := f.c.Get(t.Context(), client.ObjectKey{Name: "web-dev"}, profile); err != nil {
					t.Fatal(err)
				}
				tc.check(t, p, profile)
			}
		})
	}
}

// gateCase is a stage whose clusters stand as state says, and what its gate leads to.
type gateCase struct {
	name      string
	promotion func() *configv1beta1.ClusterPromotion
	state     stageState
	halt      bool
	requeue   time.Duration
	outcome   outcome
	ready     want
	prog      want
	stalled   want
	events    []string
	check     func(*testing.T, *configv1beta1.ClusterPromotion)
}

// done is a stage whose clusters are all provisioned.
var done = stageState{done: true, clusters: metrics.NoClusters()}

func TestGateAndAct(t *testing.T) {
	soaked := func(p *configv1beta1.ClusterPromotion, since time.Duration) *configv1beta1.ClusterPromotion {
		at := metav1.NewTime(t0.Add(-since))
		stageStatus(p, p.Status.CurrentStageName).LastSuccessfulAppliedTime = &at
		return p
	}
	for _, tc := range []gateCase{{
		name: "a soak that has not ended requeues for its end",
		promotion: func() *configv1beta1.ClusterPromotion {
			return soaked(at(promotion(stage("dev", soakFor(time.Hour)), stage("prod", nil)), "dev", t0.Add(-time.Hour)), 20*time.Minute)
		},
		state: done, requeue: 40 * time.Minute, outcome: waiting,
		ready:  want{condFalse, configv1beta1.PromotionWaitingReason, "stage dev: Delayed: Waiting for Time Window: 2026-03-02T10:40:00Z"},
		prog:   want{condTrue, configv1beta1.PromotionWaitingReason, "stage dev: Delayed"},
		events: []string{"Normal Waiting stage dev: Delayed"},
	}, {
		name: "a stage provisioned now starts its soak",
		promotion: func() *configv1beta1.ClusterPromotion {
			return at(promotion(stage("dev", soakFor(time.Hour)), stage("prod", nil)), "dev", t0.Add(-time.Minute))
		},
		state: done, requeue: time.Hour, outcome: waiting,
		ready:  want{condFalse, configv1beta1.PromotionWaitingReason, "stage dev: Delayed"},
		prog:   want{condTrue, configv1beta1.PromotionWaitingReason, "stage dev: Delayed"},
		events: []string{"Normal Waiting"},
		check: func(t *testing.T, p *configv1beta1.ClusterPromotion) {
			if st := p.Status.Stages[0]; !st.LastSuccessfulAppliedTime.Time.Equal(t0) {
				t.Errorf("provisioned at %v", st.LastSuccessfulAppliedTime)
			}
		},
	}, {
		name: "provisioning waits for the clusters",
		promotion: func() *configv1beta1.ClusterPromotion {
			return at(promotion(stage("dev", nil), stage("prod", nil)), "dev", t0.Add(-time.Minute))
		},
		state: stageState{waitingOn: "Cluster dev/dev has no ClusterSummary yet."}, outcome: waiting,
		ready:  want{condFalse, configv1beta1.PromotionWaitingReason, "stage dev: Clusters are being provisioned"},
		prog:   want{condTrue, configv1beta1.PromotionWaitingReason, "stage dev"},
		events: []string{"Normal Waiting"},
		check: func(t *testing.T, p *configv1beta1.ClusterPromotion) {
			if m := p.Status.Stages[0].FailureMessage; m == nil || *m != "Cluster dev/dev has no ClusterSummary yet." {
				t.Errorf("failure message %v", m)
			}
		},
	}, {
		name: "a progress deadline wakes a stage that waits",
		promotion: func() *configv1beta1.ClusterPromotion {
			p := at(promotion(stage("dev", nil), stage("prod", nil)), "dev", t0.Add(-5*time.Minute))
			p.Spec.Stages[0].ProgressDeadline = &metav1.Duration{Duration: 10 * time.Minute}
			return p
		},
		state: stageState{waitingOn: "Cluster dev/dev has no ClusterSummary yet."}, requeue: 5 * time.Minute, outcome: waiting,
		ready:  want{condFalse, configv1beta1.PromotionWaitingReason, "stage dev"},
		prog:   want{condTrue, configv1beta1.PromotionWaitingReason, "stage dev"},
		events: []string{"Normal Waiting"},
	}, {
		name: "awaiting approval",
		promotion: func() *configv1beta1.ClusterPromotion {
			return soaked(at(promotion(stage("dev", manual(false)), stage("prod", nil)), "dev", t0.Add(-time.Hour)), time.Minute)
		},
		state: done, outcome: waiting,
		ready:  want{condFalse, reasonAwaitingApproval, "stage dev: Paused: Awaiting Manual Approval"},
		prog:   want{condTrue, configv1beta1.PromotionWaitingReason, "Awaiting Manual Approval"},
		events: []string{"Normal AwaitingApproval"},
	}, {
		name: "a blocked stage warns once, and Ready says why",
		promotion: func() *configv1beta1.ClusterPromotion {
			return at(promotion(stage("dev", nil), stage("prod", nil)), "dev", t0.Add(-time.Minute))
		},
		state: stageState{waitingOn: "Cluster dev/dev is unreachable.", blocked: true}, outcome: waiting,
		ready:  want{condFalse, reasonStageBlocked, "stage dev: Clusters are being provisioned: Cluster dev/dev is unreachable."},
		prog:   want{condTrue, configv1beta1.PromotionWaitingReason, "unreachable"},
		events: []string{"Warning StageBlocked stage dev: Cluster dev/dev is unreachable."},
	}, {
		name: "a deployment failed for good stalls the promotion",
		promotion: func() *configv1beta1.ClusterPromotion {
			return at(promotion(stage("dev", nil), stage("prod", nil)), "dev", t0.Add(-time.Minute))
		},
		state:   stageState{waitingOn: "Cluster dev/dev, boom", blocked: true, failed: "ClusterSummary web-dev-dev: boom"},
		outcome: waiting,
		ready:   want{condFalse, reasonStageBlocked, "boom"},
		prog:    want{condTrue, configv1beta1.PromotionWaitingReason, "boom"},
		stalled: want{condTrue, reasonDeploymentFailed, "ClusterSummary web-dev-dev: boom"},
		events:  []string{"Warning StageBlocked", "Warning DeploymentFailed ClusterSummary web-dev-dev: boom"},
	}, {
		name: "a stall ends once nothing fails",
		promotion: func() *configv1beta1.ClusterPromotion {
			p := at(promotion(stage("dev", nil), stage("prod", nil)), "dev", t0.Add(-time.Minute))
			return withCondition(p, condStalled, condTrue, reasonDeploymentFailed, "boom", t0.Add(-time.Minute))
		},
		state: done, requeue: time.Millisecond, outcome: advanced,
		prog:    want{condTrue, reasonStagePromoted, "promoted to stage prod"},
		stalled: want{condFalse, "Progressing", "nothing blocks the rollout"},
		events:  []string{"Normal StagePromoted stage dev is done; promoting to stage prod"},
		check: func(t *testing.T, p *configv1beta1.ClusterPromotion) {
			if p.Status.CurrentStageName != "prod" || len(p.Status.Stages) != 2 || !p.Status.Stages[1].LastUpdateReconciledTime.Time.Equal(t0) {
				t.Errorf("status: %+v", p.Status)
			}
		},
	}, {
		name: "the last stage completes the version",
		promotion: func() *configv1beta1.ClusterPromotion {
			return at(promotion(stage("dev", nil), stage("prod", nil)), "prod", t0.Add(-time.Minute))
		},
		state: done, outcome: promoted,
		ready:  want{condTrue, configv1beta1.PromotionPromotedReason, promotedWords},
		prog:   want{condFalse, configv1beta1.PromotionPromotedReason, promotedWords},
		events: []string{"Normal Promoted every stage is deployed"},
		check: func(t *testing.T, p *configv1beta1.ClusterPromotion) {
			if lkg := p.Status.LastKnownGood; lkg == nil || !bytes.Equal(lkg.ProfileSpecHash, p.Status.ProfileSpecHash) || !lkg.Time.Time.Equal(t0) {
				t.Errorf("last known good: %+v", lkg)
			}
		},
	}, {
		name: "an approval used on the way out is reset by the next pass",
		promotion: func() *configv1beta1.ClusterPromotion {
			return soaked(at(promotion(stage("dev", nil), stage("prod", manual(true))), "prod", t0.Add(-time.Hour)), time.Minute)
		},
		state: done, requeue: time.Millisecond, outcome: promoted,
		ready:  want{condTrue, configv1beta1.PromotionPromotedReason, promotedWords},
		prog:   want{condFalse, configv1beta1.PromotionPromotedReason, promotedWords},
		events: []string{"Normal Promoted"},
		check: func(t *testing.T, p *configv1beta1.ClusterPromotion) {
			if len(p.Status.ConsumedApprovals) != 1 || p.Status.ConsumedApprovals[0] != "prod" {
				t.Errorf("consumed approvals: %v", p.Status.ConsumedApprovals)
			}
		},
	}, {
		name: "a promotion window that cannot be read stalls the promotion",
		promotion: func() *configv1beta1.ClusterPromotion {
			p := soaked(at(promotion(stage("dev", soakFor(time.Minute)), stage("prod", nil)), "dev", t0.Add(-time.Hour)), time.Hour)
			p.Spec.Stages[0].Trigger.Auto.PromotionWindow = &configv1beta1.TimeWindow{From: "often", To: "0 0 * * *"}
			return p
		},
		state: done, halt: true,
		ready:   want{condFalse, reasonInvalidWindow, "stage dev"},
		prog:    want{condFalse, reasonInvalidWindow, "stage dev"},
		stalled: want{condTrue, reasonInvalidWindow, "stage dev"},
		events:  []string{"Warning InvalidPromotionWindow stage dev"},
	}} {
		t.Run(tc.name, func(t *testing.T) { runGate(t, tc) })
	}
}

// runGate runs the phases from the stage under way to the gate's action, the stage's clusters
// standing as tc.state says.
func runGate(t *testing.T, tc gateCase) {
	t.Helper()
	f := newFixture(t)
	p := tc.promotion()
	ps := f.r.newPass(p)
	ps.profile, ps.state = &configv1beta1.ClusterProfile{}, tc.state
	err := f.run(t, ps, f.r.contentPhase, f.r.versionPhase, f.r.stagePhase, f.r.budgetPhase, f.r.gatePhase, f.r.actPhase)
	f.r.summarise(ps)
	if got := errors.Is(err, errHalt); got != tc.halt || (err != nil && !got) {
		t.Fatalf("got %v, want halted %v", err, tc.halt)
	}
	if ps.started || ps.requeue != tc.requeue || ps.outcome != tc.outcome {
		t.Errorf("started %v, requeue %v, outcome %d; want false, %v, %d", ps.started, ps.requeue, ps.outcome, tc.requeue, tc.outcome)
	}
	checkCondition(t, p, condReady, tc.ready)
	checkCondition(t, p, condProgressing, tc.prog)
	checkCondition(t, p, condStalled, tc.stalled)
	checkEvents(t, f.emitted(), tc.events...)
	if tc.check != nil {
		tc.check(t, p)
	}
}

func TestBudgetPhase(t *testing.T) {
	zero := intstr.FromInt32(0)
	failing := stageState{waitingOn: "Cluster prod/prod, boom", blocked: true, regressed: true, failing: []string{"prod/prod: boom"},
		clusters: map[string]int{metrics.ClusterFailed: 1}}
	budgeted := func(onFailure string, lkg bool) func() *configv1beta1.ClusterPromotion {
		return func() *configv1beta1.ClusterPromotion {
			p := at(promotion(stage("dev", nil), stage("prod", nil)), "prod", t0.Add(-time.Minute))
			p.Spec.Stages[1].MaxFailures, p.Spec.OnFailure = &zero, onFailure
			if lkg {
				p.Status.LastKnownGood = &configv1beta1.KnownGoodVersion{ProfileSpecHash: []byte("earlier version")}
			}
			return p
		}
	}
	const failed = "stage prod failed: 1 cluster fails, more than maxFailures allows (0): prod/prod: boom"
	for _, tc := range []gateCase{{
		name: "failing beyond the budget stops the version", promotion: budgeted(configv1beta1.OnFailureStop, true),
		state: failing, halt: true,
		ready:   want{condFalse, reasonStageFailed, failed + "; the promotion stops until a new version starts"},
		prog:    want{condFalse, reasonStageFailed, failed},
		stalled: want{condTrue, reasonStageFailed, failed},
		events:  []string{"Warning StageFailed " + failed},
		check: func(t *testing.T, p *configv1beta1.ClusterPromotion) {
			if p.FailedVersion() == nil || p.Status.Rollback != nil || *p.Status.Stages[1].FailureMessage != p.FailedVersion().Message {
				t.Errorf("failure %+v, rollback %+v", p.Status.Failure, p.Status.Rollback)
			}
		},
	}, {
		name: "onFailure Rollback plans the way back", promotion: budgeted(configv1beta1.OnFailureRollback, true),
		state: failing, halt: true, requeue: time.Millisecond,
		events: []string{"Warning StageFailed " + failed + "; rolling back"},
		check: func(t *testing.T, p *configv1beta1.ClusterPromotion) {
			rb := p.Status.Rollback
			if p.FailedVersion() == nil || rb == nil || string(rb.ToProfileSpecHash) != "earlier version" ||
				len(rb.Stages) != 2 || rb.Stages[0] != "prod" || rb.Stages[1] != "dev" {
				t.Errorf("failure %+v, rollback %+v", p.Status.Failure, rb)
			}
		},
	}, {
		name: "onFailure Rollback with nothing to go back to stops", promotion: budgeted(configv1beta1.OnFailureRollback, false),
		state: failing, halt: true,
		ready:   want{condFalse, reasonStageFailed, "there is nothing to roll back to; the promotion stops"},
		prog:    want{condFalse, reasonStageFailed, failed},
		stalled: want{condTrue, reasonStageFailed, failed},
		events:  []string{"Warning StageFailed"},
	}, {
		name: "a missed progress deadline fails the stage",
		promotion: func() *configv1beta1.ClusterPromotion {
			p := at(promotion(stage("dev", nil), stage("prod", nil)), "prod", t0.Add(-11*time.Minute))
			p.Spec.Stages[1].ProgressDeadline = &metav1.Duration{Duration: 10 * time.Minute}
			return p
		},
		state: stageState{waitingOn: "Cluster prod/prod has no ClusterSummary yet."}, halt: true,
		ready:   want{condFalse, reasonStageFailed, "stage prod failed: the stage was not deployed and healthy by its progressDeadline (2026-03-02T09:59:00Z)"},
		prog:    want{condFalse, reasonStageFailed, "progressDeadline"},
		stalled: want{condTrue, reasonStageFailed, "progressDeadline"},
		events:  []string{"Warning StageFailed"},
	}, {
		name: "a completed version no longer fails",
		promotion: func() *configv1beta1.ClusterPromotion {
			p := budgeted(configv1beta1.OnFailureStop, true)()
			return withCondition(p, condProgressing, condFalse, configv1beta1.PromotionPromotedReason, promotedWords, t0.Add(-time.Minute))
		},
		state: failing, outcome: waiting,
		ready:  want{condFalse, reasonStageBlocked, "boom"},
		prog:   want{condFalse, configv1beta1.PromotionPromotedReason, promotedWords},
		events: []string{"Warning StageBlocked"},
	}} {
		t.Run(tc.name, func(t *testing.T) { runGate(t, tc) })
	}
}

func TestFailurePhase(t *testing.T) {
	failedAtDev := func(rb *configv1beta1.RollbackStatus, requested bool) func() *configv1beta1.ClusterPromotion {
		return func() *configv1beta1.ClusterPromotion {
			p := at(promotion(stage("dev", nil), stage("prod", nil)), "dev", t0.Add(-time.Hour))
			p.Status.Failure = &configv1beta1.PromotionFailure{Stage: "dev", ProfileSpecHash: p.Status.ProfileSpecHash, Message: "boom", Requested: requested}
			p.Status.LastKnownGood = &configv1beta1.KnownGoodVersion{ProfileSpecHash: []byte{0xca, 0xfe, 0xf0, 0x0d, 1}}
			if rb != nil {
				rb.ToProfileSpecHash = p.Status.LastKnownGood.ProfileSpecHash
			}
			p.Status.Rollback = rb
			return p
		}
	}
	for _, tc := range []gateCase{{
		name: "a failed version stays where it stopped", promotion: failedAtDev(nil, false), halt: true,
		ready:   want{condFalse, reasonStageFailed, "stage dev failed: boom; the promotion stops until a new version starts"},
		prog:    want{condFalse, reasonStageFailed, "stage dev failed: boom"},
		stalled: want{condTrue, reasonStageFailed, "stage dev failed: boom"},
		events:  []string{"Warning StageFailed stage dev failed: boom"},
	}, {
		name: "a stage being rolled back waits for its clusters", promotion: failedAtDev(&configv1beta1.RollbackStatus{Stages: []string{"dev"}}, false),
		halt: true, requeue: 5 * time.Second,
		ready:  want{condFalse, reasonRollingBack, "stage dev failed: boom; rolling back stage dev to version cafef00d: ClusterProfile web-dev is not reconciled yet."},
		prog:   want{condTrue, reasonRollingBack, "rolling back stage dev"},
		events: []string{"Warning RollingBack"},
	}, {
		name: "a stage gone from the spec is passed over", promotion: failedAtDev(&configv1beta1.RollbackStatus{Stages: []string{"qa", "dev"}}, false),
		halt: true, requeue: time.Millisecond,
		check: func(t *testing.T, p *configv1beta1.ClusterPromotion) {
			if p.Status.Rollback.Done != 1 {
				t.Errorf("rollback: %+v", p.Status.Rollback)
			}
		},
	}, {
		name: "every stage rolled back", promotion: failedAtDev(&configv1beta1.RollbackStatus{Stages: []string{"dev"}, Done: 1}, true), halt: true,
		ready:   want{condFalse, configv1beta1.PromotionRolledBackReason, "rollback requested at stage dev; rolled back stages dev to version cafef00d; the promotion stops"},
		prog:    want{condFalse, configv1beta1.PromotionRolledBackReason, "rolled back stages dev"},
		stalled: want{condTrue, configv1beta1.PromotionRolledBackReason, "rolled back stages dev"},
		events:  []string{"Warning RolledBack rollback requested at stage dev", "Warning RolledBack rollback requested"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			dev := &libv1beta1.SveltosCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "dev", Name: "dev", Labels: map[string]string{"env": "dev"}}}
			f := newFixture(t, dev)
			p := tc.promotion()
			ps := f.r.newPass(p)
			err := f.run(t, ps, f.r.contentPhase, f.r.versionPhase, f.r.stagePhase, f.r.failurePhase)
			f.r.summarise(ps)
			if got := errors.Is(err, errHalt); got != tc.halt || (err != nil && !got) {
				t.Fatalf("got %v, want halted %v", err, tc.halt)
			}
			if ps.requeue != tc.requeue {
				t.Errorf("requeue %v, want %v", ps.requeue, tc.requeue)
			}
			checkCondition(t, p, condReady, tc.ready)
			checkCondition(t, p, condProgressing, tc.prog)
			checkCondition(t, p, condStalled, tc.stalled)
			checkEvents(t, f.emitted(), tc.events...)
			if tc.check != nil {
				tc.check(t, p)
			}
		})
	}
}

func TestRollbackRequest(t *testing.T) {
	for _, tc := range []struct {
		name   string
		lkg    bool
		events []string
		stages []string
	}{
		{name: "rolls back from the stage under way", lkg: true, stages: []string{"prod", "dev"},
			events: []string{"Normal RollbackRequested rollback requested at stage prod: rolling back stages prod, dev"}},
		{name: "refused without a version to go back to",
			events: []string{"Warning RollbackRefused a rollback was requested"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			p := at(promotion(stage("dev", nil), stage("prod", nil)), "prod", t0.Add(-time.Hour))
			p.Annotations = map[string]string{configv1beta1.RollbackAnnotation: hex.EncodeToString(p.Status.ProfileSpecHash)}
			if tc.lkg {
				p.Status.LastKnownGood = &configv1beta1.KnownGoodVersion{ProfileSpecHash: []byte("earlier version")}
			}
			ps := f.r.newPass(p)
			if err := f.run(t, ps, f.r.contentPhase, f.r.versionPhase, f.r.stagePhase); err != nil {
				t.Fatal(err)
			}
			checkEvents(t, f.emitted(), tc.events...)
			if !tc.lkg {
				if p.Status.Failure != nil || p.Status.Rollback != nil {
					t.Errorf("failure %+v, rollback %+v", p.Status.Failure, p.Status.Rollback)
				}
				return
			}
			if f := p.FailedVersion(); f == nil || !f.Requested || f.Stage != "prod" || p.Status.Rollback == nil {
				t.Fatalf("failure %+v, rollback %+v", p.Status.Failure, p.Status.Rollback)
			}
			if got := p.Status.Rollback.Stages; len(got) != len(tc.stages) || got[0] != tc.stages[0] || got[1] != tc.stages[1] {
				t.Errorf("rollback stages %v, want %v", got, tc.stages)
			}
		})
	}
}

// TestContentPhaseTenantNotActedAs: a tenant's promotion the controller cannot act as (here, with
// no connection to impersonate with) says why on Ready and is tried again on a timer, rather than
// failing the reconcile with nothing on the promotion.
func TestContentPhaseTenantNotActedAs(t *testing.T) {
	f := newFixture(t)
	p := promotion(stage("dev", nil))
	p.Labels = map[string]string{configv1beta1.ServiceAccountNameLabel: "deployer", configv1beta1.ServiceAccountNamespaceLabel: "team-a"}
	ps := f.r.newPass(p)
	err := f.run(t, ps, f.r.contentPhase)
	f.r.summarise(ps)
	if !errors.Is(err, errHalt) || ps.requeue != 2*time.Second {
		t.Fatalf("got %v, requeue %v; want halted and retried in 2s", err, ps.requeue)
	}
	checkCondition(t, p, condReady, want{condFalse, reasonError, "no connection to the management cluster to act as a tenant"})
}
