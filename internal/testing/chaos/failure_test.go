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

package chaos

import (
	"slices"
	"testing"
	"time"
)

// revert puts the cluster back on version v with Helm release revision rel: the rollback of
// version 1, whose release was revision 2.
func (h *history) revert(cluster string, v, rel int) *history {
	return h.release(cluster, rel, "pending-rollback").message(cluster, msg(v)).image(cluster, img(v)).
		release(cluster, rel, "deployed").done(cluster, img(v))
}

// TestCheckFailure: version 1 is bad and fails at stage b; version 0 is the last good one.
func TestCheckFailure(t *testing.T) {
	stop := &Failure{Stage: 1, GoodImage: img(0), GoodMessage: msg(0)}
	given := &Failure{Stage: 1, Given: []string{"c2", "c3"}, GoodImage: img(0), GoodMessage: msg(0)}
	rollback := &Failure{Stage: 1, Rollback: true, GoodImage: img(0), GoodMessage: msg(0)}
	deadline := &Failure{Stage: 1, Rollback: true, GoodImage: img(0), GoodMessage: msg(0), Deadline: 5 * time.Second}
	tests := []struct {
		name    string
		failure *Failure
		build   func() (*history, int64)
		rules   []string
	}{{
		name:    "stopped at the failing stage",
		failure: stop,
		build: func() (*history, int64) {
			return newHistory().update("c1", 1).wait(2*time.Second).update("c2", 1), 0
		},
	}, {
		name:    "the failed version reaches a later stage",
		failure: stop,
		build: func() (*history, int64) {
			h, a := newHistory().update("c1", 1).wait(2*time.Second).update("c2", 1).update("c3", 1).approve()
			return h.update("c4", 1), a
		},
		rules: []string{RuleFailedVersion, RuleFailedVersion},
	}, {
		name:    "the failing stage's clusters given the version keep it",
		failure: given,
		build: func() (*history, int64) {
			return newHistory().update("c1", 1).wait(2*time.Second).update("c2", 1).update("c3", 1), 0
		},
	}, {
		name:    "a cluster given the version does not end on it",
		failure: given,
		build: func() (*history, int64) {
			return newHistory().update("c1", 1).wait(2*time.Second).update("c2", 1), 0
		},
		rules: []string{RuleConverged},
	}, {
		name:    "a stage before the failing one does not keep the version",
		failure: stop,
		build: func() (*history, int64) {
			return newHistory().update("c1", 1).wait(2*time.Second).update("c2", 1).revert("c1", 0, 3), 0
		},
		rules: []string{RuleConverged},
	}, {
		name:    "rolled back, the failing stage first",
		failure: rollback,
		build: func() (*history, int64) {
			return newHistory().update("c1", 1).wait(2*time.Second).update("c2", 1).revert("c2", 0, 3).revert("c1", 0, 3), 0
		},
	}, {
		name:    "an earlier stage goes back before the failing one is back",
		failure: rollback,
		build: func() (*history, int64) {
			return newHistory().update("c1", 1).wait(2*time.Second).update("c2", 1).revert("c1", 0, 3).revert("c2", 0, 3), 0
		},
		rules: []string{RuleRollback},
	}, {
		name:    "a stage that ran the version stays on it",
		failure: rollback,
		build: func() (*history, int64) {
			return newHistory().update("c1", 1).wait(2*time.Second).update("c2", 1).revert("c2", 0, 3), 0
		},
		rules: []string{RuleRollback},
	}, {
		name:    "rolled back at the deadline",
		failure: deadline,
		build: func() (*history, int64) {
			return newHistory().update("c1", 1).wait(2*time.Second).update("c2", 1).wait(5*time.Second).
				revert("c2", 0, 3).revert("c1", 0, 3), 0
		},
	}, {
		name:    "given up before the deadline",
		failure: deadline,
		build: func() (*history, int64) {
			return newHistory().update("c1", 1).wait(2*time.Second).update("c2", 1).wait(2*time.Second).
				revert("c2", 0, 3).revert("c1", 0, 3), 0
		},
		rules: []string{RuleDeadline},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, approval := tc.build()
			want := Expect{Image: img(1), Message: msg(1), Approvals: map[string]int64{img(1): approval, msg(1): approval}, Failure: tc.failure}
			var rules []string
			for _, v := range Check(testRollout, initial(), h.writes, want) {
				rules = append(rules, v.Rule)
				t.Log(v)
			}
			if !slices.Equal(rules, tc.rules) {
				t.Errorf("broken rules %q, want %q", rules, tc.rules)
			}
		})
	}
}

// TestCheckFailedImage: a bad version that changes only the image, its content left as it was.
func TestCheckFailedImage(t *testing.T) {
	imageOnly := func(h *history, c string) *history {
		return h.release(c, 2, "pending-upgrade").image(c, img(1)).release(c, 2, "deployed").done(c, img(1))
	}
	want := Expect{Image: img(1), Message: msg(0), Failure: &Failure{Stage: 1, Rollback: true, GoodImage: img(0), GoodMessage: msg(0)}}
	h := imageOnly(newHistory(), "c1").wait(2 * time.Second)
	h = imageOnly(h, "c2").revert("c2", 0, 3).revert("c1", 0, 3)
	for _, v := range Check(testRollout, initial(), h.writes, want) {
		t.Error(v)
	}
	h = imageOnly(imageOnly(h, "c3"), "c4")
	var rules []string
	for _, v := range Check(testRollout, initial(), h.writes, want) {
		rules = append(rules, v.Rule)
	}
	if !slices.Contains(rules, RuleFailedVersion) {
		t.Errorf("broken rules %q, want %q among them", rules, RuleFailedVersion)
	}
}

// TestPendingRollback: a trial whose version is rolled back waits for the stages that had it
// to be back, and for nothing else.
func TestPendingRollback(t *testing.T) {
	want := Expect{Image: img(1), Message: msg(1), Failure: &Failure{Stage: 1, Rollback: true, GoodImage: img(0), GoodMessage: msg(0)}}
	h := newHistory().update("c1", 1).update("c2", 1).revert("c2", 0, 3)
	if got := Pending(testRollout, initial(), h.writes, want); got != `c1 on image "app:1", want "app:0"` {
		t.Errorf("Pending = %q", got)
	}
	h.revert("c1", 0, 3)
	if got := Pending(testRollout, initial(), h.writes, want); got != "" {
		t.Errorf("Pending = %q once rolled back", got)
	}
}
