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
	"cmp"
	"fmt"
	"slices"
	"strings"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// scheduleAnywayPenalty is what breaking a ScheduleAnyway constraint costs a cluster, as in
// Kubefleet: more than any skew change can bring back.
const scheduleAnywayPenalty = 1000

// Spread is how one more picked cluster would change the topology spread.
type Spread struct {
	// Scores: per cluster, the sum over the constraints of how much picking it lowers the
	// largest skew (+1 lowers, 0 keeps, -1 raises), minus 1000 for each ScheduleAnyway
	// constraint it would break. A cluster without a constraint's label scores 0 for it.
	Scores map[string]int32
	// Violations: per cluster, the first DoNotSchedule constraint it would break; such a
	// cluster cannot be picked.
	Violations map[string]string
}

// SpreadScores evaluates the constraints for picking one more of candidates, given the clusters
// picked already. Like Kubefleet's scheduler, every member with a constraint's label defines a
// topology domain, whether the policy could pick it or not, and a domain's count is the number
// of picked clusters in it.
func SpreadScores(constraints []placementv1beta1.TopologySpreadConstraint, members []Member, picked map[string]bool, candidates []string) Spread {
	out := Spread{Scores: map[string]int32{}, Violations: map[string]string{}}
	for _, name := range candidates {
		out.Scores[name] = 0
	}
	byName := map[string]Member{}
	for _, m := range members {
		byName[m.Name] = m
	}
	// DoNotSchedule constraints first, so that a cluster one of them rules out is not scored.
	ordered := slices.Clone(constraints)
	slices.SortStableFunc(ordered, func(a, b placementv1beta1.TopologySpreadConstraint) int {
		return cmpBool(a.WhenUnsatisfiable == placementv1beta1.ScheduleAnyway, b.WhenUnsatisfiable == placementv1beta1.ScheduleAnyway)
	})
	for _, c := range ordered {
		maxSkew := int32(1)
		if c.MaxSkew != nil {
			maxSkew = *c.MaxSkew
		}
		d := countDomains(members, picked, c.TopologyKey)
		for _, name := range candidates {
			if _, ruledOut := out.Violations[name]; ruledOut {
				continue
			}
			value, ok := byName[name].Labels[c.TopologyKey]
			if !ok {
				continue
			}
			violates, change := d.wouldViolate(d.counts[value], maxSkew)
			switch {
			case !violates:
				out.Scores[name] -= change
			case c.WhenUnsatisfiable == placementv1beta1.ScheduleAnyway:
				out.Scores[name] -= scheduleAnywayPenalty
			default:
				out.Violations[name] = fmt.Sprintf("picking it would break the DoNotSchedule topology spread constraint on %q (maxSkew %d)", c.TopologyKey, maxSkew)
				delete(out.Scores, name)
			}
		}
	}
	return out
}

// domains counts the picked clusters per value of a topology key.
type domains struct {
	counts map[string]int32
	// smallest, secondSmallest and largest of the counts; with two domains of equal count the
	// second smallest equals the smallest.
	smallest, secondSmallest, largest int32
}

func countDomains(members []Member, picked map[string]bool, key string) domains {
	d := domains{counts: map[string]int32{}}
	for _, m := range members {
		v, ok := m.Labels[key]
		if !ok {
			continue
		}
		if _, seen := d.counts[v]; !seen {
			d.counts[v] = 0 // a domain with no picked cluster counts too
		}
		if picked[m.Name] {
			d.counts[v]++
		}
	}
	sorted := make([]int32, 0, len(d.counts))
	for _, n := range d.counts {
		sorted = append(sorted, n)
	}
	slices.Sort(sorted)
	if len(sorted) > 0 {
		d.smallest, d.secondSmallest, d.largest = sorted[0], sorted[min(1, len(sorted)-1)], sorted[len(sorted)-1]
	}
	return d
}

// wouldViolate says whether one more picked cluster in a domain that has n would make the skew
// (largest minus smallest count) exceed maxSkew, and by how much it changes the skew.
func (d domains) wouldViolate(n, maxSkew int32) (bool, int32) {
	skew := d.largest - d.smallest
	switch {
	case d.largest == d.smallest:
		return skew+1 > maxSkew, 1
	case n == d.smallest && d.smallest != d.secondSmallest:
		return skew-1 > maxSkew, -1
	case n == d.largest:
		return skew+1 > maxSkew, 1
	default:
		return skew > maxSkew, 0
	}
}

// pickSpread picks up to want of the candidates (already scored by affinity) one at a time, as
// Kubefleet's scheduler does when a policy has topology spread constraints: clusters picked
// before are kept first; then each step rules out the clusters that would break a DoNotSchedule
// constraint and takes the best by spread score, then affinity score, then name.
func pickSpread(constraints []placementv1beta1.TopologySpreadConstraint, members []Member, candidates []scored, want int) (picked, rest []scored, why map[string]string) {
	slices.SortFunc(candidates, func(a, b scored) int {
		return cmp.Or(-cmpBool(a.current, b.current), cmp.Compare(b.score, a.score), strings.Compare(a.Name, b.Name))
	})
	chosen := map[string]bool{}
	for len(candidates) > 0 && len(picked) < want && candidates[0].current {
		picked = append(picked, candidates[0])
		chosen[candidates[0].Name] = true
		candidates = candidates[1:]
	}
	for {
		names := make([]string, 0, len(candidates))
		for _, c := range candidates {
			names = append(names, c.Name)
		}
		s := SpreadScores(constraints, members, chosen, names)
		if len(picked) >= want {
			return picked, candidates, s.Violations
		}
		best := -1
		for i, c := range candidates {
			if _, out := s.Violations[c.Name]; out {
				continue
			}
			candidates[i].spread = s.Scores[c.Name]
			if best < 0 || better(candidates[i], candidates[best]) {
				best = i
			}
		}
		if best < 0 {
			return picked, candidates, s.Violations
		}
		picked = append(picked, candidates[best])
		chosen[candidates[best].Name] = true
		candidates = slices.Delete(candidates, best, best+1)
	}
}

// better ranks as Kubefleet does: spread score, then affinity score; then, in Stagecoach, name.
func better(a, b scored) bool {
	return cmp.Or(cmp.Compare(a.spread, b.spread), cmp.Compare(a.score, b.score), strings.Compare(b.Name, a.Name)) > 0
}
