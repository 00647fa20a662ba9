//go:build e2e

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
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// TestRollingUpdate: a RollingUpdate placement binds every cluster to the first snapshot, then
// moves them to a new snapshot one at a time (maxUnavailable 1), each once the previous one is
// available, and deletes the binding of a cluster it no longer picks.
func TestRollingUpdate(t *testing.T) {
	c := startController(t)
	namespace(t, c, "rolling-ns", map[string]string{"app-config": "v1"})
	p := crp("rolling", selectNamespace("rolling-ns"), nil, placementv1beta1.RollingUpdateRolloutStrategyType)
	p.Spec.Strategy.RollingUpdate = &placementv1beta1.RollingUpdateConfig{MaxUnavailable: ptr.To(intstr.FromInt32(1))}
	create(t, c, p)
	cleanUp(t, c, p)

	// on renders the bindings as "cluster=snapshot-index" plus "(waiting)" for those held back.
	on := func(bs map[string]*placementv1beta1.ClusterResourceBinding) string {
		var out []string
		for _, cl := range slices.Sorted(maps.Keys(bs)) {
			b := bs[cl]
			s := cl + "=" + strings.TrimSuffix(strings.TrimPrefix(b.Spec.ResourceSnapshotName, "rolling-"), "-snapshot")
			if cond := meta.FindStatusCondition(b.Status.Conditions, placementv1beta1.BindingRolloutStartedCondition); cond != nil &&
				cond.ObservedGeneration == b.Generation && cond.Status == metav1.ConditionFalse {
				s += "(waiting)"
			} else if cond == nil || cond.Status != metav1.ConditionTrue || cond.ObservedGeneration != b.Generation {
				s += "(?)"
			}
			out = append(out, s)
		}
		return strings.Join(out, " ")
	}
	expect := func(want string) {
		t.Helper()
		waitBindings(t, c, "rolling", func(bs map[string]*placementv1beta1.ClusterResourceBinding) error {
			if got := on(bs); got != want {
				return fmt.Errorf("bindings %s, want %s", got, want)
			}
			return nil
		})
	}
	available := func(index string, clusters int) {
		t.Helper()
		waitCRP(t, c, "rolling", func(p *placementv1beta1.ClusterResourcePlacement) error {
			if err := conditionIs(p.Status.Conditions, "ClusterResourcePlacementAvailable", metav1.ConditionTrue, "", p.Generation); err != nil {
				return err
			}
			if p.Status.ObservedResourceIndex != index || len(p.Status.PerClusterPlacementStatuses) != clusters {
				return fmt.Errorf("index %q, %d clusters", p.Status.ObservedResourceIndex, len(p.Status.PerClusterPlacementStatuses))
			}
			return nil
		})
	}

	// The first rollout binds everything at once: no cluster had anything to lose.
	expect("member1=0 member2=0 member3=0")
	bs, _ := crbs(t.Context(), c, "rolling")
	if as := bs["member1"].Spec.ApplyStrategy; as == nil || as.Type != placementv1beta1.ApplyStrategyTypeClientSideApply {
		t.Errorf("apply strategy %+v", as)
	}
	waitCRP(t, c, "rolling", func(p *placementv1beta1.ClusterResourcePlacement) error {
		return conditionIs(p.Status.Conditions, "ClusterResourcePlacementApplied", metav1.ConditionUnknown, "", p.Generation)
	})
	for _, cl := range members {
		markAvailable(t, c, "rolling", cl)
	}
	available("0", 3)

	editConfigMap(t, c, "rolling-ns", "app-config", "v2")
	expect("member1=1 member2=0(waiting) member3=0(waiting)")
	markAvailable(t, c, "rolling", "member1")
	expect("member1=1 member2=1 member3=0(waiting)")
	markAvailable(t, c, "rolling", "member2")
	expect("member1=1 member2=1 member3=1")
	markAvailable(t, c, "rolling", "member3")
	available("1", 3)

	// member2 is no longer picked: its binding goes (its finalizer would withdraw the resources).
	// The others stay on index 1.
	updateCRP(t, c, "rolling", func(p *placementv1beta1.ClusterResourcePlacement) {
		p.Spec.Policy = &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickAllPlacementType}
		p.Spec.Policy.Affinity = &placementv1beta1.Affinity{ClusterAffinity: &placementv1beta1.ClusterAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &placementv1beta1.ClusterSelector{ClusterSelectorTerms: []placementv1beta1.ClusterSelectorTerm{
				{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"environment": "canary"}}},
			}},
		}}
	})
	expect("member1=1 member3=1")
	// The bindings now name the new policy snapshot, a new generation the binding controller
	// reports on again.
	markAvailable(t, c, "rolling", "member1")
	markAvailable(t, c, "rolling", "member3")
	available("1", 2)
}
