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
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

func TestDecideJoin(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		policy                string
		hasStage, stagePassed bool
		want                  JoinAction
	}{
		{"default waits, stage passed", "", true, true, JoinNextRun},
		{"default waits, stage ahead", "", true, false, JoinNextRun},
		{"NextRun waits", placementv1beta1.JoiningClustersNextRun, true, true, JoinNextRun},
		{"StageSnapshot, stage passed: at once", placementv1beta1.JoiningClustersStageSnapshot, true, true, JoinNow},
		{"StageSnapshot, stage ahead or under way: in the stage", placementv1beta1.JoiningClustersStageSnapshot, true, false, JoinStage},
		{"StageSnapshot, no stage: waits", placementv1beta1.JoiningClustersStageSnapshot, false, false, JoinNextRun},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := DecideJoin(tc.policy, tc.hasStage, tc.stagePassed); got != tc.want {
				t.Errorf("DecideJoin = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestStageOf(t *testing.T) {
	env := func(v string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: map[string]string{"env": v}}
	}
	stages := []placementv1beta1.StageConfig{{Name: "staging", LabelSelector: env("staging")}, {Name: "prod", LabelSelector: env("prod")},
		{Name: "none"}, {Name: "also-prod", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "prod"}}}}
	for _, tc := range []struct {
		name    string
		labels  map[string]string
		want    int
		wantErr bool
	}{
		{"first stage", map[string]string{"env": "staging"}, 0, false},
		{"second stage", map[string]string{"env": "prod"}, 1, false},
		{"no stage", map[string]string{"env": "dev"}, -1, false},
		{"two stages", map[string]string{"env": "prod", "tier": "prod"}, -1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := StageOf(stages, Member{Name: "m", Labels: tc.labels})
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("StageOf = %d, %v; want %d, error %t", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestRemaining(t *testing.T) {
	picked := func(n string) bool { return n != "gone" }
	kept, left := Remaining([]string{"a", "gone", "b"}, picked)
	if !slices.Equal(kept, []string{"a", "b"}) || !slices.Equal(left, []string{"gone"}) {
		t.Errorf("Remaining = %v, %v", kept, left)
	}
}
