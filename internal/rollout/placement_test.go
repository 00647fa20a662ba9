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
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestPlanPlacementRollout(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	scheduled := func(c string) PlacementBinding {
		return PlacementBinding{Cluster: c, State: PlacementBindingScheduled}
	}
	// bound: on the newest revision or an older one, available or not.
	bound := func(c string, latest, available bool) PlacementBinding {
		return PlacementBinding{Cluster: c, State: PlacementBindingBound, HasRevision: true, Latest: latest, Available: available}
	}
	unscheduled := func(c string, available bool) PlacementBinding {
		return PlacementBinding{Cluster: c, State: PlacementBindingUnscheduled, HasRevision: true, Available: available}
	}
	limits := func(target, maxUnavailable, maxSurge int) PlacementRollout {
		return PlacementRollout{Target: target, MaxUnavailable: maxUnavailable, MaxSurge: maxSurge, UnavailablePeriod: time.Minute, Now: now}
	}
	for _, tc := range []struct {
		name     string
		bindings []PlacementBinding
		limits   PlacementRollout
		bind     []string
		update   []string
		delete   []string
		waiting  int
		recheck  time.Duration
		done     bool
	}{
		{
			name:     "first rollout binds every picked cluster within the surge",
			bindings: []PlacementBinding{scheduled("c"), scheduled("a"), scheduled("b")},
			limits:   limits(3, 1, 1),
			bind:     []string{"a", "b", "c"},
		},
		{
			name:     "maxSurge caps the clusters holding resources",
			bindings: []PlacementBinding{bound("a", true, true), bound("b", true, true), scheduled("c"), scheduled("d")},
			limits:   limits(4, 1, 0),
			bind:     []string{"c", "d"},
		},
		{
			name:     "a new revision moves maxUnavailable clusters at a time",
			bindings: []PlacementBinding{bound("a", false, true), bound("b", false, true), bound("c", false, true)},
			limits:   limits(3, 1, 1),
			update:   []string{"a"},
			waiting:  2,
		},
		{
			name:     "the next cluster waits until the updated one is available",
			bindings: []PlacementBinding{bound("a", true, false), bound("b", false, true), bound("c", false, true)},
			limits:   limits(3, 1, 1),
			waiting:  2,
		},
		{
			name:     "once available, the next cluster moves",
			bindings: []PlacementBinding{bound("a", true, true), bound("b", false, true), bound("c", false, true)},
			limits:   limits(3, 1, 1),
			update:   []string{"b"},
			waiting:  1,
		},
		{
			name:     "clusters already unavailable move without using the budget",
			bindings: []PlacementBinding{bound("a", false, false), bound("b", false, true), bound("c", false, true)},
			limits:   limits(3, 1, 1),
			update:   []string{"a"},
			waiting:  2,
		},
		{
			name:     "maxUnavailable 0 holds in-place updates",
			bindings: []PlacementBinding{bound("a", false, true), bound("b", false, true)},
			limits:   limits(2, 0, 1),
			waiting:  2,
		},
		{
			name:     "done when every cluster runs the newest revision, available",
			bindings: []PlacementBinding{bound("a", true, true), bound("b", true, true)},
			limits:   limits(2, 1, 1),
			done:     true,
		},
		{
			name:     "not done while a cluster is not available yet",
			bindings: []PlacementBinding{bound("a", true, true), bound("b", true, false)},
			limits:   limits(2, 1, 1),
		},
		{
			name:     "an unscheduled cluster that is not available goes at once",
			bindings: []PlacementBinding{bound("a", true, true), unscheduled("b", false)},
			limits:   limits(1, 0, 0),
			delete:   []string{"b"},
		},
		{
			name:     "surge: the replacement is bound first, the old cluster stays while it is needed",
			bindings: []PlacementBinding{unscheduled("a", true), scheduled("b")},
			limits:   limits(1, 0, 1),
			bind:     []string{"b"},
			waiting:  1,
		},
		{
			name:     "surge: the old cluster goes once the replacement is available",
			bindings: []PlacementBinding{unscheduled("a", true), bound("b", true, true)},
			limits:   limits(1, 0, 1),
			delete:   []string{"a"},
		},
		{
			name:     "a binding being deleted is neither deleted again nor done",
			bindings: []PlacementBinding{{Cluster: "a", State: PlacementBindingUnscheduled, HasRevision: true, Deleting: true}, bound("b", true, true)},
			limits:   limits(1, 0, 1),
		},
		{
			name:     "zero picked clusters withdraws everything",
			bindings: []PlacementBinding{unscheduled("a", true), unscheduled("b", true)},
			limits:   limits(0, 0, 0),
			delete:   []string{"a", "b"},
		},
		{
			name: "untrackable resources count as available after the unavailable period",
			bindings: []PlacementBinding{
				{Cluster: "a", State: PlacementBindingBound, HasRevision: true, Latest: true, Available: true, Untrackable: true, AvailableSince: now.Add(-20 * time.Second)},
				bound("b", false, true),
			},
			limits:  limits(2, 1, 1),
			waiting: 1,
			recheck: 40 * time.Second,
		},
		{
			name: "untrackable resources available long enough",
			bindings: []PlacementBinding{
				{Cluster: "a", State: PlacementBindingBound, HasRevision: true, Latest: true, Available: true, Untrackable: true, AvailableSince: now.Add(-2 * time.Minute)},
				bound("b", false, true),
			},
			limits: limits(2, 1, 1),
			update: []string{"b"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := PlanPlacementRollout(tc.bindings, tc.limits)
			check := func(what string, got, want []string) {
				t.Helper()
				if len(got) == 0 && len(want) == 0 {
					return
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: %v, want %v", what, got, want)
				}
			}
			check("bind", got.Bind, tc.bind)
			check("update", got.Update, tc.update)
			check("delete", got.Delete, tc.delete)
			if len(got.Waiting) != tc.waiting {
				t.Errorf("waiting: %v, want %d", got.Waiting, tc.waiting)
			}
			for _, w := range got.Waiting {
				if !strings.Contains(w, ": max") {
					t.Errorf("waiting entry %q does not say why", w)
				}
			}
			if got.RecheckAfter != tc.recheck {
				t.Errorf("recheckAfter: %s, want %s", got.RecheckAfter, tc.recheck)
			}
			if got.Done != tc.done {
				t.Errorf("done: %v, want %v", got.Done, tc.done)
			}
		})
	}
}

func TestPlacementLimit(t *testing.T) {
	for _, tc := range []struct {
		v     *intstr.IntOrString
		total int
		want  int
		err   bool
	}{
		{nil, 3, 1, false}, // 25% of 3, rounded up
		{nil, 8, 2, false},
		{nil, 0, 0, false},
		{limitOf(intstr.FromInt32(2)), 3, 2, false},
		{limitOf(intstr.FromInt32(0)), 3, 0, false},
		{limitOf(intstr.FromString("50%")), 3, 2, false},
		{limitOf(intstr.FromString("100%")), 3, 3, false},
		{limitOf(intstr.FromString("many")), 3, 0, true},
		{limitOf(intstr.FromInt32(-1)), 3, 0, true},
	} {
		got, err := PlacementLimit(tc.v, tc.total, "25%")
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("PlacementLimit(%v, %d) = %d, %v; want %d, error %v", tc.v, tc.total, got, err, tc.want, tc.err)
		}
	}
}

// limitOf returns a pointer to v; the package's other tests keep their own helpers.
func limitOf(v intstr.IntOrString) *intstr.IntOrString { return &v }
