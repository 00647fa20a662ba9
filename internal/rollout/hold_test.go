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
	"strings"
	"testing"
	"time"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
)

func TestHoldAt(t *testing.T) {
	window := func(from, to string) *Window {
		t.Helper()
		w, err := ParseWindow(from, to)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	// 2026-03-10 is a Tuesday; t0 is 09:00 UTC that day.
	friday := window("0 18 * * 5", "0 6 * * 1")     // the weekend freeze
	lunch := window("0 12 * * *", "0 14 * * *")     // a daily freeze
	office := window("0 9 * * 1-5", "0 17 * * 1-5") // the allow window
	night := window("0 22 * * *", "0 2 * * *")      // an allow window at night
	endOfYear := window("0 0 20 12 *", "0 0 3 1 *") // a freeze over the holidays
	never := window("0 0 1 1 *", "0 0 29 2 *")      // opened on January 1st, closes only on February 29th
	for _, tc := range []struct {
		name  string
		allow *Window
		deny  []*Window
		now   time.Time
		held  bool
		index int
		until time.Time
	}{
		{"nothing", nil, nil, t0, false, 0, time.Time{}},
		{"deny windows closed", nil, []*Window{friday, lunch}, t0, false, 0, time.Time{}},
		{"inside a deny window", nil, []*Window{friday, lunch}, t0.Add(3 * time.Hour), true, 1, t0.Add(5 * time.Hour)},
		{"deny window closes exactly now", nil, []*Window{lunch}, t0.Add(5 * time.Hour), false, 0, time.Time{}},
		{"weekend freeze", nil, []*Window{friday}, time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC), true, 0, time.Date(2026, 3, 16, 6, 0, 0, 0, time.UTC)},
		{"allow window closed", office, nil, t0.Add(-time.Hour), true, -1, t0},
		{"allow window open", office, []*Window{friday}, t0.Add(time.Hour), false, 0, time.Time{}},
		{"deny inside the allow window", office, []*Window{lunch}, t0.Add(3 * time.Hour), true, 0, t0.Add(5 * time.Hour)},
		// Friday 17:00 the office window closes; the freeze opens at 18:00 and closes Monday 06:00;
		// the office opens Monday 09:00.
		{"allow closed, then a freeze, then allow opens", office, []*Window{friday}, time.Date(2026, 3, 13, 20, 0, 0, 0, time.UTC), true, 0, time.Date(2026, 3, 16, 9, 0, 0, 0, time.UTC)},
		// The night window opens at 22:00, the freeze has opened by then: Monday 06:00 it closes,
		// and the night window is closed until 22:00 Monday.
		{"freeze ends outside the allow window", night, []*Window{friday}, time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC), true, 0, time.Date(2026, 3, 16, 22, 0, 0, 0, time.UTC)},
		{"freeze across the new year", nil, []*Window{endOfYear}, time.Date(2026, 12, 24, 0, 0, 0, 0, time.UTC), true, 0, time.Date(2027, 1, 3, 0, 0, 0, 0, time.UTC)},
		{"the first open deny window is named", nil, []*Window{lunch, endOfYear}, time.Date(2026, 12, 24, 13, 0, 0, 0, time.UTC), true, 0, time.Date(2027, 1, 3, 0, 0, 0, 0, time.UTC)},
		{"a freeze that never ends", nil, []*Window{never}, time.Date(2027, 1, 10, 0, 0, 0, 0, time.UTC), true, 0, time.Date(2028, 2, 29, 0, 0, 0, 0, time.UTC)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, held := HoldAt(tc.allow, tc.deny, tc.now)
			if held != tc.held {
				t.Fatalf("held = %v, want %v", held, tc.held)
			}
			if !held {
				return
			}
			if h.DenyWindow != tc.index || !h.Until.Equal(tc.until) {
				t.Fatalf("got window %d until %s, want window %d until %s", h.DenyWindow, h.Until, tc.index, tc.until)
			}
		})
	}
}

func TestParseDenyWindows(t *testing.T) {
	_, err := ParseDenyWindows([]configv1beta1.TimeWindow{{From: "0 18 * * 5", To: "0 6 * * 1"}, {From: "0 12 * * *", To: "0 25 * * *"}})
	if err == nil || !strings.HasPrefix(err.Error(), `denyWindows[1].to: invalid cron expression "0 25 * * *"`) {
		t.Fatalf("got %v, want an error naming denyWindows[1].to", err)
	}
}

// TestDecideStageDenyWindows: an open deny window holds a stage that would move on, however it
// would (no trigger, auto, approved); never the completion of the last stage; and an approval
// waits unused.
func TestDecideStageDenyWindows(t *testing.T) {
	lunch := []configv1beta1.TimeWindow{{From: "0 12 * * *", To: "0 14 * * *"}}
	now := t0.Add(3 * time.Hour) // 12:00, the freeze is open until 14:00
	approved := StageTrigger{Kind: ManualTrigger, Approved: true, AutomaticReset: true}
	for _, tc := range []struct {
		name    string
		gate    StageGate
		action  GateAction
		msg     string
		requeue time.Time
	}{
		{"no trigger", StageGate{Stage: "s", DenyWindows: lunch}, Wait, "Frozen: Deny Window Open: Waiting Until 2026-03-10T14:00:00Z.", t0.Add(5 * time.Hour)},
		{"approved", StageGate{Stage: "s", Trigger: approved, DenyWindows: lunch}, Wait, "Frozen: Deny Window Open: Waiting Until 2026-03-10T14:00:00Z.", t0.Add(5 * time.Hour)},
		{"not approved", StageGate{Stage: "s", Trigger: StageTrigger{Kind: ManualTrigger}, DenyWindows: lunch}, Wait, DescAwaitingApproval, time.Time{}},
		{"promotion window open", StageGate{Stage: "s", Trigger: StageTrigger{Kind: AutoTrigger, WindowFrom: "0 9 * * *", WindowTo: "0 17 * * *"}, DenyWindows: lunch},
			Wait, "Frozen: Deny Window Open: Waiting Until 2026-03-10T14:00:00Z.", t0.Add(5 * time.Hour)},
		{"promotion window closing with the freeze", StageGate{Stage: "s", Trigger: StageTrigger{Kind: AutoTrigger, WindowFrom: "0 9 * * *", WindowTo: "0 13 * * *"}, DenyWindows: lunch},
			Wait, "Frozen: Deny Window Open: Waiting Until 2026-03-11T09:00:00Z.", t0.Add(24 * time.Hour)},
		{"last stage completes", StageGate{Stage: "s", Last: true, Trigger: approved, DenyWindows: lunch}, Complete, DescSuccessfullyProvisioned, time.Time{}},
		{"freeze over", StageGate{Stage: "s", Trigger: approved, DenyWindows: []configv1beta1.TimeWindow{{From: "0 10 * * *", To: "0 11 * * *"}}}, Advance, DescSuccessfullyProvisioned, time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.gate.Provisioned, tc.gate.ProvisionedAt = true, now.Add(-time.Hour)
			d, err := DecideStage(tc.gate, now)
			if err != nil {
				t.Fatal(err)
			}
			if d.Action != tc.action || d.Message != tc.msg || !d.RequeueAt.Equal(tc.requeue) {
				t.Fatalf("got %s %q requeue %s, want %s %q requeue %s", d.Action, d.Message, d.RequeueAt, tc.action, tc.msg, tc.requeue)
			}
			if d.Action == Wait && d.Hold == nil && tc.msg != DescAwaitingApproval {
				t.Fatal("a held stage says which window holds it")
			}
			if d.ResetApproval && d.Action == Wait {
				t.Fatal("an approval is used while frozen")
			}
		})
	}
}

func TestResumeClock(t *testing.T) {
	provisioned, suspended := t0, t0.Add(3*time.Minute)
	for _, tc := range []struct {
		name                 string
		provisioned, resumed time.Time
		want                 time.Time
	}{
		{"three minutes served, an hour suspended", provisioned, suspended.Add(time.Hour), t0.Add(time.Hour)},
		{"rounded up to the second", provisioned, suspended.Add(time.Hour + 100*time.Millisecond), t0.Add(time.Hour + time.Second)},
		{"not provisioned", time.Time{}, suspended.Add(time.Hour), time.Time{}},
		{"provisioned in the second of the suspension", suspended, suspended.Add(time.Hour), suspended.Add(time.Hour)},
		{"resumed before suspended", provisioned, suspended.Add(-time.Second), provisioned},
	} {
		if got := ResumeClock(tc.provisioned, suspended, tc.resumed); !got.Equal(tc.want) {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
	}
}
