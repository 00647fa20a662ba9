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

package sveltoscluster

import (
	"crypto/sha256"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

func TestDecideWindow(t *testing.T) {
	// Working hours, Monday to Friday 9:00 to 17:00 UTC; 2026-03-10 is a Tuesday.
	from, to := "0 9 * * 1-5", "0 17 * * 1-5"
	hash := sha256.Sum256([]byte(from + "\n" + to))
	at := func(hhmm string) time.Time {
		t, _ := time.Parse(time.RFC3339, "2026-03-10T"+hhmm+":00Z")
		return t
	}
	cluster := func(paused bool, known bool, nextPause, nextUnpause string) *libv1beta1.SveltosCluster {
		c := &libv1beta1.SveltosCluster{Spec: libv1beta1.SveltosClusterSpec{Paused: paused, ActiveWindow: &libv1beta1.ActiveWindow{From: from, To: to}}}
		if known {
			c.Status.ActiveWindowHash = hash[:]
			c.Status.NextPause = &metav1.Time{Time: at(nextPause)}
			c.Status.NextUnpause = &metav1.Time{Time: at(nextUnpause)}
		}
		return c
	}
	tests := []struct {
		name    string
		cluster *libv1beta1.SveltosCluster
		now     string
		paused  string // "true", "false" or "" for untouched
	}{
		{"a new window, inside it", cluster(true, false, "", ""), "10:00", "false"},
		{"a new window, outside it", cluster(false, false, "", ""), "18:00", "true"},
		{"the window closes", cluster(false, true, "17:00", "09:00"), "17:00", "true"},
		{"the window opens", cluster(true, true, "17:00", "09:00"), "09:00", "false"},
		{"paused by hand inside the window: held", cluster(true, true, "17:00", "23:59"), "12:00", ""},
		{"resumed by hand outside the window: held", cluster(false, true, "23:58", "23:59"), "20:00", ""},
		{"both boundaries passed while away: what the window says now", cluster(true, true, "08:00", "08:30"), "10:00", "false"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := decideWindow(tc.cluster, at(tc.now))
			got := ""
			if d.paused != nil {
				got = map[bool]string{true: "true", false: "false"}[*d.paused]
			}
			if got != tc.paused || d.problem != "" {
				t.Errorf("paused %q (problem %q), want %q", got, d.problem, tc.paused)
			}
			if d.nextPause.IsZero() || d.nextUnpause.IsZero() {
				t.Errorf("next pause %v, next unpause %v", d.nextPause, d.nextUnpause)
			}
		})
	}
	bad := cluster(false, false, "", "")
	bad.Spec.ActiveWindow.To = "17h"
	if d := decideWindow(bad, at("10:00")); !strings.Contains(d.problem, `spec.activeWindow.to: invalid cron expression "17h"`) || d.paused != nil {
		t.Errorf("an invalid window gave %+v", d)
	}
}
