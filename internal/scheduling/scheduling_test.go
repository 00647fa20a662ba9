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
	"fmt"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// seedMembers are seed 004's three members, all joined.
func seedMembers() []Member {
	return []Member{
		{Name: "member1", Labels: map[string]string{"environment": "canary", "order": "2"}, Joined: true},
		{Name: "member2", Labels: map[string]string{"environment": "staging"}, Joined: true},
		{Name: "member3", Labels: map[string]string{"environment": "canary", "order": "1"}, Joined: true},
	}
}

func requireLabels(match map[string]string) *placementv1beta1.Affinity {
	return &placementv1beta1.Affinity{ClusterAffinity: &placementv1beta1.ClusterAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &placementv1beta1.ClusterSelector{
			ClusterSelectorTerms: []placementv1beta1.ClusterSelectorTerm{{LabelSelector: &metav1.LabelSelector{MatchLabels: match}}},
		},
	}}
}

func prefer(a *placementv1beta1.Affinity, weight int32, match map[string]string) *placementv1beta1.Affinity {
	if a == nil {
		a = &placementv1beta1.Affinity{ClusterAffinity: &placementv1beta1.ClusterAffinity{}}
	}
	a.ClusterAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.ClusterAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
		placementv1beta1.PreferredClusterSelector{Weight: weight, Preference: placementv1beta1.ClusterSelectorTerm{
			LabelSelector: &metav1.LabelSelector{MatchLabels: match}}})
	return a
}

func TestPickClusters(t *testing.T) {
	pickAll := placementv1beta1.PickAllPlacementType
	pickN := func(n int32, a *placementv1beta1.Affinity) *placementv1beta1.PlacementPolicy {
		return &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickNPlacementType, NumberOfClusters: ptr.To(n), Affinity: a}
	}
	with := func(mutate func([]Member)) []Member {
		ms := seedMembers()
		mutate(ms)
		return ms
	}
	for _, tc := range []struct {
		name      string
		policy    *placementv1beta1.PlacementPolicy
		members   []Member
		current   []string
		want      []string
		satisfied bool
		shortfall int
		message   string
	}{
		{name: "PickAll picks every joined member", policy: &placementv1beta1.PlacementPolicy{PlacementType: pickAll},
			members: seedMembers(), want: []string{"member1", "member2", "member3"}, satisfied: true},
		{name: "PickAll with required affinity", policy: &placementv1beta1.PlacementPolicy{PlacementType: pickAll,
			Affinity: requireLabels(map[string]string{"environment": "canary"})},
			members: seedMembers(), want: []string{"member1", "member3"}, satisfied: true},
		{name: "a member that has not joined is not picked",
			policy:  &placementv1beta1.PlacementPolicy{PlacementType: pickAll},
			members: with(func(ms []Member) { ms[1].Joined = false }), want: []string{"member1", "member3"}, satisfied: true},
		{name: "a picked member that stops answering stays picked",
			policy:  &placementv1beta1.PlacementPolicy{PlacementType: pickAll},
			members: with(func(ms []Member) { ms[1].Joined = false }), current: []string{"member2"},
			want: []string{"member1", "member2", "member3"}, satisfied: true},
		{name: "a member leaving the fleet is dropped even if picked",
			policy:  &placementv1beta1.PlacementPolicy{PlacementType: pickAll},
			members: with(func(ms []Member) { ms[0].Deleting = true }), current: []string{"member1"},
			want: []string{"member2", "member3"}, satisfied: true},
		{name: "a picked member whose labels no longer match is dropped",
			policy:  &placementv1beta1.PlacementPolicy{PlacementType: pickAll, Affinity: requireLabels(map[string]string{"environment": "canary"})},
			members: with(func(ms []Member) { ms[0].Labels = map[string]string{"environment": "prod"} }), current: []string{"member1"},
			want: []string{"member3"}, satisfied: true},
		{name: "an untolerated taint keeps a new member out",
			policy: &placementv1beta1.PlacementPolicy{PlacementType: pickAll},
			members: with(func(ms []Member) {
				ms[2].Taints = []clusterv1beta1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
			}),
			want: []string{"member1", "member2"}, satisfied: true},
		{name: "a tolerated taint does not",
			policy: &placementv1beta1.PlacementPolicy{PlacementType: pickAll, Tolerations: []placementv1beta1.Toleration{
				{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "gpu"}}},
			members: with(func(ms []Member) {
				ms[2].Taints = []clusterv1beta1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
			}),
			want: []string{"member1", "member2", "member3"}, satisfied: true},
		{name: "PickN without preferences picks by name", policy: pickN(2, nil),
			members: seedMembers(), want: []string{"member1", "member2"}, satisfied: true,
			message: "Picked the 2 clusters the policy asks for"},
		{name: "PickN ranks by preferred weight, then name",
			policy:  pickN(2, prefer(prefer(nil, 10, map[string]string{"order": "1"}), 5, map[string]string{"environment": "staging"})),
			members: seedMembers(), want: []string{"member2", "member3"}, satisfied: true},
		{name: "PickN negative weights push clusters back",
			policy:  pickN(2, prefer(nil, -20, map[string]string{"environment": "canary"})),
			members: seedMembers(), want: []string{"member1", "member2"}, satisfied: true},
		{name: "PickN keeps the clusters it picked before",
			policy:  pickN(2, prefer(nil, 10, map[string]string{"order": "1"})),
			members: seedMembers(), current: []string{"member1", "member2"}, want: []string{"member1", "member2"}, satisfied: true},
		{name: "PickN scaling down keeps the best of those picked",
			policy:  pickN(1, prefer(nil, 10, map[string]string{"order": "1"})),
			members: seedMembers(), current: []string{"member2", "member3"}, want: []string{"member3"}, satisfied: true},
		{name: "PickN with required affinity and too few clusters",
			policy:  pickN(3, requireLabels(map[string]string{"environment": "canary"})),
			members: seedMembers(), want: []string{"member1", "member3"}, shortfall: 1,
			message: "Picked 2 of the 3 clusters the policy asks for: only 2 joined clusters match it"},
		{name: "PickN zero picks none", policy: pickN(0, nil), members: seedMembers(), satisfied: true},
		{name: "PickFixed picks the named members",
			policy:  &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickFixedPlacementType, ClusterNames: []string{"member3", "member1"}},
			members: seedMembers(), want: []string{"member1", "member3"}, satisfied: true},
		{name: "PickFixed reports what it cannot pick",
			policy: &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickFixedPlacementType,
				ClusterNames: []string{"member2", "ghost", "member1"}},
			members: with(func(ms []Member) { ms[0].Joined = false }), want: []string{"member2"},
			message: "Picked 1 of the 3 clusters named in clusterNames; cannot pick ghost (no MemberCluster has this name), " +
				"member1 (the cluster has not joined the fleet (its Joined condition is not True))"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			current := map[string]bool{}
			for _, c := range tc.current {
				current[c] = true
			}
			got, err := Pick(tc.policy, tc.members, current)
			if err != nil {
				t.Fatal(err)
			}
			if names := got.PickedNames(); !reflect.DeepEqual(names, tc.want) && (len(names) > 0 || len(tc.want) > 0) {
				t.Errorf("picked %v, want %v", names, tc.want)
			}
			for _, d := range got.Picked {
				if !d.Selected || d.Reason == "" {
					t.Errorf("decision %+v is not selected with a reason", d)
				}
			}
			if got.Satisfied != tc.satisfied || got.Shortfall != tc.shortfall {
				t.Errorf("satisfied %v shortfall %d, want %v %d (%s)", got.Satisfied, got.Shortfall, tc.satisfied, tc.shortfall, got.Message)
			}
			if tc.message != "" && got.Message != tc.message {
				t.Errorf("message %q\nwant    %q", got.Message, tc.message)
			}
		})
	}
}

func TestPickClustersProperties(t *testing.T) {
	members := seedMembers()
	members[0].Properties = map[string]string{"kubernetes-fleet.io/node-count": "5"}
	members[1].Properties = map[string]string{"kubernetes-fleet.io/node-count": "2"}
	policy := &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickAllPlacementType,
		Affinity: &placementv1beta1.Affinity{ClusterAffinity: &placementv1beta1.ClusterAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &placementv1beta1.ClusterSelector{ClusterSelectorTerms: []placementv1beta1.ClusterSelectorTerm{{
				PropertySelector: &placementv1beta1.PropertySelector{MatchExpressions: []placementv1beta1.PropertySelectorRequirement{
					{Name: "kubernetes-fleet.io/node-count", Operator: placementv1beta1.PropertySelectorGreaterThanOrEqualTo, Values: []string{"3"}}}},
			}}}}}}
	got, err := Pick(policy, members, nil)
	if err != nil {
		t.Fatal(err)
	}
	// member3 reports no node count, so it does not match.
	if names := got.PickedNames(); !reflect.DeepEqual(names, []string{"member1"}) {
		t.Errorf("picked %v", names)
	}
}

// TestPickClustersPropertySorter ranks clusters by a property: the weight is shared in
// proportion to where each value lies between the lowest and the highest.
func TestPickClustersPropertySorter(t *testing.T) {
	const nodes = "kubernetes-fleet.io/node-count"
	members := seedMembers()
	members[0].Properties = map[string]string{nodes: "10"}
	members[1].Properties = map[string]string{nodes: "2"}
	members[2].Properties = map[string]string{nodes: "4"}
	members = append(members, Member{Name: "member4", Joined: true}) // reports no node count
	for _, tc := range []struct {
		order  placementv1beta1.PropertySortOrder
		weight int32
		n      int32
		picked []string
		scores map[string]int32
	}{
		{order: placementv1beta1.Descending, weight: 80, n: 2, picked: []string{"member1", "member3"},
			scores: map[string]int32{"member1": 80, "member3": 20, "member2": 0, "member4": 0}},
		{order: placementv1beta1.Ascending, weight: 80, n: 2, picked: []string{"member2", "member3"},
			scores: map[string]int32{"member2": 80, "member3": 60, "member1": 0, "member4": 0}},
		{order: placementv1beta1.Descending, weight: -40, n: 1, picked: []string{"member2"},
			scores: map[string]int32{"member1": -40, "member3": -10, "member2": 0, "member4": 0}},
	} {
		t.Run(string(tc.order), func(t *testing.T) {
			policy := &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickNPlacementType, NumberOfClusters: ptr.To(tc.n),
				Affinity: &placementv1beta1.Affinity{ClusterAffinity: &placementv1beta1.ClusterAffinity{
					PreferredDuringSchedulingIgnoredDuringExecution: []placementv1beta1.PreferredClusterSelector{{Weight: tc.weight,
						Preference: placementv1beta1.ClusterSelectorTerm{PropertySorter: &placementv1beta1.PropertySorter{Name: nodes, SortOrder: tc.order}}}},
				}}}
			got, err := Pick(policy, members, nil)
			if err != nil {
				t.Fatal(err)
			}
			if names := got.PickedNames(); !reflect.DeepEqual(names, tc.picked) {
				t.Errorf("picked %v, want %v", names, tc.picked)
			}
			for _, d := range append(got.Picked, got.Unpicked...) {
				if want := fmt.Sprintf("score %d", tc.scores[d.ClusterName]); !strings.Contains(d.Reason, want) {
					t.Errorf("%s: %q, want %s", d.ClusterName, d.Reason, want)
				}
			}
		})
	}
}

// TestPickClustersRefused: what the scheduler does not support fails with the field's name.
func TestPickClustersRefused(t *testing.T) {
	for _, tc := range []struct {
		policy placementv1beta1.PlacementPolicy
		want   string
	}{
		{policy: placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickAllPlacementType,
			Affinity: &placementv1beta1.Affinity{ClusterAffinity: &placementv1beta1.ClusterAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &placementv1beta1.ClusterSelector{ClusterSelectorTerms: []placementv1beta1.ClusterSelectorTerm{{
					PropertySorter: &placementv1beta1.PropertySorter{Name: "n", SortOrder: placementv1beta1.Ascending}}}}}}},
			want: "clusterSelectorTerms[0]: propertySorter ranks clusters and belongs in preferred terms only"},
	} {
		if _, err := Pick(&tc.policy, seedMembers(), nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

func TestPickClustersInvalidAffinity(t *testing.T) {
	policy := &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickAllPlacementType,
		Affinity: &placementv1beta1.Affinity{ClusterAffinity: &placementv1beta1.ClusterAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &placementv1beta1.ClusterSelector{ClusterSelectorTerms: []placementv1beta1.ClusterSelectorTerm{{
				LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: "Near"}}},
			}}}}}}
	_, err := Pick(policy, seedMembers(), nil)
	if err == nil || !strings.Contains(err.Error(), "requiredDuringSchedulingIgnoredDuringExecution: clusterSelectorTerms[0]: labelSelector") {
		t.Errorf("error %v does not say which selector is wrong", err)
	}
}
