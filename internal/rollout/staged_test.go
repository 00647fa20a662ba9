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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// seed004Members are the three member clusters of the Kubefleet staged update walkthrough.
var seed004Members = []Member{
	{Name: "member1", Labels: map[string]string{"environment": "canary", "order": "2"}},
	{Name: "member2", Labels: map[string]string{"environment": "staging"}},
	{Name: "member3", Labels: map[string]string{"environment": "canary", "order": "1"}},
}

func stageConfig(name string, match map[string]string, sortKey string) placementv1beta1.StageConfig {
	st := placementv1beta1.StageConfig{Name: name}
	if match != nil {
		st.LabelSelector = &metav1.LabelSelector{MatchLabels: match}
	}
	if sortKey != "" {
		st.SortingLabelKey = &sortKey
	}
	return st
}

func TestPlanStages(t *testing.T) {
	seedStrategy := []placementv1beta1.StageConfig{
		stageConfig("staging", map[string]string{"environment": "staging"}, ""),
		stageConfig("canary", map[string]string{"environment": "canary"}, "order"),
	}
	tests := []struct {
		name    string
		stages  []placementv1beta1.StageConfig
		members []Member
		want    []StagePlan
		wantErr string
	}{{
		name:    "seed 004: member3 before member1 by the order label",
		stages:  seedStrategy,
		members: seed004Members,
		want:    []StagePlan{{Name: "staging", Clusters: []string{"member2"}}, {Name: "canary", Clusters: []string{"member3", "member1"}}},
	}, {
		name:    "no sorting key: by name",
		stages:  []placementv1beta1.StageConfig{stageConfig("all", map[string]string{}, "")},
		members: seed004Members,
		want:    []StagePlan{{Name: "all", Clusters: []string{"member1", "member2", "member3"}}},
	}, {
		name: "members without the sorting label come last, by name",
		stages: []placementv1beta1.StageConfig{
			stageConfig("all", map[string]string{}, "order"),
		},
		members: seed004Members,
		want:    []StagePlan{{Name: "all", Clusters: []string{"member3", "member1", "member2"}}},
	}, {
		name: "an empty stage is kept",
		stages: []placementv1beta1.StageConfig{
			stageConfig("none", map[string]string{"environment": "prod"}, ""),
			stageConfig("all", map[string]string{}, ""),
		},
		members: seed004Members[:1],
		want:    []StagePlan{{Name: "none"}, {Name: "all", Clusters: []string{"member1"}}},
	}, {
		name:    "a nil selector selects nothing",
		stages:  []placementv1beta1.StageConfig{stageConfig("nil", nil, ""), stageConfig("all", map[string]string{}, "")},
		members: seed004Members[:1],
		want:    []StagePlan{{Name: "nil"}, {Name: "all", Clusters: []string{"member1"}}},
	}, {
		name:    "a cluster in two stages",
		stages:  []placementv1beta1.StageConfig{stageConfig("a", map[string]string{}, ""), stageConfig("b", map[string]string{"environment": "staging"}, "")},
		members: seed004Members,
		wantErr: "cluster member2 is selected by both stage a and stage b",
	}, {
		name:    "clusters in no stage",
		stages:  seedStrategy[:1],
		members: seed004Members,
		wantErr: "2 clusters are in no stage of the strategy: member1, member3",
	}, {
		name:   "a sorting label that is not a number",
		stages: seedStrategy,
		members: []Member{
			{Name: "member1", Labels: map[string]string{"environment": "canary", "order": "first"}},
		},
		wantErr: `stage canary: the sorting label order="first" on cluster member1 is not an integer`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PlanStages(tc.stages, tc.members)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestMaxConcurrency(t *testing.T) {
	tests := []struct {
		in      *intstr.IntOrString
		total   int
		want    int
		wantErr bool
	}{
		{nil, 3, 1, false},
		{ptrTo(intstr.FromInt32(10)), 3, 10, false},
		{ptrTo(intstr.FromString("50%")), 3, 1, false},
		{ptrTo(intstr.FromString("70%")), 3, 2, false},
		{ptrTo(intstr.FromString("10%")), 3, 1, false},
		{ptrTo(intstr.FromString("100%")), 4, 4, false},
		{ptrTo(intstr.FromInt32(0)), 3, 0, true},
		{ptrTo(intstr.FromString("0%")), 3, 0, true},
		{ptrTo(intstr.FromString("150%")), 3, 0, true},
		{ptrTo(intstr.FromString("lots")), 3, 0, true},
	}
	for _, tc := range tests {
		got, err := MaxConcurrency(tc.in, tc.total)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("MaxConcurrency(%v, %d) = %d, %v; want %d (error %v)", tc.in, tc.total, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestDecideAfterStageTasks(t *testing.T) {
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		tasks AfterStageTasks
		now   time.Time
		want  TasksDecision
	}{{
		name: "no tasks: done",
		now:  start,
		want: TasksDecision{Done: true},
	}, {
		name:  "wait running: requeue at its end, counted from the end of the second it started in",
		tasks: AfterStageTasks{WaitingSince: start, WaitTimes: []time.Duration{time.Minute}},
		now:   start.Add(20 * time.Second),
		want:  TasksDecision{WaitsElapsed: []bool{false}, RequeueAt: start.Add(time.Minute + time.Second)},
	}, {
		name:  "a stored time is truncated to the second: the wait is never cut short",
		tasks: AfterStageTasks{WaitingSince: start.Add(300 * time.Millisecond).Truncate(time.Second), WaitTimes: []time.Duration{time.Minute}},
		now:   start.Add(time.Minute + 900*time.Millisecond),
		want:  TasksDecision{WaitsElapsed: []bool{false}, RequeueAt: start.Add(time.Minute + time.Second)},
	}, {
		name:  "wait over",
		tasks: AfterStageTasks{WaitingSince: start, WaitTimes: []time.Duration{time.Minute}},
		now:   start.Add(time.Minute + time.Second),
		want:  TasksDecision{WaitsElapsed: []bool{true}, Done: true},
	}, {
		name:  "approved during the wait: still waiting, and the wait goes on by itself",
		tasks: AfterStageTasks{WaitingSince: start, WaitTimes: []time.Duration{time.Minute}, Approvals: []bool{true}},
		now:   start.Add(time.Second),
		want:  TasksDecision{WaitsElapsed: []bool{false}, RequeueAt: start.Add(time.Minute + time.Second)},
	}, {
		name:  "wait over, not approved: waits for the approval only",
		tasks: AfterStageTasks{WaitingSince: start, WaitTimes: []time.Duration{time.Minute}, Approvals: []bool{false}},
		now:   start.Add(2 * time.Minute),
		want:  TasksDecision{WaitsElapsed: []bool{true}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := DecideAfterStageTasks(tc.tasks, tc.now); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func ptrTo[T any](v T) *T { return &v }
