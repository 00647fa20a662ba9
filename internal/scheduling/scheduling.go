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

// Package scheduling decides which member clusters a Kubefleet placement policy picks: PickAll,
// PickN (ranked by topology spread and preferred affinity) and PickFixed, with required affinity, cluster properties
// and taints. It is pure: members and the policy in, decisions out.
package scheduling

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// Member is a MemberCluster as the scheduler sees it.
type Member struct {
	Name       string
	Labels     map[string]string
	Properties map[string]string
	// Joined: the cluster answers (its Joined condition is True).
	Joined   bool
	Deleting bool
	Taints   []clusterv1beta1.Taint
}

// MemberOf is how the scheduler sees a MemberCluster.
func MemberOf(c *clusterv1beta1.MemberCluster) Member {
	m := Member{
		Name:     c.Name,
		Labels:   c.Labels,
		Joined:   meta.IsStatusConditionTrue(c.Status.Conditions, string(clusterv1beta1.ConditionTypeMemberClusterJoined)),
		Deleting: !c.DeletionTimestamp.IsZero(),
		Taints:   c.Spec.Taints,
	}
	if len(c.Status.Properties) > 0 {
		m.Properties = map[string]string{}
		for k, v := range c.Status.Properties {
			m.Properties[string(k)] = v.Value
		}
	}
	return m
}

// Result is the outcome of picking clusters for a policy.
type Result struct {
	// Picked are the chosen clusters, by name.
	Picked []placementv1beta1.ClusterDecision
	// Unpicked are clusters the policy names or considered but did not pick, with why.
	Unpicked []placementv1beta1.ClusterDecision
	// Satisfied: the policy got every cluster it asks for.
	Satisfied bool
	// Shortfall is, for PickN, how many clusters are missing.
	Shortfall int
	// Message sums the decision up for the placement's status.
	Message string

	// spreadBlocked counts the clusters a DoNotSchedule topology spread constraint kept out.
	spreadBlocked int
}

// PickedNames returns the names of the picked clusters, in order.
func (s Result) PickedNames() []string {
	out := make([]string, 0, len(s.Picked))
	for _, d := range s.Picked {
		out = append(out, d.ClusterName)
	}
	return out
}

// Pick decides which members a policy picks. current names the clusters picked before.
//
// A cluster must have joined to be picked, but a picked cluster that stops answering stays
// picked while its MemberCluster exists and it still matches: removing it would withdraw nothing
// (it cannot be reached) and redeploy everything once it is back. For PickN, clusters picked
// before are kept first, so that a better cluster joining does not move workloads around; the
// rest are ranked by preferred-affinity weight, then name, or, with topology spread constraints,
// picked one at a time as pickSpread says.
func Pick(policy *placementv1beta1.PlacementPolicy, members []Member, current map[string]bool) (Result, error) {
	members = slices.Clone(members)
	slices.SortFunc(members, func(a, b Member) int { return strings.Compare(a.Name, b.Name) })
	if policy.PlacementType == placementv1beta1.PickFixedPlacementType {
		return pickFixed(policy.ClusterNames, members, current), nil
	}
	required, err := compileTerms(requiredTerms(policy))
	if err != nil {
		return Result{}, fmt.Errorf("affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution: %w", err)
	}
	preferred := []weightedTerm{}
	if a := policy.Affinity; a != nil && a.ClusterAffinity != nil {
		for i, p := range a.ClusterAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			t, err := compileTerm(p.Preference)
			if err != nil {
				return Result{}, fmt.Errorf("affinity.clusterAffinity.preferredDuringSchedulingIgnoredDuringExecution[%d]: %w", i, err)
			}
			preferred = append(preferred, weightedTerm{term: t, weight: p.Weight, sorter: p.Preference.PropertySorter})
		}
	}
	var candidates []scored
	var unpicked []placementv1beta1.ClusterDecision
	for _, m := range members {
		why := ""
		switch {
		case m.Deleting:
			why = "the cluster is leaving the fleet"
		case !matchesAny(required, m):
			why = "the cluster does not match the required cluster affinity"
		case current[m.Name]:
		case !m.Joined:
			why = "the cluster has not joined the fleet (its Joined condition is not True)"
		case !tolerates(policy.Tolerations, m.Taints):
			why = "the cluster has a taint the placement does not tolerate"
		}
		if why != "" {
			unpicked = append(unpicked, placementv1beta1.ClusterDecision{ClusterName: m.Name, Reason: why})
			continue
		}
		candidates = append(candidates, scored{Member: m, current: current[m.Name]})
	}
	for _, p := range preferred {
		for i, s := range p.scores(candidates) {
			candidates[i].score += s
		}
	}

	res := Result{Satisfied: true}
	if policy.PlacementType != placementv1beta1.PickNPlacementType {
		for _, c := range candidates {
			res.Picked = append(res.Picked, placementv1beta1.ClusterDecision{ClusterName: c.Name, Selected: true,
				Reason: "Picked by the PickAll policy: the cluster matches the required cluster affinity"})
		}
		res.Unpicked = unpicked
		res.Message = fmt.Sprintf("Picked all %d matching clusters", len(res.Picked))
		return res, nil
	}

	want := 0
	if policy.NumberOfClusters != nil {
		want = int(*policy.NumberOfClusters)
	}
	picked, more, blocked := pickN(policy, members, candidates, want)
	res.spreadBlocked = blocked
	unpicked = append(unpicked, more...)
	for _, d := range picked {
		if d.Selected {
			res.Picked = append(res.Picked, d)
		} else {
			unpicked = append(unpicked, d)
		}
	}
	slices.SortFunc(res.Picked, func(a, b placementv1beta1.ClusterDecision) int { return strings.Compare(a.ClusterName, b.ClusterName) })
	res.Unpicked = unpicked
	res.Shortfall = want - len(res.Picked)
	res.Satisfied = res.Shortfall == 0
	if res.Satisfied {
		res.Message = fmt.Sprintf("Picked the %d clusters the policy asks for", want)
	} else if res.spreadBlocked > 0 {
		res.Message = fmt.Sprintf("Picked %d of the %d clusters the policy asks for: %d other matching clusters would break a DoNotSchedule topology spread constraint",
			len(res.Picked), want, res.spreadBlocked)
	} else {
		res.Message = fmt.Sprintf("Picked %d of the %d clusters the policy asks for: only %d joined clusters match it",
			len(res.Picked), want, len(candidates))
	}
	return res, nil
}

// pickN picks want of the candidates: one at a time by topology spread, then affinity, when the
// policy has topology spread constraints (see pickSpread), else by affinity score. blocked
// counts the candidates a DoNotSchedule constraint kept out.
func pickN(policy *placementv1beta1.PlacementPolicy, members []Member, candidates []scored, want int) (picked, unpicked []placementv1beta1.ClusterDecision, blocked int) {
	if len(policy.TopologySpreadConstraints) == 0 {
		return pickByAffinity(candidates, want), nil, 0
	}
	chosen, rest, violations := pickSpread(policy.TopologySpreadConstraints, members, candidates, want)
	for _, c := range chosen {
		picked = append(picked, placementv1beta1.ClusterDecision{ClusterName: c.Name, Selected: true,
			Reason: fmt.Sprintf("Picked by the PickN policy with topology spread score %d and affinity score %d", c.spread, c.score)})
	}
	for _, c := range rest {
		why, ruledOut := violations[c.Name]
		if ruledOut {
			blocked++
		} else {
			why = fmt.Sprintf("the policy asks for %d clusters and others rank first (affinity score %d)", want, c.score)
		}
		unpicked = append(unpicked, placementv1beta1.ClusterDecision{ClusterName: c.Name, Reason: "Not Picked: " + why})
	}
	return picked, unpicked, blocked
}

// pickByAffinity ranks the candidates: those picked before first, then by preferred-affinity
// score, then name. The first want are picked; the decisions list the others too.
func pickByAffinity(candidates []scored, want int) []placementv1beta1.ClusterDecision {
	slices.SortFunc(candidates, func(a, b scored) int {
		return cmp.Or(-cmpBool(a.current, b.current), cmp.Compare(b.score, a.score), strings.Compare(a.Name, b.Name))
	})
	out := make([]placementv1beta1.ClusterDecision, 0, len(candidates))
	for i, c := range candidates {
		if i >= want {
			out = append(out, placementv1beta1.ClusterDecision{ClusterName: c.Name,
				Reason: fmt.Sprintf("Not Picked: the policy asks for %d clusters and others rank first (score %d)", want, c.score)})
			continue
		}
		out = append(out, placementv1beta1.ClusterDecision{ClusterName: c.Name, Selected: true,
			Reason: fmt.Sprintf("Picked by the PickN policy with score %d (preferred cluster affinity weights)", c.score)})
	}
	return out
}

// pickFixed picks the named clusters that exist and have joined (or were picked before).
// Taints do not apply: naming a cluster is an explicit choice.
func pickFixed(names []string, members []Member, current map[string]bool) Result {
	byName := map[string]Member{}
	for _, m := range members {
		byName[m.Name] = m
	}
	res := Result{}
	var missing []string
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		m, ok := byName[n]
		why := ""
		switch {
		case !ok:
			why = "no MemberCluster has this name"
		case m.Deleting:
			why = "the cluster is leaving the fleet"
		case !m.Joined && !current[n]:
			why = "the cluster has not joined the fleet (its Joined condition is not True)"
		}
		if why != "" {
			res.Unpicked = append(res.Unpicked, placementv1beta1.ClusterDecision{ClusterName: n, Reason: why})
			missing = append(missing, n+" ("+why+")")
			continue
		}
		res.Picked = append(res.Picked, placementv1beta1.ClusterDecision{ClusterName: n, Selected: true,
			Reason: "Picked by the PickFixed policy: the cluster is named in clusterNames"})
	}
	slices.SortFunc(res.Picked, func(a, b placementv1beta1.ClusterDecision) int { return strings.Compare(a.ClusterName, b.ClusterName) })
	res.Satisfied = len(missing) == 0
	if res.Satisfied {
		res.Message = fmt.Sprintf("Picked all %d clusters named in clusterNames", len(res.Picked))
	} else {
		res.Message = fmt.Sprintf("Picked %d of the %d clusters named in clusterNames; cannot pick %s",
			len(res.Picked), len(seen), strings.Join(missing, ", "))
	}
	return res
}

type scored struct {
	Member
	// score is the preferred affinity score; spread the topology spread score when picked.
	score   int32
	spread  int32
	current bool
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}
