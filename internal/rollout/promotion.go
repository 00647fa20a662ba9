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
	"fmt"
	"time"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
)

// TriggerKind is the kind of condition guarding the exit of a ClusterPromotion stage.
type TriggerKind int

const (
	// NoTrigger means the rollout moves on as soon as the stage is provisioned.
	NoTrigger TriggerKind = iota
	// AutoTrigger means delay, pre-health-check deployment, post-delay checks, then promotion window.
	AutoTrigger
	// ManualTrigger means delay, pre-health-check deployment, post-delay checks, then approval.
	ManualTrigger
)

// StageTrigger is a stage's trigger reduced to what the gate needs.
type StageTrigger struct {
	Kind TriggerKind
	// Delay is the soak time, counted from the moment the stage became provisioned.
	Delay time.Duration
	// HasPreHealthCheckDeployment is set when the trigger lists a preHealthCheckDeployment.
	HasPreHealthCheckDeployment bool
	// HasPostDelayHealthChecks is set when the trigger lists postDelayHealthChecks.
	HasPostDelayHealthChecks bool
	// WindowFrom and WindowTo are the promotion window's cron expressions (auto only); both
	// empty means no window.
	WindowFrom, WindowTo string
	// Approved is the manual approval.
	Approved bool
	// AutomaticReset clears Approved once the rollout moves on (manual only).
	AutomaticReset bool
}

// StageTriggerFrom converts an API trigger. A nil trigger, or one with neither auto nor manual,
// is NoTrigger.
func StageTriggerFrom(t *configv1beta1.Trigger) StageTrigger {
	switch {
	case t == nil:
		return StageTrigger{}
	case t.Auto != nil:
		st := StageTrigger{
			Kind:                        AutoTrigger,
			HasPreHealthCheckDeployment: len(t.Auto.PreHealthCheckDeployment.Refs()) > 0,
			HasPostDelayHealthChecks:    len(t.Auto.PostDelayHealthChecks) > 0,
		}
		if t.Auto.Delay != nil {
			st.Delay = t.Auto.Delay.Duration
		}
		if w := t.Auto.PromotionWindow; w != nil {
			st.WindowFrom, st.WindowTo = w.From, w.To
		}
		return st
	case t.Manual != nil:
		st := StageTrigger{
			Kind:                        ManualTrigger,
			HasPreHealthCheckDeployment: len(t.Manual.PreHealthCheckDeployment.Refs()) > 0,
			HasPostDelayHealthChecks:    len(t.Manual.PostDelayHealthChecks) > 0,
			Approved:                    t.Manual.Approved != nil && *t.Manual.Approved,
			AutomaticReset:              t.Manual.ResetsApproval(),
		}
		if t.Manual.Delay != nil {
			st.Delay = t.Manual.Delay.Duration
		}
		return st
	}
	return StageTrigger{}
}

// CheckState is where the post-delay health checks of a stage stand.
type CheckState int

const (
	// ChecksNotStarted means the post-delay checks are not yet running on the stage's clusters.
	ChecksNotStarted CheckState = iota
	// ChecksFailing means the checks run but do not pass (yet) on every cluster.
	ChecksFailing
	// ChecksPassing means the checks pass on every cluster of the stage.
	ChecksPassing
)

// StageGate is everything the gate of the current stage depends on.
type StageGate struct {
	// Stage is the current stage's name.
	Stage string
	// Last is set for the last stage of the promotion: passing its trigger completes it.
	Last    bool
	Trigger StageTrigger
	// Provisioned: every cluster of the stage is reachable and runs the current spec, healthy,
	// now.
	Provisioned bool
	// Failing: a reachable cluster of the stage is not provisioned because something went wrong
	// (a health check does not pass, its deployment fails), rather than because it is still at
	// work. An unreachable cluster is not failing: the stage waits for it, soak or not.
	Failing bool
	// ProvisionedAt is when the stage was first seen provisioned on the current spec
	// (status lastSuccessfulAppliedTime); zero while it never was. The caller records it.
	ProvisionedAt time.Time
	// PreHealthCheckDeployed: the preHealthCheckDeployment is provisioned on the stage.
	PreHealthCheckDeployed bool
	// PostDelayChecks is the state of the post-delay health checks.
	PostDelayChecks CheckState
	// DenyWindows are the promotion's freeze windows: while one is open the next stage does
	// not start (the last stage may still complete).
	DenyWindows []configv1beta1.TimeWindow
}

// GateAction is what the caller must do for the current stage.
type GateAction int

const (
	// Wait means nothing to do until RequeueAt (if set) or until an event changes the inputs.
	Wait GateAction = iota
	// DeployPreHealthCheck means deploy the stage's preHealthCheckDeployment, then wait for it.
	DeployPreHealthCheck
	// RunPostDelayChecks means add the post-delay health checks to the stage, then wait for them.
	RunPostDelayChecks
	// Advance means the stage is done; start the next stage.
	Advance
	// Complete means the last stage is done; the promotion is complete.
	Complete
)

var gateActionNames = [...]string{"Wait", "DeployPreHealthCheck", "RunPostDelayChecks", "Advance", "Complete"}

func (a GateAction) String() string {
	if a >= 0 && int(a) < len(gateActionNames) {
		return gateActionNames[a]
	}
	return fmt.Sprintf("GateAction(%d)", int(a))
}

// Exact upstream phrases of ClusterPromotion stage descriptions.
const (
	DescProvisioning            = "Clusters are being provisioned"
	DescDelayed                 = "Delayed: Waiting for Time Window: " // + RFC3339 end of the delay
	DescPreHealthCheck          = "Deploying Pre-Health-Check Resources"
	DescRunningChecks           = "Running Post-Promotion Health Checks"
	DescAwaitingChecks          = "Awaiting Health Checks to Pass"
	DescWindowClosed            = "Window Closed: Waiting for Next Schedule (%s)."
	DescAwaitingApproval        = "Paused: Awaiting Manual Approval"
	DescFrozen                  = "Frozen: Deny Window Open: Waiting Until %s." // a Stagecoach extension
	DescSuccessfullyProvisioned = "Successfully provisioned"
)

// GateDecision is the outcome of DecideStage.
type GateDecision struct {
	Action GateAction
	// Message is the upstream phrase, without the time stamp.
	Message string
	// Description is Message stamped with now, as written to currentStatusDescription.
	Description string
	// RequeueAt is the exact moment a delay ends or a promotion window opens; zero when only
	// an event (clusters provisioned, checks passing, approval) can unblock the stage.
	RequeueAt time.Time
	// ResetApproval is set when the stage is left through a manual trigger with
	// automaticReset: the caller clears spec.stages[].trigger.manual.approved.
	ResetApproval bool
	// RestartSoak is set when the stage regressed while it soaked: the caller forgets
	// ProvisionedAt, and the delay counts again from when the stage is provisioned again.
	RestartSoak bool
	// Hold is set when a time window holds the stage: an open deny window or a closed promotion
	// window.
	Hold *Hold
}

// StampDescription appends the upstream time stamp: "text (2006-01-02T15:04:05Z)", in UTC and
// truncated to the second. Empty text stays empty.
func StampDescription(text string, now time.Time) string {
	if text == "" {
		return ""
	}
	return text + " (" + formatTime(now.Truncate(time.Second)) + ")"
}

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// DecideStage decides what happens next for the current stage of a ClusterPromotion. The
// trigger of the current stage gates leaving it; on the last stage it gates completion. The
// conditions are checked in upstream order: stage provisioned, delay (soak) since
// ProvisionedAt, preHealthCheckDeployment, postDelayHealthChecks, then the promotion window
// (auto) or approval (manual). Unlike upstream, the stage must still be provisioned when it
// leaves, for manual triggers as well, a stage failing during its soak starts the soak again
// once it is healthy, and timers requeue at the exact moment they end. An open deny window holds
// a stage that would move on, as a closed promotion window does; it never holds the completion
// of the last stage.
// The only errors are a malformed promotion or deny window and a provisioned stage without
// ProvisionedAt.
func DecideStage(g StageGate, now time.Time) (GateDecision, error) {
	wait := func(msg string, at time.Time) (GateDecision, error) {
		return decision(Wait, msg, at, now), nil
	}
	if g.ProvisionedAt.IsZero() {
		if g.Provisioned {
			return GateDecision{}, fmt.Errorf("stage %s is provisioned but its lastSuccessfulAppliedTime is not set", g.Stage)
		}
		return wait(DescProvisioning, time.Time{})
	}
	tr := g.Trigger
	if tr.Kind != NoTrigger {
		if end := g.ProvisionedAt.Add(tr.Delay); tr.Delay > 0 && now.Before(end) {
			if !g.Provisioned && g.Failing {
				// A soak is an uninterrupted healthy period: a regression ends this one.
				d := decision(Wait, DescAwaitingChecks, time.Time{}, now)
				d.RestartSoak = true
				return d, nil
			}
			return wait(DescDelayed+formatTime(end), end)
		}
		if tr.HasPreHealthCheckDeployment && !g.PreHealthCheckDeployed {
			return decision(DeployPreHealthCheck, DescPreHealthCheck, time.Time{}, now), nil
		}
		if tr.HasPostDelayHealthChecks {
			switch g.PostDelayChecks {
			case ChecksNotStarted:
				return decision(RunPostDelayChecks, DescRunningChecks, time.Time{}, now), nil
			case ChecksFailing:
				return wait(DescAwaitingChecks, time.Time{})
			}
		}
	}
	if !g.Provisioned {
		// Provisioned once, no longer: clusters are redeploying (e.g. with the post-delay
		// checks) or became unhealthy.
		return wait(DescAwaitingChecks, time.Time{})
	}
	var allow *Window
	if tr.Kind == AutoTrigger && (tr.WindowFrom != "" || tr.WindowTo != "") {
		w, err := ParseWindow(tr.WindowFrom, tr.WindowTo)
		if err != nil {
			return GateDecision{}, fmt.Errorf("stage %s: %w", g.Stage, err)
		}
		allow = w
	}
	var deny []*Window
	if !g.Last {
		var err error
		if deny, err = ParseDenyWindows(g.DenyWindows); err != nil {
			return GateDecision{}, err
		}
	}
	if tr.Kind == ManualTrigger && !tr.Approved {
		return wait(DescAwaitingApproval, time.Time{})
	}
	if h, held := HoldAt(allow, deny, now); held {
		when := "never"
		if !h.Until.IsZero() {
			when = formatTime(h.Until)
		}
		msg := fmt.Sprintf(DescWindowClosed, when)
		if h.DenyWindow >= 0 {
			msg = fmt.Sprintf(DescFrozen, when)
		}
		d := decision(Wait, msg, h.Until, now)
		d.Hold = &h
		return d, nil
	}
	d := decision(Advance, DescSuccessfullyProvisioned, time.Time{}, now)
	if g.Last {
		d.Action = Complete
	}
	d.ResetApproval = tr.Kind == ManualTrigger && tr.AutomaticReset
	return d, nil
}

func decision(a GateAction, msg string, at, now time.Time) GateDecision {
	return GateDecision{Action: a, Message: msg, Description: StampDescription(msg, now), RequeueAt: at}
}

// ResumeClock is where a clock that started at since, stopped at suspendedAt and restarted at
// resumedAt must have started to read the same without the stop: since moved on by the time
// suspended. A stage's soak and progress deadline, and an update run's waits, count this way:
// what was served before a suspension counts, the suspension does not. Nothing starts while
// suspended, so since is from before (or the same second). The result is rounded up to the
// second, as statuses store it.
func ResumeClock(since, suspendedAt, resumedAt time.Time) time.Time {
	if since.IsZero() || !suspendedAt.Before(resumedAt) {
		return since
	}
	shifted := since.Add(resumedAt.Sub(suspendedAt))
	if down := shifted.Truncate(time.Second); !down.Equal(shifted) {
		return down.Add(time.Second)
	}
	return shifted
}
