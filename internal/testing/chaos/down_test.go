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

// Package chaos judges crash trials. A Recorder follows the storage of a sandbox fleet (one etcd

package chaos

import (
	"testing"
	"time"
)

func TestCheckDown(t *testing.T) {
	want := Expect{Image: img(1), Message: msg(1)}
	// throughA is version 1 done in stage a and soaked.
	throughA := func() *history { return newHistory().update("c1", 1).wait(3 * time.Second) }
	cases := []struct {
		name string
		// build returns the records and the outage of c2 in them.
		build func() (*history, Outage)
		rule  bool
		// doneOnly: the rule is broken only if a done cluster that goes Down holds its stage.
		doneOnly bool
	}{
		{"slot held, stage waits", func() (*history, Outage) {
			h := throughA().release("c2", 2, "pending-upgrade")
			o := Outage{Rollout: "test", Cluster: "c2", From: h.rev}
			h.add(Write{Cluster: "mgmt"})
			o.To = h.rev
			h.message("c2", msg(1)).image("c2", img(1)).release("c2", 2, "deployed").done("c2", img(1)).update("c3", 1).update("c4", 1)
			return h, o
		}, false, false},
		{"another cluster takes the slot", func() (*history, Outage) {
			h := throughA().release("c2", 2, "pending-upgrade").message("c2", msg(1))
			o := Outage{Rollout: "test", Cluster: "c2", From: h.rev}
			h.update("c3", 1)
			o.To = h.rev
			return h, o
		}, true, false},
		{"the stage passes while a done cluster is Down", func() (*history, Outage) {
			h := throughA().update("c2", 1).update("c3", 1)
			o := Outage{Rollout: "test", Cluster: "c2", From: h.rev}
			h.update("c4", 1)
			o.To = h.rev + 10
			return h, o
		}, true, true},
		{"the next stage was decided before the status said Down", func() (*history, Outage) {
			h := throughA().update("c2", 1).update("c3", 1).decide("test-c", 1).decide("test-c", 2)
			o := Outage{Rollout: "test", Cluster: "c2", From: h.rev + 1}
			h.decide("test-c", 2).update("c4", 1)
			o.To = h.rev + 10
			return h, o
		}, false, false},
		{"the next stage is decided while a done cluster is Down", func() (*history, Outage) {
			h := throughA().update("c2", 1).update("c3", 1).decide("test-c", 1)
			o := Outage{Rollout: "test", Cluster: "c2", From: h.rev}
			h.decide("test-c", 2).update("c4", 1)
			o.To = h.rev + 10
			return h, o
		}, true, true},
		{"a cluster Down before its turn holds nothing", func() (*history, Outage) {
			h := throughA()
			o := Outage{Rollout: "test", Cluster: "c2", From: h.rev}
			h.update("c3", 1).update("c4", 1)
			o.To = h.rev
			h.update("c2", 1)
			return h, o
		}, false, false},
		{"the stage passes once the cluster is back", func() (*history, Outage) {
			h := throughA().update("c2", 1).update("c3", 1)
			o := Outage{Rollout: "test", Cluster: "c2", From: h.rev}
			h.add(Write{Cluster: "mgmt"})
			o.To = h.rev
			h.update("c4", 1)
			return h, o
		}, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, o := tc.build()
			got := CheckDown(testRollout, initial(), h.writes, want, []Outage{o, {Rollout: "other", Cluster: "c2", From: 0, To: 1 << 40}})
			if (len(got) > 0) != tc.rule {
				t.Fatalf("violations %v, want a %q one: %v", got, RuleDown, tc.rule)
			}
			// An update run counts a done cluster done for good: only one Down while updating
			// holds its stage.
			keeps := *testRollout
			keeps.KeepsDone = true
			got = CheckDown(&keeps, initial(), h.writes, want, []Outage{o})
			if wantKeeps := tc.rule && !tc.doneOnly; (len(got) > 0) != wantKeeps {
				t.Errorf("with KeepsDone: violations %v, want a %q one: %v", got, RuleDown, wantKeeps)
			}
			for _, v := range got {
				if v.Rule != RuleDown {
					t.Errorf("violation %v, want only %q ones", v, RuleDown)
				}
			}
		})
	}
}
