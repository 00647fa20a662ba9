//go:build e2e

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

package updaterun

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// TestStopMovesProgressDeadline: a stage stopped for two hours, ten minutes into its hour of
// progress deadline, has the deadline moved on by those two hours; it fails only once the fifty
// minutes it had left have passed after the resume.
func TestStopMovesProgressDeadline(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration) metav1.Time { return metav1.NewTime(t0.Add(d)) }
	started, stopped := at(0), at(10*time.Minute)
	cfg := placementv1beta1.StageConfig{Name: "canary", ProgressDeadline: &metav1.Duration{Duration: time.Hour}}
	st := &placementv1beta1.StageUpdatingStatus{StageName: "canary", StartTime: &started,
		Clusters: []placementv1beta1.ClusterUpdatingStatus{{ClusterName: "member2"}, {ClusterName: "member3"}}}
	ru := &run{now: stopped}
	check := func(want string) {
		t.Helper()
		why, err := stageFailure(ru, st, cfg, nil, false)
		if err != nil || !strings.Contains(why, want) || want == "" && why != "" {
			t.Fatalf("at %s: %q, %v; want %q", ru.now.Sub(t0), why, err, want)
		}
	}
	check("")
	if got := st.ProgressDeadlineTime; got == nil || !got.Time.Equal(t0.Add(time.Hour)) {
		t.Fatalf("progressDeadlineTime %v, want %v", got, t0.Add(time.Hour))
	}

	st.StoppedTime = &stopped
	ru.now = at(2*time.Hour + 10*time.Minute)
	resumeWaits(ru, st)
	if st.StoppedTime != nil || !st.ProgressDeadlineTime.Time.Equal(t0.Add(3*time.Hour)) {
		t.Fatalf("after the resume: stoppedTime %v, progressDeadlineTime %v; want none, %v", st.StoppedTime, st.ProgressDeadlineTime, t0.Add(3*time.Hour))
	}
	check("")
	ru.now = at(3*time.Hour - time.Second)
	check("")
	ru.now = at(3 * time.Hour)
	check("was not deployed and healthy by its progressDeadline")
}
