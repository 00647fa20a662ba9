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

package rollout

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// t0 is the fake clock's origin: Tuesday 2026-03-10 09:00 UTC.
var t0 = time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)

func TestDecideStage(t *testing.T) {
	now := t0.Add(time.Hour)
	provd := now.Add(-10 * time.Minute) // provisioned 10 minutes ago
	auto := func(mod func(*StageTrigger)) StageTrigger {
		tr := StageTrigger{Kind: AutoTrigger}
		if mod != nil {
			mod(&tr)
		}
		return tr
	}
	manual := func(mod func(*StageTrigger)) StageTrigger {
		tr := StageTrigger{Kind: ManualTrigger, AutomaticReset: true}
		if mod != nil {
			mod(&tr)
		}
		return tr
	}
	ready := func(tr StageTrigger) StageGate {
		return StageGate{Stage: "s", Trigger: tr, Provisioned: true, ProvisionedAt: provd,
			PreHealthCheckDeployed: true, PostDelayChecks: ChecksPassing}
	}
	with := func(g StageGate, mod func(*StageGate)) StageGate { mod(&g); return g }
	full := func(tr *StageTrigger) {
		tr.Delay = 5 * time.Minute
		tr.HasPreHealthCheckDeployment = true
		tr.HasPostDelayHealthChecks = true
	}

	for _, tc := range []struct {
		name      string
		gate      StageGate
		action    GateAction
		msg       string
		requeueAt time.Time
		reset     bool
	}{
		{"not provisioned yet", StageGate{Stage: "s", Trigger: auto(nil)},
			Wait, DescProvisioning, time.Time{}, false},
		{"no trigger advances at once", ready(StageTrigger{}),
			Advance, DescSuccessfullyProvisioned, time.Time{}, false},
		{"no trigger on the last stage completes", with(ready(StageTrigger{}), func(g *StageGate) { g.Last = true }),
			Complete, DescSuccessfullyProvisioned, time.Time{}, false},
		{"no trigger, provisioned then unhealthy", with(ready(StageTrigger{}), func(g *StageGate) { g.Provisioned = false }),
			Wait, DescAwaitingChecks, time.Time{}, false},
		{"delay pending", ready(auto(func(tr *StageTrigger) { tr.Delay = time.Hour })),
			Wait, "Delayed: Waiting for Time Window: 2026-03-10T10:50:00Z", provd.Add(time.Hour), false},
		{"delay pending while clusters redeploy", with(ready(auto(func(tr *StageTrigger) { tr.Delay = time.Hour })), func(g *StageGate) { g.Provisioned = false }),
			Wait, "Delayed: Waiting for Time Window: 2026-03-10T10:50:00Z", provd.Add(time.Hour), false},
		{"delay elapsed", ready(auto(func(tr *StageTrigger) { tr.Delay = 10 * time.Minute })),
			Advance, DescSuccessfullyProvisioned, time.Time{}, false},
		{"pre-health-check deployment pending", with(ready(auto(full)), func(g *StageGate) { g.PreHealthCheckDeployed = false }),
			DeployPreHealthCheck, DescPreHealthCheck, time.Time{}, false},
		{"pre-health-check waits for the delay", with(ready(auto(func(tr *StageTrigger) { full(tr); tr.Delay = time.Hour })), func(g *StageGate) { g.PreHealthCheckDeployed = false }),
			Wait, "Delayed: Waiting for Time Window: 2026-03-10T10:50:00Z", provd.Add(time.Hour), false},
		{"post-delay checks not started", with(ready(auto(full)), func(g *StageGate) { g.PostDelayChecks = ChecksNotStarted }),
			RunPostDelayChecks, DescRunningChecks, time.Time{}, false},
		{"post-delay checks wait for pre-health-check", with(ready(auto(full)), func(g *StageGate) { g.PreHealthCheckDeployed, g.PostDelayChecks = false, ChecksNotStarted }),
			DeployPreHealthCheck, DescPreHealthCheck, time.Time{}, false},
		{"post-delay checks failing", with(ready(auto(full)), func(g *StageGate) { g.PostDelayChecks = ChecksFailing }),
			Wait, DescAwaitingChecks, time.Time{}, false},
		{"post-delay checks passing", ready(auto(full)),
			Advance, DescSuccessfullyProvisioned, time.Time{}, false},
		{"checks passing but clusters not provisioned", with(ready(auto(full)), func(g *StageGate) { g.Provisioned = false }),
			Wait, DescAwaitingChecks, time.Time{}, false},
		{"window open", ready(auto(func(tr *StageTrigger) { tr.WindowFrom, tr.WindowTo = "0 9 * * *", "0 17 * * *" })),
			Advance, DescSuccessfullyProvisioned, time.Time{}, false},
		{"window closed", ready(auto(func(tr *StageTrigger) { tr.WindowFrom, tr.WindowTo = "0 20 * * *", "0 22 * * *" })),
			Wait, "Window Closed: Waiting for Next Schedule (2026-03-10T20:00:00Z).", t0.Add(11 * time.Hour), false},
		{"window crossing midnight, closed", ready(auto(func(tr *StageTrigger) { tr.WindowFrom, tr.WindowTo = "0 22 * * *", "0 2 * * *" })),
			Wait, "Window Closed: Waiting for Next Schedule (2026-03-10T22:00:00Z).", t0.Add(13 * time.Hour), false},
		{"window crossing midnight, open", ready(auto(func(tr *StageTrigger) { tr.WindowFrom, tr.WindowTo = "0 8 * * *", "0 2 * * *" })),
			Advance, DescSuccessfullyProvisioned, time.Time{}, false},
		{"window with CRON_TZ, closed", ready(auto(func(tr *StageTrigger) {
			tr.WindowFrom, tr.WindowTo = "CRON_TZ=America/Los_Angeles 0 9 * * *", "CRON_TZ=America/Los_Angeles 0 17 * * *"
		})),
			Wait, "Window Closed: Waiting for Next Schedule (2026-03-10T16:00:00Z).", t0.Add(7 * time.Hour), false},
		{"window with CRON_TZ, open", ready(auto(func(tr *StageTrigger) {
			tr.WindowFrom, tr.WindowTo = "CRON_TZ=Asia/Tokyo 0 18 * * *", "CRON_TZ=Asia/Tokyo 0 20 * * *"
		})),
			Advance, DescSuccessfullyProvisioned, time.Time{}, false},
		{"window waits for the checks", with(ready(auto(func(tr *StageTrigger) { full(tr); tr.WindowFrom, tr.WindowTo = "0 20 * * *", "0 22 * * *" })), func(g *StageGate) { g.PostDelayChecks = ChecksFailing }),
			Wait, DescAwaitingChecks, time.Time{}, false},
		{"manual not approved", ready(manual(nil)),
			Wait, DescAwaitingApproval, time.Time{}, false},
		{"manual approved", ready(manual(func(tr *StageTrigger) { tr.Approved = true })),
			Advance, DescSuccessfullyProvisioned, time.Time{}, true},
		{"manual approved without reset", ready(manual(func(tr *StageTrigger) { tr.Approved, tr.AutomaticReset = true, false })),
			Advance, DescSuccessfullyProvisioned, time.Time{}, false},
		{"manual approved early waits for the delay", ready(manual(func(tr *StageTrigger) { tr.Approved, tr.Delay = true, time.Hour })),
			Wait, "Delayed: Waiting for Time Window: 2026-03-10T10:50:00Z", provd.Add(time.Hour), false},
		{"manual approved waits for the checks", with(ready(manual(func(tr *StageTrigger) { full(tr); tr.Approved = true })), func(g *StageGate) { g.PostDelayChecks = ChecksFailing }),
			Wait, DescAwaitingChecks, time.Time{}, false},
		{"manual approved re-checks provisioning", with(ready(manual(func(tr *StageTrigger) { tr.Approved = true })), func(g *StageGate) { g.Provisioned = false }),
			Wait, DescAwaitingChecks, time.Time{}, false},
		{"manual on the last stage gates completion", with(ready(manual(nil)), func(g *StageGate) { g.Last = true }),
			Wait, DescAwaitingApproval, time.Time{}, false},
		{"manual approved on the last stage completes", with(ready(manual(func(tr *StageTrigger) { tr.Approved = true })), func(g *StageGate) { g.Last = true }),
			Complete, DescSuccessfullyProvisioned, time.Time{}, true},
		{"auto window closed on the last stage", with(ready(auto(func(tr *StageTrigger) { tr.WindowFrom, tr.WindowTo = "0 20 * * *", "0 22 * * *" })), func(g *StageGate) { g.Last = true }),
			Wait, "Window Closed: Waiting for Next Schedule (2026-03-10T20:00:00Z).", t0.Add(11 * time.Hour), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecideStage(tc.gate, now)
			if err != nil {
				t.Fatal(err)
			}
			if got.Action != tc.action || got.Message != tc.msg || !got.RequeueAt.Equal(tc.requeueAt) || got.ResetApproval != tc.reset {
				t.Errorf("got %v %q requeueAt=%s reset=%v\nwant %v %q requeueAt=%s reset=%v",
					got.Action, got.Message, got.RequeueAt, got.ResetApproval, tc.action, tc.msg, tc.requeueAt, tc.reset)
			}
			if want := tc.msg + " (2026-03-10T10:00:00Z)"; got.Description != want {
				t.Errorf("description %q, want %q", got.Description, want)
			}
		})
	}
}

// TestDecideStageRestartsSoak: a soak is an uninterrupted healthy period. A stage that fails
// while it soaks starts the soak again; one that fails after its soak only waits.
func TestDecideStageRestartsSoak(t *testing.T) {
	now := t0.Add(time.Hour)
	gate := func(provisionedAgo time.Duration, provisioned, failing bool) StageGate {
		return StageGate{Stage: "s", Trigger: StageTrigger{Kind: AutoTrigger, Delay: 30 * time.Minute},
			Provisioned: provisioned, Failing: failing, ProvisionedAt: now.Add(-provisionedAgo)}
	}
	for _, tc := range []struct {
		name    string
		gate    StageGate
		action  GateAction
		msg     string
		restart bool
	}{
		{"failing while it soaks", gate(10*time.Minute, false, true), Wait, DescAwaitingChecks, true},
		{"redeploying while it soaks", gate(10*time.Minute, false, false), Wait, "Delayed: Waiting for Time Window: 2026-03-10T10:20:00Z", false},
		{"healthy while it soaks", gate(10*time.Minute, true, false), Wait, "Delayed: Waiting for Time Window: 2026-03-10T10:20:00Z", false},
		{"failing after the soak", gate(time.Hour, false, true), Wait, DescAwaitingChecks, false},
		{"healthy after the soak", gate(time.Hour, true, false), Advance, DescSuccessfullyProvisioned, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecideStage(tc.gate, now)
			if err != nil {
				t.Fatal(err)
			}
			if got.Action != tc.action || got.Message != tc.msg || got.RestartSoak != tc.restart {
				t.Errorf("got %v %q restart=%v, want %v %q restart=%v", got.Action, got.Message, got.RestartSoak, tc.action, tc.msg, tc.restart)
			}
		})
	}
}

func TestDecideStageErrors(t *testing.T) {
	_, err := DecideStage(StageGate{Stage: "prod", Provisioned: true}, t0)
	if err == nil || !strings.Contains(err.Error(), "stage prod") || !strings.Contains(err.Error(), "lastSuccessfulAppliedTime") {
		t.Errorf("provisioned without time: err = %v", err)
	}
	_, err = DecideStage(StageGate{Stage: "prod", Provisioned: true, ProvisionedAt: t0,
		Trigger: StageTrigger{Kind: AutoTrigger, WindowFrom: "0 9 * * *", WindowTo: "61 * * * *"}}, t0)
	if err == nil || !strings.Contains(err.Error(), "stage prod") || !strings.Contains(err.Error(), `promotionWindow.to: invalid cron expression "61 * * * *"`) {
		t.Errorf("bad window: err = %v", err)
	}
}

func TestStampDescription(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 10, 10, 0, 0, 999_000_000, paris)
	if got, want := StampDescription("Successfully provisioned", now), "Successfully provisioned (2026-03-10T09:00:00Z)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := StampDescription("", now); got != "" {
		t.Errorf("empty text stamped: %q", got)
	}
}

func TestStageTriggerFrom(t *testing.T) {
	yes, no := true, false
	check := []libv1beta1.ValidateHealth{{Name: "c"}}
	for _, tc := range []struct {
		name string
		in   *configv1beta1.Trigger
		want StageTrigger
	}{
		{"nil", nil, StageTrigger{}},
		{"empty", &configv1beta1.Trigger{}, StageTrigger{}},
		{"auto", &configv1beta1.Trigger{Auto: &configv1beta1.AutoTrigger{
			Delay:                    &metav1.Duration{Duration: 5 * time.Minute},
			PreHealthCheckDeployment: configv1beta1.NewPolicyRefSet(configv1beta1.PolicyRef{Kind: "ConfigMap", Name: "job"}),
			PostDelayHealthChecks:    check,
			PromotionWindow:          &configv1beta1.TimeWindow{From: "0 9 * * *", To: "0 17 * * *"},
		}}, StageTrigger{Kind: AutoTrigger, Delay: 5 * time.Minute, HasPreHealthCheckDeployment: true,
			HasPostDelayHealthChecks: true, WindowFrom: "0 9 * * *", WindowTo: "0 17 * * *"}},
		{"auto with an empty pre-health-check set", &configv1beta1.Trigger{Auto: &configv1beta1.AutoTrigger{
			PreHealthCheckDeployment: &configv1beta1.PolicyRefSet{},
		}}, StageTrigger{Kind: AutoTrigger}},
		{"manual defaults to automatic reset", &configv1beta1.Trigger{Manual: &configv1beta1.ManualTrigger{Approved: &yes}},
			StageTrigger{Kind: ManualTrigger, Approved: true, AutomaticReset: true}},
		{"manual", &configv1beta1.Trigger{Manual: &configv1beta1.ManualTrigger{
			Delay: &metav1.Duration{Duration: time.Hour}, PostDelayHealthChecks: check, Approved: &no, AutomaticReset: &no,
		}}, StageTrigger{Kind: ManualTrigger, Delay: time.Hour, HasPostDelayHealthChecks: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := StageTriggerFrom(tc.in); got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// simStage is a stage of the simulated promotion, with how the fake fleet reacts to it.
type simStage struct {
	name    string
	trigger StageTrigger
	// provisionFor is how long the stage's clusters take to provision (and to redeploy once
	// the post-delay checks are added); preHealthFor the same for the pre-health-check
	// deployment; checksFailFor how long the post-delay checks fail once added.
	provisionFor, preHealthFor, checksFailFor time.Duration
	// approveAt is when a person approves (manual), relative to the start of the simulation.
	approveAt time.Duration
}

// TestPromotionGolden simulates a three-stage promotion minute by minute with a fake clock
// and a fake fleet, acting as a controller would on every decision, and records each change of
// decision in testdata/promotion/<name>.golden. Run with -update to rewrite the file.
func TestPromotionGolden(t *testing.T) {
	stages := []simStage{
		{name: "dev", provisionFor: 3 * time.Minute, preHealthFor: 2 * time.Minute, checksFailFor: 4 * time.Minute,
			trigger: StageTrigger{Kind: AutoTrigger, Delay: 10 * time.Minute, HasPreHealthCheckDeployment: true, HasPostDelayHealthChecks: true}},
		{name: "staging", provisionFor: 5 * time.Minute, approveAt: 40 * time.Minute,
			trigger: StageTrigger{Kind: ManualTrigger, Delay: 15 * time.Minute, AutomaticReset: true}},
		{name: "prod", provisionFor: 4 * time.Minute, checksFailFor: 2 * time.Minute,
			trigger: StageTrigger{Kind: AutoTrigger, Delay: 5 * time.Minute, HasPostDelayHealthChecks: true,
				WindowFrom: "CRON_TZ=Europe/Paris 0 11 * * 1-5", WindowTo: "CRON_TZ=Europe/Paris 0 12 * * 1-5"}},
	}

	var (
		out                                        strings.Builder
		cur                                        int
		stageStart, provisionedAt, preAt, checksAt time.Time
		approved                                   bool
		last                                       string
	)
	start := t0 // 09:00 UTC = 10:00 Paris; the prod window opens at 10:00 UTC
	stageStart = start
	fmt.Fprintf(&out, "# 3-stage promotion from %s, one reconcile per minute; a line per change of decision\n", start.Format(time.RFC3339))
	for now := start; now.Before(start.Add(4 * time.Hour)); now = now.Add(time.Minute) {
		s := stages[cur]
		if s.approveAt > 0 && !now.Before(start.Add(s.approveAt)) {
			approved = true
		}
		tr := s.trigger
		tr.Approved = tr.Approved || approved
		// The fleet: clusters provision provisionFor after the stage (or its checks) started.
		redeployFrom := stageStart
		if !checksAt.IsZero() {
			redeployFrom = checksAt
		}
		provisioned := !now.Before(redeployFrom.Add(s.provisionFor))
		if provisioned && provisionedAt.IsZero() {
			provisionedAt = now // the caller records lastSuccessfulAppliedTime
		}
		checks := ChecksNotStarted
		if !checksAt.IsZero() {
			checks = ChecksFailing
			if !now.Before(checksAt.Add(s.checksFailFor)) && provisioned {
				checks = ChecksPassing
			}
		}
		g := StageGate{Stage: s.name, Last: cur == len(stages)-1, Trigger: tr, Provisioned: provisioned,
			ProvisionedAt: provisionedAt, PreHealthCheckDeployed: !preAt.IsZero() && !now.Before(preAt.Add(s.preHealthFor)),
			PostDelayChecks: checks}
		d, err := DecideStage(g, now)
		if err != nil {
			t.Fatalf("%s: %v", now.Format(time.Kitchen), err)
		}
		line := fmt.Sprintf("%-8s %-20s %s", s.name, d.Action, d.Message)
		if !d.RequeueAt.IsZero() {
			line += " | requeue at " + d.RequeueAt.UTC().Format("15:04")
		}
		if d.ResetApproval {
			line += " | reset approval"
		}
		if line != last {
			fmt.Fprintf(&out, "%s %s\n", now.Format("15:04"), line)
			last = line
		}
		switch d.Action {
		case DeployPreHealthCheck:
			if preAt.IsZero() {
				preAt = now
			}
		case RunPostDelayChecks:
			checksAt = now
		case Advance:
			cur++
			stageStart, provisionedAt, preAt, checksAt, approved = now, time.Time{}, time.Time{}, time.Time{}, false
		case Complete:
			fmt.Fprintf(&out, "%s promotion complete\n", now.Format("15:04"))
			compareGolden(t, "three-stages", out.String())
			return
		}
	}
	t.Fatalf("promotion did not complete:\n%s", out.String())
}

func compareGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "promotion", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("%s differs (run with -update to accept):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
