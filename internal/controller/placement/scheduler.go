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

package placement

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// member is a MemberCluster as the scheduler sees it.
type member struct {
	name       string
	labels     map[string]string
	properties map[string]string
	// joined: the cluster answers (its Joined condition is True).
	joined   bool
	deleting bool
	taints   []clusterv1beta1.Taint
}

func memberOf(c *clusterv1beta1.MemberCluster) member {
	m := member{
		name:     c.Name,
		labels:   c.Labels,
		joined:   meta.IsStatusConditionTrue(c.Status.Conditions, string(clusterv1beta1.ConditionTypeMemberClusterJoined)),
		deleting: !c.DeletionTimestamp.IsZero(),
		taints:   c.Spec.Taints,
	}
	if len(c.Status.Properties) > 0 {
		m.properties = map[string]string{}
		for k, v := range c.Status.Properties {
			m.properties[string(k)] = v.Value
		}
	}
	return m
}

// scheduleResult is the outcome of picking clusters for a policy.
type scheduleResult struct {
	// picked are the chosen clusters, by name.
	picked []placementv1beta1.ClusterDecision
	// unpicked are clusters the policy names or considered but did not pick, with why.
	unpicked []placementv1beta1.ClusterDecision
	// satisfied: the policy got every cluster it asks for.
	satisfied bool
	// shortfall is, for PickN, how many clusters are missing.
	shortfall int
	message   string
}

func (s scheduleResult) pickedNames() []string {
	out := make([]string, 0, len(s.picked))
	for _, d := range s.picked {
		out = append(out, d.ClusterName)
	}
	return out
}

// pickClusters decides which members a policy picks. current names the clusters picked before.
//
// A cluster must have joined to be picked, but a picked cluster that stops answering stays
// picked while its MemberCluster exists and it still matches: removing it would withdraw nothing
// (it cannot be reached) and redeploy everything once it is back. For PickN, clusters picked
// before are kept first, so that a better cluster joining does not move workloads around; the
// rest are ranked by preferred-affinity weight, then name.
func pickClusters(policy *placementv1beta1.PlacementPolicy, members []member, current map[string]bool) (scheduleResult, error) {
	members = slices.Clone(members)
	slices.SortFunc(members, func(a, b member) int { return strings.Compare(a.name, b.name) })
	if policy.PlacementType == placementv1beta1.PickFixedPlacementType {
		return pickFixed(policy.ClusterNames, members, current), nil
	}
	required, err := compileTerms(requiredTerms(policy))
	if err != nil {
		return scheduleResult{}, fmt.Errorf("affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution: %w", err)
	}
	preferred := []weightedTerm{}
	if a := policy.Affinity; a != nil && a.ClusterAffinity != nil {
		for i, p := range a.ClusterAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			t, err := compileTerm(p.Preference)
			if err != nil {
				return scheduleResult{}, fmt.Errorf("affinity.clusterAffinity.preferredDuringSchedulingIgnoredDuringExecution[%d]: %w", i, err)
			}
			preferred = append(preferred, weightedTerm{term: t, weight: p.Weight})
		}
	}
	var candidates []scored
	var unpicked []placementv1beta1.ClusterDecision
	for _, m := range members {
		why := ""
		switch {
		case m.deleting:
			why = "the cluster is leaving the fleet"
		case !matchesAny(required, m):
			why = "the cluster does not match the required cluster affinity"
		case current[m.name]:
		case !m.joined:
			why = "the cluster has not joined the fleet (its Joined condition is not True)"
		case !tolerates(policy.Tolerations, m.taints):
			why = "the cluster has a taint the placement does not tolerate"
		}
		if why != "" {
			unpicked = append(unpicked, placementv1beta1.ClusterDecision{ClusterName: m.name, Reason: why})
			continue
		}
		score := int32(0)
		for _, p := range preferred {
			if p.term.matches(m) {
				score += p.weight
			}
		}
		candidates = append(candidates, scored{member: m, score: score, current: current[m.name]})
	}

	res := scheduleResult{satisfied: true}
	if policy.PlacementType != placementv1beta1.PickNPlacementType {
		for _, c := range candidates {
			res.picked = append(res.picked, placementv1beta1.ClusterDecision{ClusterName: c.name, Selected: true,
				Reason: "Picked by the PickAll policy: the cluster matches the required cluster affinity"})
		}
		res.unpicked = unpicked
		res.message = fmt.Sprintf("Picked all %d matching clusters", len(res.picked))
		return res, nil
	}

	want := 0
	if policy.NumberOfClusters != nil {
		want = int(*policy.NumberOfClusters)
	}
	slices.SortFunc(candidates, func(a, b scored) int {
		return cmp.Or(-cmpBool(a.current, b.current), cmp.Compare(b.score, a.score), strings.Compare(a.name, b.name))
	})
	for i, c := range candidates {
		if i >= want {
			unpicked = append(unpicked, placementv1beta1.ClusterDecision{ClusterName: c.name,
				Reason: fmt.Sprintf("Not picked: the policy asks for %d clusters and others rank first (score %d)", want, c.score)})
			continue
		}
		res.picked = append(res.picked, placementv1beta1.ClusterDecision{ClusterName: c.name, Selected: true,
			Reason: fmt.Sprintf("Picked by the PickN policy with score %d (preferred cluster affinity weights)", c.score)})
	}
	slices.SortFunc(res.picked, func(a, b placementv1beta1.ClusterDecision) int { return strings.Compare(a.ClusterName, b.ClusterName) })
	res.unpicked = unpicked
	res.shortfall = want - len(res.picked)
	res.satisfied = res.shortfall == 0
	if res.satisfied {
		res.message = fmt.Sprintf("Picked the %d clusters the policy asks for", want)
	} else {
		res.message = fmt.Sprintf("Picked %d of the %d clusters the policy asks for: only %d joined clusters match it",
			len(res.picked), want, len(candidates))
	}
	return res, nil
}

// pickFixed picks the named clusters that exist and have joined (or were picked before).
// Taints do not apply: naming a cluster is an explicit choice.
func pickFixed(names []string, members []member, current map[string]bool) scheduleResult {
	byName := map[string]member{}
	for _, m := range members {
		byName[m.name] = m
	}
	res := scheduleResult{}
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
		case m.deleting:
			why = "the cluster is leaving the fleet"
		case !m.joined && !current[n]:
			why = "the cluster has not joined the fleet (its Joined condition is not True)"
		}
		if why != "" {
			res.unpicked = append(res.unpicked, placementv1beta1.ClusterDecision{ClusterName: n, Reason: why})
			missing = append(missing, n+" ("+why+")")
			continue
		}
		res.picked = append(res.picked, placementv1beta1.ClusterDecision{ClusterName: n, Selected: true,
			Reason: "Picked by the PickFixed policy: the cluster is named in clusterNames"})
	}
	slices.SortFunc(res.picked, func(a, b placementv1beta1.ClusterDecision) int { return strings.Compare(a.ClusterName, b.ClusterName) })
	res.satisfied = len(missing) == 0
	if res.satisfied {
		res.message = fmt.Sprintf("Picked all %d clusters named in clusterNames", len(res.picked))
	} else {
		res.message = fmt.Sprintf("Picked %d of the %d clusters named in clusterNames; cannot pick %s",
			len(res.picked), len(seen), strings.Join(missing, ", "))
	}
	return res
}

type scored struct {
	member
	score   int32
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
