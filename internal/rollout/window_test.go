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
)

func TestWindowState(t *testing.T) {
	at := func(s string) time.Time {
		t.Helper()
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		name     string
		from, to string
		now      string
		open     bool
		next     string
	}{
		// 2026-03-10 is a Tuesday.
		{"inside the window", "0 10 * * *", "0 11 * * *", "2026-03-10T10:05:00Z", true, "2026-03-10T11:00:00Z"},
		{"before the window", "0 20 * * *", "0 22 * * *", "2026-03-10T19:30:00Z", false, "2026-03-10T20:00:00Z"},
		{"after the window", "0 20 * * *", "0 22 * * *", "2026-03-10T22:30:00Z", false, "2026-03-11T20:00:00Z"},
		{"opens exactly at from", "0 20 * * *", "0 22 * * *", "2026-03-10T20:00:00Z", true, "2026-03-10T22:00:00Z"},
		{"closes exactly at to", "0 20 * * *", "0 22 * * *", "2026-03-10T22:00:00Z", false, "2026-03-11T20:00:00Z"},
		{"weekend window on a Tuesday", "0 10 * * 6", "0 22 * * 0", "2026-03-10T12:00:00Z", false, "2026-03-14T10:00:00Z"},
		{"weekend window on a Sunday", "0 10 * * 6", "0 22 * * 0", "2026-03-15T12:00:00Z", true, "2026-03-15T22:00:00Z"},
		{"crossing midnight, before midnight", "0 22 * * *", "0 2 * * *", "2026-03-10T23:30:00Z", true, "2026-03-11T02:00:00Z"},
		{"crossing midnight, after midnight", "0 22 * * *", "0 2 * * *", "2026-03-11T01:59:00Z", true, "2026-03-11T02:00:00Z"},
		{"crossing midnight, closed by day", "0 22 * * *", "0 2 * * *", "2026-03-11T12:00:00Z", false, "2026-03-11T22:00:00Z"},
		{"CRON_TZ shifts the window", "CRON_TZ=Europe/Paris 0 9 * * *", "CRON_TZ=Europe/Paris 0 17 * * *", "2026-03-10T08:30:00Z", true, "2026-03-10T16:00:00Z"},
		{"CRON_TZ closed before local opening", "CRON_TZ=Europe/Paris 0 9 * * *", "CRON_TZ=Europe/Paris 0 17 * * *", "2026-03-10T07:30:00Z", false, "2026-03-10T08:00:00Z"},
		{"TZ prefix", "TZ=America/New_York 0 9 * * 1-5", "TZ=America/New_York 0 17 * * 1-5", "2026-03-10T13:30:00Z", true, "2026-03-10T21:00:00Z"},
		{"default zone is UTC", "0 9 * * *", "0 17 * * *", "2026-03-10T08:30:00Z", false, "2026-03-10T09:00:00Z"},
		{"from and to at the same time stay closed", "0 9 * * *", "0 9 * * *", "2026-03-10T12:00:00Z", false, "2026-03-11T09:00:00Z"},
		{"descriptor", "@daily", "0 1 * * *", "2026-03-10T00:30:00Z", true, "2026-03-10T01:00:00Z"},
		{"yearly window", "0 0 1 1 *", "0 0 2 1 *", "2026-03-10T12:00:00Z", false, "2027-01-01T00:00:00Z"},
		{"to never fired", "0 0 1 1 *", "0 0 29 2 *", "2026-03-10T12:00:00Z", true, "2028-02-29T00:00:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := ParseWindow(tc.from, tc.to)
			if err != nil {
				t.Fatal(err)
			}
			open, next := w.State(at(tc.now))
			if open != tc.open || !next.Equal(at(tc.next)) {
				t.Errorf("State(%s) = %v, %s; want %v, %s", tc.now, open, next.UTC().Format(time.RFC3339), tc.open, tc.next)
			}
		})
	}
}

func TestParseWindowErrors(t *testing.T) {
	for _, tc := range []struct {
		name, from, to string
		want           []string
	}{
		{"bad from", "0 25 * * *", "0 1 * * *", []string{"promotionWindow.from", `"0 25 * * *"`}},
		{"bad to", "0 1 * * *", "nonsense", []string{"promotionWindow.to", `"nonsense"`}},
		{"six fields", "0 0 1 * * *", "0 1 * * *", []string{"promotionWindow.from", `"0 0 1 * * *"`}},
		{"empty", "", "0 1 * * *", []string{"promotionWindow.from", "empty"}},
		{"unknown zone", "CRON_TZ=Mars/Olympus 0 1 * * *", "0 1 * * *", []string{"promotionWindow.from", "Mars/Olympus"}},
		{"zone without schedule", "0 1 * * *", "CRON_TZ=UTC", []string{"promotionWindow.to", "not followed by a schedule"}},
		{"every", "@every 1h", "0 1 * * *", []string{"promotionWindow.from", "@every"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseWindow(tc.from, tc.to)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}
