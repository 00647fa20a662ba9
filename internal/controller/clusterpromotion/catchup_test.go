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
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/metrics"
)

// TestTallySkipsPausedAndUnreached: a paused cluster and an unreachable one the version has not
// reached do not hold the stage; an unreachable one that has the version does. In a rollback, so
// does one the failed version reached. Once the stage has passed, every cluster that does not run
// its version, paused ones aside, is catching up.
func TestTallySkipsPausedAndUnreached(t *testing.T) {
	current := func(name string) *configv1beta1.ClusterSummary {
		return &configv1beta1.ClusterSummary{ObjectMeta: metav1.ObjectMeta{Name: name}}
	}
	older := func(name string) *configv1beta1.ClusterSummary {
		cs := current(name)
		cs.Spec.ClusterProfileSpec.Tier = 7
		return cs
	}
	// failed carries the version being rolled back, with the post-delay check it had gained.
	failed := func(name string) *configv1beta1.ClusterSummary {
		cs := current(name)
		cs.Spec.ClusterProfileSpec.Tier = 9
		cs.Spec.ClusterProfileSpec.ValidateHealths = []libv1beta1.ValidateHealth{{Name: "soaked"}}
		return cs
	}
	failedSpec := configv1beta1.Spec{Tier: 9}
	refs := func(names ...string) []corev1.ObjectReference {
		var out []corev1.ObjectReference
		for _, n := range names {
			out = append(out, corev1.ObjectReference{Namespace: "prod", Name: n})
		}
		return out
	}
	for _, tc := range []struct {
		name        string
		matching    []corev1.ObjectReference
		unavailable map[string]string
		summaries   map[string]*configv1beta1.ClusterSummary
		rollingBack bool // from the failed version
		done        bool
		paused      []string
		current     []string // catching up while the stage is under way
		passed      []string // catching up once it has passed
	}{
		{name: "a paused cluster is not waited for", matching: refs("a", "b"),
			unavailable: map[string]string{"prod/b": "paused"},
			summaries:   map[string]*configv1beta1.ClusterSummary{"prod/a": current("a"), "prod/b": older("b")},
			done:        true, paused: []string{"prod/b"}},
		{name: "a paused cluster that has the version is not waited for either", matching: refs("a"),
			unavailable: map[string]string{"prod/a": "paused"},
			summaries:   map[string]*configv1beta1.ClusterSummary{"prod/a": current("a")},
			done:        true, paused: []string{"prod/a"}},
		{name: "an unreachable cluster the version has not reached is skipped", matching: refs("a", "b", "c"),
			unavailable: map[string]string{"prod/b": "not ready", "prod/c": "not ready"},
			summaries:   map[string]*configv1beta1.ClusterSummary{"prod/a": current("a"), "prod/b": older("b")},
			done:        true, current: []string{"prod/b", "prod/c"}, passed: []string{"prod/b", "prod/c"}},
		{name: "an unreachable cluster with the version holds the stage", matching: refs("a"),
			unavailable: map[string]string{"prod/a": "not ready"},
			summaries:   map[string]*configv1beta1.ClusterSummary{"prod/a": current("a")}},
		{name: "in a rollback, an unreachable cluster the failed version reached holds the stage", matching: refs("a", "b"),
			unavailable: map[string]string{"prod/b": "not ready"}, rollingBack: true,
			summaries: map[string]*configv1beta1.ClusterSummary{"prod/a": current("a"), "prod/b": failed("b")},
			passed:    []string{"prod/b"}},
		{name: "in a rollback, an unreachable cluster the failed version did not reach is skipped", matching: refs("a", "b"),
			unavailable: map[string]string{"prod/b": "not ready"}, rollingBack: true,
			summaries: map[string]*configv1beta1.ClusterSummary{"prod/a": current("a"), "prod/b": older("b")},
			done:      true, current: []string{"prod/b"}, passed: []string{"prod/b"}},
		{name: "out of a rollback, an unreachable cluster on another version is skipped", matching: refs("a", "b"),
			unavailable: map[string]string{"prod/b": "not ready"},
			summaries:   map[string]*configv1beta1.ClusterSummary{"prod/a": current("a"), "prod/b": failed("b")},
			done:        true, current: []string{"prod/b"}, passed: []string{"prod/b"}},
		{name: "a cluster registered after the stage passed catches up", matching: refs("a", "late"),
			summaries: map[string]*configv1beta1.ClusterSummary{"prod/a": current("a")},
			passed:    []string{"prod/late"}},
		{name: "a resumed cluster catches up", matching: refs("a", "b"),
			summaries: map[string]*configv1beta1.ClusterSummary{"prod/a": current("a"), "prod/b": older("b")},
			passed:    []string{"prod/b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			profile := &configv1beta1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Name: "p-prod"}}
			if tc.rollingBack {
				profile.Annotations = map[string]string{rolledBackFromAnnotation: specDigest(&failedSpec)}
			}
			st := tally(nil, profile, tc.matching, tc.unavailable, tc.summaries)
			if st.done != tc.done {
				t.Errorf("done = %v (%s), want %v", st.done, st.waitingOn, tc.done)
			}
			var now, later configv1beta1.StageStatus
			noteClusters(&now, st, false)
			noteClusters(&later, st, true)
			for _, c := range []struct {
				what      string
				got, want []string
			}{
				{"paused", now.PausedClusters, tc.paused},
				{"paused once passed", later.PausedClusters, tc.paused},
				{"catching up", now.CatchingUpClusters, tc.current},
				{"catching up once passed", later.CatchingUpClusters, tc.passed},
			} {
				if !slices.Equal(c.got, c.want) {
					t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
				}
			}
		})
	}
}

// TestBudgetLeavesPausedOut: a percentage failure budget is of the clusters taking part, not of
// the paused ones.
func TestBudgetLeavesPausedOut(t *testing.T) {
	half := intstr.FromString("50%")
	stage := &configv1beta1.Stage{Name: "prod", MaxFailures: &half}
	state := stageState{clusters: map[string]int{metrics.ClusterFailed: 1, metrics.ClusterUnreachable: 1},
		failing: []string{"prod/a: boom"}, paused: []string{"prod/b"}}
	msg, err := stageFailure(stage, &configv1beta1.StageStatus{}, state, metav1.Now())
	if err != nil || msg != "1 cluster fails, more than maxFailures allows (0): prod/a: boom" {
		t.Errorf("stageFailure: %q, %v", msg, err)
	}
}
