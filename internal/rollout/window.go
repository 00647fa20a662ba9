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
	"strings"
	"time"

	// Embedded zone data so that CRON_TZ=<zone> works in images without /usr/share/zoneinfo.
	_ "time/tzdata"

	"github.com/robfig/cron/v3"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
)

// Window is a parsed promotion window: a recurring interval that opens at each activation of
// From and closes at the next activation of To.
//
// Both expressions are standard 5-field cron expressions (minute hour day-of-month month
// day-of-week; names such as MON or JAN and the descriptors @yearly, @monthly, @weekly,
// @daily, @midnight and @hourly are accepted), optionally prefixed with "CRON_TZ=<zone>" or
// "TZ=<zone>" (an IANA zone name such as Europe/Paris). Without a prefix the expression is
// evaluated in UTC, never in the controller's local zone, so the window does not move when the
// controller runs elsewhere. "@every <duration>" is rejected: it has no calendar activations.
type Window struct {
	from, to cron.Schedule
}

// windowLookback is how far back Window looks for the most recent activation of an
// expression. Eight years covers every 5-field expression, including "0 0 29 2 *".
var windowLookback = []time.Duration{
	time.Hour, 25 * time.Hour, 8 * 24 * time.Hour, 32 * 24 * time.Hour, 367 * 24 * time.Hour,
	8 * 367 * 24 * time.Hour,
}

// ParseWindow parses a promotion window. An invalid expression yields an error naming the
// field ("promotionWindow.from" or "promotionWindow.to") and quoting the expression.
func ParseWindow(from, to string) (*Window, error) { return ParseWindowAt("promotionWindow", from, to) }

// ParseWindowAt parses a window written at field (a cluster's "spec.activeWindow", say): errors
// name field.from or field.to.
func ParseWindowAt(field, from, to string) (*Window, error) {
	f, err := parseWindowCron(field+".from", from)
	if err != nil {
		return nil, err
	}
	t, err := parseWindowCron(field+".to", to)
	if err != nil {
		return nil, err
	}
	return &Window{from: f, to: t}, nil
}

func parseWindowCron(field, expr string) (cron.Schedule, error) {
	spec := strings.TrimSpace(expr)
	fail := func(why string) (cron.Schedule, error) {
		return nil, fmt.Errorf("%s: invalid cron expression %q: %s; write 5 fields "+
			"(minute hour day-of-month month day-of-week), e.g. \"0 9 * * 1-5\", optionally "+
			"prefixed with CRON_TZ=<zone>", field, expr, why)
	}
	if spec == "" {
		return fail("it is empty")
	}
	if strings.HasPrefix(spec, "TZ=") || strings.HasPrefix(spec, "CRON_TZ=") {
		if !strings.ContainsAny(spec, " \t") {
			return fail("the time zone prefix is not followed by a schedule")
		}
	} else {
		spec = "CRON_TZ=UTC " + spec
	}
	sched, err := cron.ParseStandard(spec)
	if err != nil {
		return fail(err.Error())
	}
	if _, ok := sched.(*cron.SpecSchedule); !ok {
		return fail("@every has no fixed times of day; use a calendar schedule")
	}
	return sched, nil
}

// State reports whether the window is open at now and when that changes: the next activation
// of To when open, the next activation of From when closed (zero if From never fires again).
//
// The window is open iff the most recent activation of From at or before now is later than the
// most recent activation of To at or before now, i.e. now lies inside a From→To interval. It
// opens exactly at a From activation and closes exactly at a To activation; a To that fires at
// the same minute as From keeps the window closed. Windows crossing midnight (from "0 22 * * *",
// to "0 2 * * *") need nothing special.
func (w *Window) State(now time.Time) (open bool, next time.Time) {
	lastFrom := lastActivation(w.from, now)
	lastTo := lastActivation(w.to, now)
	if !lastFrom.IsZero() && lastFrom.After(lastTo) {
		return true, w.to.Next(now)
	}
	return false, w.from.Next(now)
}

// Next returns the next activations of From and To after now (zero when one never fires again).
func (w *Window) Next(now time.Time) (from, to time.Time) { return w.from.Next(now), w.to.Next(now) }

// lastActivation returns the latest activation of s at or before now, or zero if there is none
// within the lookback.
func lastActivation(s cron.Schedule, now time.Time) time.Time {
	for _, back := range windowLookback {
		var last time.Time
		for t := s.Next(now.Add(-back)); !t.IsZero() && !t.After(now); t = s.Next(t) {
			last = t
		}
		if !last.IsZero() {
			return last
		}
	}
	return time.Time{}
}

// ParseDenyWindows parses a promotion's spec.denyWindows; an error names the window
// ("denyWindows[1].from") and quotes the expression.
func ParseDenyWindows(windows []configv1beta1.TimeWindow) ([]*Window, error) {
	out := make([]*Window, 0, len(windows))
	for i, w := range windows {
		parsed, err := ParseWindowAt(fmt.Sprintf("denyWindows[%d]", i), w.From, w.To)
		if err != nil {
			return nil, err
		}
		out = append(out, parsed)
	}
	return out, nil
}

// Hold says why a stage may not start now and from when it may.
type Hold struct {
	// DenyWindow is the index of the deny window open now, or -1 when it is the promotion window,
	// closed now, that holds the stage.
	DenyWindow int
	// Until is the earliest time at which no deny window is open and the promotion window is;
	// zero when there is none.
	Until time.Time
}

// maxHoldSteps bounds the search for the end of a hold: each step moves past one window, and
// windows that keep handing over to each other for longer are reported as holding until the
// time reached (the hold is computed again then).
const maxHoldSteps = 64

// HoldAt reports whether a stage is held at now: by an open deny window, or by allow (the
// stage's promotion window; nil when it has none) being closed. The deny windows are looked at
// first, so that a freeze is what the status names while both hold.
func HoldAt(allow *Window, deny []*Window, now time.Time) (Hold, bool) {
	h := Hold{DenyWindow: -1}
	held := false
	for i, d := range deny {
		if open, _ := d.State(now); open {
			h.DenyWindow, held = i, true
			break
		}
	}
	if !held && allow != nil {
		open, _ := allow.State(now)
		held = !open
	}
	if !held {
		return Hold{}, false
	}
	t := now
	for range maxHoldSteps {
		moved := false
		for _, d := range deny {
			if open, closes := d.State(t); open {
				if closes.IsZero() {
					return h, true
				}
				t, moved = closes, true
			}
		}
		if allow != nil {
			if open, opens := allow.State(t); !open {
				if opens.IsZero() {
					return h, true
				}
				t, moved = opens, true
			}
		}
		if !moved {
			break
		}
	}
	h.Until = t
	return h, true
}
