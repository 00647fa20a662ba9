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
	"context"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestPickN: PickN ranks by preferred affinity; scaling changes the count annotation, not the
// policy index; a cluster scaled away keeps an Unscheduled binding (External) that remembers its
// state and is restored when picked again; asking for more clusters than match is reported.
func TestPickN(t *testing.T) {
	c := startController(t)
	namespace(t, c, "pickn-ns", nil)
	affinity := &placementv1beta1.Affinity{ClusterAffinity: &placementv1beta1.ClusterAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []placementv1beta1.PreferredClusterSelector{
			{Weight: 10, Preference: placementv1beta1.ClusterSelectorTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"order": "1"}}}},
			{Weight: 5, Preference: placementv1beta1.ClusterSelectorTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"environment": "staging"}}}},
		},
	}}
	p := crp("pickn", selectNamespace("pickn-ns"), &placementv1beta1.PlacementPolicy{
		PlacementType: placementv1beta1.PickNPlacementType, NumberOfClusters: ptr.To[int32](2), Affinity: affinity,
	}, placementv1beta1.ExternalRolloutStrategyType)
	create(t, c, p)
	cleanUp(t, c, p)
	expect := func(want string) {
		t.Helper()
		waitBindings(t, c, "pickn", func(bs map[string]*placementv1beta1.ClusterResourceBinding) error {
			if got := states(bs); got != want {
				return fmt.Errorf("bindings %s, want %s", got, want)
			}
			return nil
		})
	}
	policyAnnotation := func(want string) {
		t.Helper()
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			var l placementv1beta1.ClusterSchedulingPolicySnapshotList
			if err := c.List(ctx, &l, client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: "pickn"}); err != nil {
				return err
			}
			if len(l.Items) != 1 || l.Items[0].Name != "pickn-0" || l.Items[0].Annotations[placementv1beta1.NumberOfClustersAnnotation] != want {
				return fmt.Errorf("policy snapshots %+v, want only pickn-0 with %s clusters", l.Items, want)
			}
			return nil
		})
	}
	expect("member2=Scheduled member3=Scheduled")
	policyAnnotation("2")

	updateCRP(t, c, "pickn", func(p *placementv1beta1.ClusterResourcePlacement) { p.Spec.Policy.NumberOfClusters = ptr.To[int32](1) })
	expect("member2=Unscheduled member3=Scheduled")
	policyAnnotation("1")
	bs, _ := crbs(t.Context(), c, "pickn")
	if prev := bs["member2"].Annotations[placementv1beta1.PreviousBindingStateAnnotation]; prev != "Scheduled" {
		t.Errorf("previous state %q", prev)
	}

	updateCRP(t, c, "pickn", func(p *placementv1beta1.ClusterResourcePlacement) { p.Spec.Policy.NumberOfClusters = ptr.To[int32](3) })
	expect("member1=Scheduled member2=Scheduled member3=Scheduled")
	bs, _ = crbs(t.Context(), c, "pickn")
	if _, ok := bs["member2"].Annotations[placementv1beta1.PreviousBindingStateAnnotation]; ok {
		t.Error("the previous state annotation stayed after the cluster was picked again")
	}

	updateCRP(t, c, "pickn", func(p *placementv1beta1.ClusterResourcePlacement) { p.Spec.Policy.NumberOfClusters = ptr.To[int32](4) })
	waitCRP(t, c, "pickn", func(p *placementv1beta1.ClusterResourcePlacement) error {
		if err := conditionIs(p.Status.Conditions, "ClusterResourcePlacementScheduled", metav1.ConditionFalse, "ScheduleFailed", p.Generation); err != nil {
			return err
		}
		var unnamed int
		for _, st := range p.Status.PerClusterPlacementStatuses {
			if st.ClusterName == "" {
				unnamed++
			}
		}
		if unnamed != 1 {
			return fmt.Errorf("%d unfilled cluster statuses, want 1", unnamed)
		}
		return nil
	})
}

// TestPickFixed picks the named clusters and reports a name that is no member.
func TestPickFixed(t *testing.T) {
	c := startController(t)
	namespace(t, c, "pickfixed-ns", nil)
	p := crp("pickfixed", selectNamespace("pickfixed-ns"), &placementv1beta1.PlacementPolicy{
		PlacementType: placementv1beta1.PickFixedPlacementType, ClusterNames: []string{"member3", "ghost"},
	}, placementv1beta1.ExternalRolloutStrategyType)
	create(t, c, p)
	cleanUp(t, c, p)
	waitBindings(t, c, "pickfixed", func(bs map[string]*placementv1beta1.ClusterResourceBinding) error {
		if got := states(bs); got != "member3=Scheduled" {
			return fmt.Errorf("bindings %s", got)
		}
		return nil
	})
	waitCRP(t, c, "pickfixed", func(p *placementv1beta1.ClusterResourcePlacement) error {
		if err := conditionIs(p.Status.Conditions, "ClusterResourcePlacementScheduled", metav1.ConditionFalse, "ScheduleFailed", 1); err != nil {
			return err
		}
		if msg := meta.FindStatusCondition(p.Status.Conditions, "ClusterResourcePlacementScheduled").Message; !strings.Contains(msg, "ghost (no MemberCluster has this name)") {
			return fmt.Errorf("message %q does not name ghost", msg)
		}
		for _, st := range p.Status.PerClusterPlacementStatuses {
			if st.ClusterName == "ghost" && conditionIs(st.Conditions, "Scheduled", metav1.ConditionFalse, "", 1) == nil {
				return nil
			}
		}
		return fmt.Errorf("no status for ghost in %+v", p.Status.PerClusterPlacementStatuses)
	})
}

// TestAffinityFollowsMemberLabels: required affinity picks the canary members; relabelling a
// member reschedules.
func TestAffinityFollowsMemberLabels(t *testing.T) {
	c := startController(t)
	namespace(t, c, "affinity-ns", nil)
	p := crp("affinity", selectNamespace("affinity-ns"), &placementv1beta1.PlacementPolicy{
		PlacementType: placementv1beta1.PickAllPlacementType,
		Affinity: &placementv1beta1.Affinity{ClusterAffinity: &placementv1beta1.ClusterAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &placementv1beta1.ClusterSelector{ClusterSelectorTerms: []placementv1beta1.ClusterSelectorTerm{
				{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"environment": "canary"}}},
			}},
		}},
	}, placementv1beta1.ExternalRolloutStrategyType)
	create(t, c, p)
	cleanUp(t, c, p)
	expect := func(want string) {
		t.Helper()
		waitBindings(t, c, "affinity", func(bs map[string]*placementv1beta1.ClusterResourceBinding) error {
			if got := states(bs); got != want {
				return fmt.Errorf("bindings %s, want %s", got, want)
			}
			return nil
		})
	}
	expect("member1=Scheduled member3=Scheduled")

	relabel := func(env string) {
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			mc := &clusterv1beta1.MemberCluster{}
			if err := c.Get(ctx, client.ObjectKey{Name: "member2"}, mc); err != nil {
				return err
			}
			mc.Labels["environment"] = env
			return c.Update(ctx, mc)
		})
	}
	relabel("canary")
	t.Cleanup(func() { relabel("staging") })
	expect("member1=Scheduled member2=Scheduled member3=Scheduled")
	relabel("staging")
	expect("member1=Scheduled member2=Unscheduled member3=Scheduled")
}
