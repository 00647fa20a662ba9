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
	"testing"
	"time"
)

func TestTimeline(t *testing.T) {
	start := newHistory().at
	// Each write is 100ms after the one before; an update's image is its third write and its
	// Deployment is done at its fifth.
	h, _ := newHistory().update("c1", 1).wait(2*time.Second).update("c2", 1).update("c3", 1).approve()
	h.update("c4", 1)
	want := Expect{Image: img(1), Message: msg(1)}
	if got, exp := Timeline(testRollout, initial(), h.writes, want, start), "a 0.3–0.5, b 2.8–3.5, c 3.9–4.1 s"; got != exp {
		t.Errorf("good version: %q, want %q", got, exp)
	}

	h = newHistory().update("c1", 1).wait(2*time.Second).update("c2", 1).revert("c2", 0, 3).revert("c1", 0, 3)
	want.Failure = &Failure{Stage: 1, Rollback: true, GoodImage: img(0), GoodMessage: msg(0)}
	if got, exp := Timeline(testRollout, initial(), h.writes, want, start), "a 0.3–0.5, b 2.8–-; back: b 3.2–3.5, a 3.7–4.0 s"; got != exp {
		t.Errorf("rolled back: %q, want %q", got, exp)
	}
}
