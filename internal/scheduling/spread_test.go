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

package scheduling

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

func zoned(zones ...string) []Member {
	out := []Member{}
	for i, z := range zones {
		m := Member{Name: "m" + string(rune('1'+i)), Labels: map[string]string{"size": "small"}, Joined: true}
		if z != "" {
			m.Labels["zone"] = z
		}
		out = append(out, m)
	}
	return out
}

func spreadOn(key string, maxSkew int32, when placementv1beta1.UnsatisfiableConstraintAction) placementv1beta1.TopologySpreadConstraint {
	return placementv1beta1.TopologySpreadConstraint{TopologyKey: key, MaxSkew: ptr.To(maxSkew), WhenUnsatisfiable: when}
}

const violated = "picking it would break the DoNotSchedule topology spread constraint on \"zone\" (maxSkew 1)"

// TestSpreadScores: Kubefleet's skew arithmetic, one constraint or several, for the next pick.
func TestSpreadScores(t *testing.T) {
	members := zoned("a", "a", "b", "c", "")
	all := []string{"m1", "m2", "m3", "m4", "m5"}
	for _, tc := range []struct {
		name        string
		constraints []placementv1beta1.TopologySpreadConstraint
		picked      []string
		scores      map[string]int32
		violations  map[string]string
	}{
		{name: "all domains equal: any pick raises the skew by one",
			constraints: []placementv1beta1.TopologySpreadConstraint{spreadOn("zone", 1, placementv1beta1.DoNotSchedule)},
			scores:      map[string]int32{"m1": -1, "m2": -1, "m3": -1, "m4": -1, "m5": 0}},
		{name: "a cluster without the label is neither scored nor ruled out",
			constraints: []placementv1beta1.TopologySpreadConstraint{spreadOn("zone", 1, placementv1beta1.DoNotSchedule)},
			picked:      []string{"m5"},
			scores:      map[string]int32{"m1": -1, "m2": -1, "m3": -1, "m4": -1}},
		{name: "a second pick in the fullest domain breaks maxSkew 1; the smallest domain is not unique, so no gain",
			constraints: []placementv1beta1.TopologySpreadConstraint{spreadOn("zone", 1, placementv1beta1.DoNotSchedule)},
			picked:      []string{"m1"},
			scores:      map[string]int32{"m3": 0, "m4": 0, "m5": 0},
			violations:  map[string]string{"m2": violated}},
		{name: "the only emptiest domain lowers the skew",
			constraints: []placementv1beta1.TopologySpreadConstraint{spreadOn("zone", 1, placementv1beta1.DoNotSchedule)},
			picked:      []string{"m1", "m3"},
			scores:      map[string]int32{"m4": 1, "m5": 0},
			violations:  map[string]string{"m2": violated}},
		{name: "maxSkew 2 allows a second cluster in a domain",
			constraints: []placementv1beta1.TopologySpreadConstraint{spreadOn("zone", 2, placementv1beta1.DoNotSchedule)},
			picked:      []string{"m1"},
			scores:      map[string]int32{"m2": -1, "m3": 0, "m4": 0, "m5": 0}},
		{name: "ScheduleAnyway costs 1000 instead of ruling out",
			constraints: []placementv1beta1.TopologySpreadConstraint{spreadOn("zone", 1, placementv1beta1.ScheduleAnyway)},
			picked:      []string{"m1"},
			scores:      map[string]int32{"m2": -1000, "m3": 0, "m4": 0, "m5": 0}},
		{name: "scores add up over constraints; a cluster ruled out is not scored by the others",
			constraints: []placementv1beta1.TopologySpreadConstraint{
				spreadOn("size", 1, placementv1beta1.ScheduleAnyway), spreadOn("zone", 1, placementv1beta1.DoNotSchedule)},
			picked:     []string{"m1"},
			scores:     map[string]int32{"m3": -1, "m4": -1, "m5": -1},
			violations: map[string]string{"m2": violated}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			picked := map[string]bool{}
			candidates := []string{}
			for _, n := range tc.picked {
				picked[n] = true
			}
			for _, n := range all {
				if !picked[n] {
					candidates = append(candidates, n)
				}
			}
			got := SpreadScores(tc.constraints, members, picked, candidates)
			if tc.violations == nil {
				tc.violations = map[string]string{}
			}
			if !reflect.DeepEqual(got.Scores, tc.scores) || !reflect.DeepEqual(got.Violations, tc.violations) {
				t.Errorf("got %v %v, want %v %v", got.Scores, got.Violations, tc.scores, tc.violations)
			}
		})
	}
}

// TestPickSpread: PickN with topology spread constraints picks one cluster at a time; the spread
// score outranks preferred affinity, and clusters picked before stay.
func TestPickSpread(t *testing.T) {
	doNot, anyway := placementv1beta1.DoNotSchedule, placementv1beta1.ScheduleAnyway
	policy := func(n int32, a *placementv1beta1.Affinity, c ...placementv1beta1.TopologySpreadConstraint) *placementv1beta1.PlacementPolicy {
		return &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickNPlacementType, NumberOfClusters: ptr.To(n),
			Affinity: a, TopologySpreadConstraints: c}
	}
	notJoined := func(ms []Member, i int) []Member { ms[i].Joined = false; return ms }
	for _, tc := range []struct {
		name    string
		policy  *placementv1beta1.PlacementPolicy
		members []Member
		current []string
		want    []string
		message string
		reasons map[string]string
	}{
		{name: "the seed's members spread over environments even when affinity prefers canary",
			policy:  policy(2, prefer(nil, 10, map[string]string{"environment": "canary"}), spreadOn("environment", 1, doNot)),
			members: seedMembers(), want: []string{"member1", "member2"},
			reasons: map[string]string{
				"member1": "Picked by the PickN policy with topology spread score -1 and affinity score 10",
				"member2": "Picked by the PickN policy with topology spread score 1 and affinity score 0",
				"member3": "Not Picked: the policy asks for 2 clusters and others rank first (affinity score 10)"}},
		{name: "without the constraint affinity picks both canaries",
			policy:  policy(2, prefer(nil, 10, map[string]string{"environment": "canary"})),
			members: seedMembers(), want: []string{"member1", "member3"}},
		{name: "three of four: one domain each, then the next",
			policy: policy(3, nil, spreadOn("zone", 1, doNot)), members: zoned("a", "a", "a", "b"),
			want: []string{"m1", "m2", "m4"}},
		{name: "DoNotSchedule leaves the policy short rather than break the skew",
			policy: policy(4, nil, spreadOn("zone", 1, doNot)), members: zoned("a", "a", "a", "b"),
			want:    []string{"m1", "m2", "m4"},
			message: "Picked 3 of the 4 clusters the policy asks for: 1 other matching clusters would break a DoNotSchedule topology spread constraint"},
		{name: "ScheduleAnyway picks them anyway",
			policy: policy(4, nil, spreadOn("zone", 1, anyway)), members: zoned("a", "a", "a", "b"),
			want: []string{"m1", "m2", "m3", "m4"}, message: "Picked the 4 clusters the policy asks for"},
		{name: "a domain with no pickable cluster still counts, as in Kubefleet",
			policy: policy(2, nil, spreadOn("zone", 1, doNot)), members: notJoined(zoned("a", "a", "b"), 2),
			want: []string{"m1"}},
		{name: "the spread score outranks affinity",
			policy:  policy(2, prefer(nil, 100, map[string]string{"zone": "a"}), spreadOn("zone", 2, doNot)),
			members: zoned("a", "a", "b"), want: []string{"m1", "m3"}},
		{name: "affinity decides between clusters that spread equally",
			policy:  policy(2, prefer(nil, 5, map[string]string{"zone": "c"}), spreadOn("zone", 1, doNot)),
			members: zoned("a", "b", "c"), want: []string{"m1", "m3"}},
		{name: "clusters picked before stay even if they no longer spread",
			policy:  policy(2, nil, spreadOn("zone", 1, doNot)),
			members: zoned("a", "a", "b"), current: []string{"m1", "m2"}, want: []string{"m1", "m2"}},
		{name: "scaling up adds to what is picked",
			policy:  policy(3, nil, spreadOn("zone", 1, doNot)),
			members: zoned("a", "a", "b", "b"), current: []string{"m2"}, want: []string{"m1", "m2", "m3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			current := map[string]bool{}
			for _, n := range tc.current {
				current[n] = true
			}
			got, err := Pick(tc.policy, tc.members, current)
			if err != nil {
				t.Fatal(err)
			}
			if names := got.PickedNames(); !reflect.DeepEqual(names, tc.want) {
				t.Errorf("picked %v, want %v", names, tc.want)
			}
			if tc.message != "" && got.Message != tc.message {
				t.Errorf("message %q, want %q", got.Message, tc.message)
			}
			for _, d := range append(got.Picked, got.Unpicked...) {
				if want, ok := tc.reasons[d.ClusterName]; ok && !strings.HasPrefix(d.Reason, want) {
					t.Errorf("%s: %q, want %q", d.ClusterName, d.Reason, want)
				}
			}
		})
	}
}
