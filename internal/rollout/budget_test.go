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
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestMaxFailures(t *testing.T) {
	for _, tc := range []struct {
		v     *intstr.IntOrString
		total int
		want  int
		err   bool
	}{
		{nil, 10, 0, false},
		{ptr(intstr.FromInt32(2)), 10, 2, false},
		{ptr(intstr.FromString("10%")), 5, 0, false},
		{ptr(intstr.FromString("10%")), 25, 2, false},
		{ptr(intstr.FromString("100%")), 7, 7, false},
		{ptr(intstr.FromString("3")), 7, 3, false},
		{ptr(intstr.FromInt32(-1)), 7, 0, true},
		{ptr(intstr.FromString("120%")), 7, 0, true},
		{ptr(intstr.FromString("some")), 7, 0, true},
	} {
		got, err := MaxFailures(tc.v, tc.total)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("MaxFailures(%v, %d) = %d, %v; want %d, error %v", tc.v, tc.total, got, err, tc.want, tc.err)
		}
	}
}

func TestStageFailure(t *testing.T) {
	deadline := t0.Add(time.Hour)
	failing := []string{"fleet/a: Helm: chart not found", "fleet/b: health check \"ready\": not ready", "fleet/c: x", "fleet/d: x", "fleet/e: x", "fleet/f: x"}
	for _, tc := range []struct {
		name string
		p    StageProgress
		now  time.Time
		want string
	}{
		{"nothing fails", StageProgress{}, t0, ""},
		{"within the budget", StageProgress{Failing: failing[:1], FailingCount: 1, MaxFailures: 1}, t0, ""},
		{"over the budget", StageProgress{Failing: failing[:2], FailingCount: 2, MaxFailures: 1}, t0,
			`2 clusters fail, more than maxFailures allows (1): fleet/a: Helm: chart not found; fleet/b: health check "ready": not ready`},
		{"the first few are named", StageProgress{Failing: failing, FailingCount: 40}, t0,
			"40 clusters fail, more than maxFailures allows (0): fleet/a: Helm: chart not found; fleet/b: health check \"ready\": not ready; fleet/c: x; fleet/d: x; fleet/e: x; and 35 more"},
		{"before the deadline", StageProgress{Deadline: deadline}, t0, ""},
		{"past the deadline", StageProgress{Deadline: deadline}, deadline,
			"the stage was not deployed and healthy by its progressDeadline (2026-03-10T10:00:00Z)"},
		{"past the deadline, with failures in the budget", StageProgress{Deadline: deadline, Failing: failing[:1], FailingCount: 1, MaxFailures: 1}, deadline,
			"the stage was not deployed and healthy by its progressDeadline (2026-03-10T10:00:00Z); failing: fleet/a: Helm: chart not found"},
		{"provisioned in time", StageProgress{Deadline: deadline, Provisioned: true}, deadline.Add(time.Hour), ""},
	} {
		if got := StageFailure(tc.p, tc.now); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}
