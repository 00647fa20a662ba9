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
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// term is a compiled ClusterSelectorTerm: a cluster matches when both its labels and its
// properties do.
type term struct {
	labels     labels.Selector
	properties []placementv1beta1.PropertySelectorRequirement
}

type weightedTerm struct {
	term   term
	weight int32
	// sorter, when set, scales the weight by where a cluster's property lies between the
	// lowest and the highest of the matching clusters.
	sorter *placementv1beta1.PropertySorter
}

// scores returns what the term adds to each candidate's score. Without a sorter a matching
// cluster gets the whole weight. With one, as in Kubefleet, the matching clusters that report the
// property share it in proportion: with Descending the highest value gets the whole weight and
// the lowest none, with Ascending the other way round; when all values are equal every one gets
// the whole weight. A cluster that does not report the property gets nothing.
func (w weightedTerm) scores(candidates []scored) []int32 {
	out := make([]int32, len(candidates))
	values := make([]float64, len(candidates))
	reports := make([]bool, len(candidates))
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, c := range candidates {
		if !w.term.matches(c.Member) {
			continue
		}
		if w.sorter == nil {
			out[i] = w.weight
			continue
		}
		q, err := resource.ParseQuantity(c.Properties[w.sorter.Name])
		if err != nil {
			continue
		}
		values[i], reports[i] = q.AsApproximateFloat64(), true
		lo, hi = min(lo, values[i]), max(hi, values[i])
	}
	for i := range candidates {
		switch {
		case !reports[i]:
		case hi == lo:
			out[i] = w.weight
		case w.sorter.SortOrder == placementv1beta1.Descending:
			out[i] = int32(float64(w.weight) * (values[i] - lo) / (hi - lo))
		default:
			out[i] = int32(float64(w.weight) * (hi - values[i]) / (hi - lo))
		}
	}
	return out
}

func requiredTerms(policy *placementv1beta1.PlacementPolicy) []placementv1beta1.ClusterSelectorTerm {
	if a := policy.Affinity; a != nil && a.ClusterAffinity != nil && a.ClusterAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		return a.ClusterAffinity.RequiredDuringSchedulingIgnoredDuringExecution.ClusterSelectorTerms
	}
	return nil
}

func compileTerms(terms []placementv1beta1.ClusterSelectorTerm) ([]term, error) {
	out := make([]term, 0, len(terms))
	for i, t := range terms {
		if t.PropertySorter != nil {
			return nil, fmt.Errorf("clusterSelectorTerms[%d]: propertySorter ranks clusters and belongs in preferred terms only", i)
		}
		c, err := compileTerm(t)
		if err != nil {
			return nil, fmt.Errorf("clusterSelectorTerms[%d]: %w", i, err)
		}
		out = append(out, c)
	}
	return out, nil
}

func compileTerm(t placementv1beta1.ClusterSelectorTerm) (term, error) {
	c := term{labels: labels.Everything()}
	if t.LabelSelector != nil {
		s, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
		if err != nil {
			return term{}, fmt.Errorf("labelSelector: %w", err)
		}
		c.labels = s
	}
	if t.PropertySelector != nil {
		for _, req := range t.PropertySelector.MatchExpressions {
			if len(req.Values) != 1 {
				return term{}, fmt.Errorf("propertySelector %s: give exactly one value", req.Name)
			}
			if _, err := resource.ParseQuantity(req.Values[0]); err != nil {
				return term{}, fmt.Errorf("propertySelector %s: value %q is not a quantity", req.Name, req.Values[0])
			}
		}
		c.properties = t.PropertySelector.MatchExpressions
	}
	return c, nil
}

// matchesAny reports whether m matches one of the terms; no terms match everything.
func matchesAny(terms []term, m Member) bool {
	if len(terms) == 0 {
		return true
	}
	for _, t := range terms {
		if t.matches(m) {
			return true
		}
	}
	return false
}

func (t term) matches(m Member) bool {
	if !t.labels.Matches(labels.Set(m.Labels)) {
		return false
	}
	for _, req := range t.properties {
		have, err := resource.ParseQuantity(m.Properties[req.Name])
		if err != nil {
			return false // the cluster does not report the property
		}
		c := have.Cmp(resource.MustParse(req.Values[0]))
		ok := map[placementv1beta1.PropertySelectorOperator]bool{
			placementv1beta1.PropertySelectorGreaterThan:          c > 0,
			placementv1beta1.PropertySelectorGreaterThanOrEqualTo: c >= 0,
			placementv1beta1.PropertySelectorEqualTo:              c == 0,
			placementv1beta1.PropertySelectorNotEqualTo:           c != 0,
			placementv1beta1.PropertySelectorLessThan:             c < 0,
			placementv1beta1.PropertySelectorLessThanOrEqualTo:    c <= 0,
		}[req.Operator]
		if !ok {
			return false
		}
	}
	return true
}

// tolerates reports whether every NoSchedule taint of a cluster is tolerated.
func tolerates(tolerations []placementv1beta1.Toleration, taints []clusterv1beta1.Taint) bool {
	for _, taint := range taints {
		if taint.Effect != corev1.TaintEffectNoSchedule {
			continue
		}
		if !slices.ContainsFunc(tolerations, func(t placementv1beta1.Toleration) bool { return toleratesTaint(t, taint) }) {
			return false
		}
	}
	return true
}

func toleratesTaint(t placementv1beta1.Toleration, taint clusterv1beta1.Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Operator == corev1.TolerationOpExists {
		return t.Key == "" || t.Key == taint.Key
	}
	return t.Key == taint.Key && t.Value == taint.Value
}
