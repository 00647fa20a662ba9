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

package specmemo

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
)

func summary(uid string, generation int64) *configv1beta1.ClusterSummary {
	return &configv1beta1.ClusterSummary{ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid), Generation: generation}}
}

// TestSameAsksOncePerGeneration: the comparison runs again only when the summary's generation
// or the version changes, and every time for objects without a UID or a generation.
func TestSameAsksOncePerGeneration(t *testing.T) {
	var m Memo
	asked := 0
	answer := true
	equal := func() bool { asked++; return answer }
	v1 := Version{Profile: "p", Generation: 1}

	steps := []struct {
		name   string
		cs     *configv1beta1.ClusterSummary
		v      Version
		answer bool
		want   bool
		asked  int
	}{
		{"first question", summary("a", 1), v1, true, true, 1},
		{"same again: remembered", summary("a", 1), v1, false, true, 1},
		{"another summary", summary("b", 1), v1, false, false, 2},
		{"the summary changed", summary("a", 2), v1, false, false, 3},
		{"the profile changed", summary("a", 2), Version{Profile: "p", Generation: 2}, true, true, 4},
		{"the content changed", summary("a", 2), Version{Profile: "p", Generation: 2, Extra: "x"}, false, false, 5},
		{"no generation: always asked", summary("c", 0), v1, true, true, 6},
		{"no generation again", summary("c", 0), v1, false, false, 7},
		{"a version without a generation", summary("a", 2), Version{Profile: "p"}, true, true, 8},
	}
	for _, s := range steps {
		answer = s.answer
		if got := m.Same(s.cs, s.v, equal); got != s.want || asked != s.asked {
			t.Fatalf("%s: Same = %v after %d comparisons, want %v after %d", s.name, got, asked, s.want, s.asked)
		}
	}
	var none *Memo
	if !none.Same(summary("a", 1), v1, func() bool { return true }) {
		t.Fatal("a nil Memo must answer from the comparison")
	}
}

// TestSweepDropsWhatIsNoLongerAsked: an answer not asked for during a whole period is dropped,
// so deleted summaries do not stay in memory.
func TestSweepDropsWhatIsNoLongerAsked(t *testing.T) {
	now := time.Unix(0, 0)
	m := Memo{now: func() time.Time { return now }}
	v := Version{Profile: "p", Generation: 1}
	yes := func() bool { return true }
	m.Same(summary("kept", 1), v, yes)
	m.Same(summary("gone", 1), v, yes)
	now = now.Add(sweepEvery)
	m.Same(summary("kept", 1), v, yes)
	if m.Len() != 2 {
		t.Fatalf("after one period: %d answers held, want 2", m.Len())
	}
	now = now.Add(sweepEvery)
	m.Same(summary("kept", 1), v, yes)
	if m.Len() != 1 {
		t.Fatalf("after two periods: %d answers held, want 1 (the summary still asked about)", m.Len())
	}
}
