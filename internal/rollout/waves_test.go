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
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestMaxUpdate(t *testing.T) {
	for _, tc := range []struct {
		v     *intstr.IntOrString
		total int
		want  int
		err   bool
	}{
		{nil, 7, 0, false},
		{ptr(intstr.FromInt32(2)), 7, 2, false},
		{ptr(intstr.FromInt32(0)), 7, 0, true},
		{ptr(intstr.FromString("0%")), 7, 0, true},
		{ptr(intstr.FromString("0")), 7, 0, true},
		{ptr(intstr.FromString("10%")), 0, 0, false},
		{ptr(intstr.FromString("30%")), 7, 3, false},
		{ptr(intstr.FromString("10%")), 3, 1, false},
		{ptr(intstr.FromString("50%")), 4, 2, false},
		{ptr(intstr.FromString("50%")), 5, 3, false},
		{ptr(intstr.FromString("100%")), 5, 5, false},
		{ptr(intstr.FromString("3")), 9, 3, false},
		{ptr(intstr.FromString("many")), 9, 0, true},
		{ptr(intstr.FromInt32(-1)), 9, 0, true},
	} {
		got, err := MaxUpdate(tc.v, tc.total)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("MaxUpdate(%v, %d) = %d, %v; want %d (error %v)", tc.v, tc.total, got, err, tc.want, tc.err)
		}
	}
}

func TestPlanWave(t *testing.T) {
	p, u, d := Pending, Updating, Updated
	for _, tc := range []struct {
		name    string
		targets []Target
		limit   int
		want    Wave
		done    bool
	}{
		{"no limit starts everything", []Target{{"a", p, "", false}, {"b", p, "", false}, {"c", p, "", false}}, 0,
			Wave{Start: []string{"a", "b", "c"}}, false},
		{"limit one starts the first in order", []Target{{"a", p, "", false}, {"b", p, "", false}, {"c", p, "", false}}, 1,
			Wave{Start: []string{"a"}, Waiting: []string{"b", "c"}}, false},
		{"an updating cluster holds its slot", []Target{{"a", u, "", false}, {"b", p, "", false}, {"c", p, "", false}}, 1,
			Wave{Updating: []string{"a"}, Waiting: []string{"b", "c"}}, false},
		{"an updated cluster frees its slot", []Target{{"a", d, "", false}, {"b", p, "", false}, {"c", p, "", false}}, 1,
			Wave{Start: []string{"b"}, Updated: []string{"a"}, Waiting: []string{"c"}}, false},
		{"slots fill up to the limit", []Target{{"a", u, "", false}, {"b", p, "", false}, {"c", p, "", false}, {"d", p, "", false}}, 2,
			Wave{Start: []string{"b"}, Updating: []string{"a"}, Waiting: []string{"c", "d"}}, false},
		{"an unavailable pending cluster takes no slot", []Target{{"a", p, "paused", false}, {"b", p, "unreachable", false}, {"c", p, "", false}}, 1,
			Wave{Start: []string{"c"}, Skipped: []string{"a: paused", "b: unreachable"}}, false},
		{"an updating cluster that became unreachable keeps its slot", []Target{{"a", u, "unreachable", false}, {"b", p, "", false}}, 1,
			Wave{Updating: []string{"a"}, Held: []string{"a: unreachable"}, Waiting: []string{"b"}}, false},
		{"a paused updating cluster frees its slot", []Target{{"a", u, "paused", true}, {"b", p, "", false}}, 1,
			Wave{Start: []string{"b"}, Skipped: []string{"a: paused"}}, false},
		{"a paused pending cluster takes no slot", []Target{{"a", p, "paused", true}, {"b", p, "", false}}, 1,
			Wave{Start: []string{"b"}, Skipped: []string{"a: paused"}}, false},
		{"everything updated is done", []Target{{"a", d, "", false}, {"b", d, "", false}}, 1,
			Wave{Updated: []string{"a", "b"}}, true},
		{"an updated but unavailable cluster still counts as updated", []Target{{"a", d, "paused", false}}, 1,
			Wave{Updated: []string{"a"}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := PlanWave(tc.targets, tc.limit)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
			if got.Done() != tc.done {
				t.Errorf("Done() = %v, want %v", got.Done(), tc.done)
			}
		})
	}
}

func TestWaveCount(t *testing.T) {
	for _, tc := range []struct{ clusters, limit, want int }{
		{0, 0, 0}, {0, 2, 0}, {5, 0, 1}, {5, 1, 5}, {5, 2, 3}, {4, 2, 2}, {1, 3, 1},
	} {
		if got := WaveCount(tc.clusters, tc.limit); got != tc.want {
			t.Errorf("WaveCount(%d, %d) = %d, want %d", tc.clusters, tc.limit, got, tc.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }
