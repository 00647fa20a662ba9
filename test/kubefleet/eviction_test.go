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

package kubefleet

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// evictionPlacement places the Namespace ns and a ConfigMap in it on the members the policy
// picks, rolling out by itself, and waits until every picked member has them.
func evictionPlacement(t *testing.T, name, ns string, policy *placementv1beta1.PlacementPolicy, on ...string) {
	t.Helper()
	crp := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: name}}
	crp.Spec.ResourceSelectors = []placementv1beta1.ResourceSelectorTerm{{Group: "", Version: "v1", Kind: "Namespace", Name: ns}}
	crp.Spec.Policy = policy
	createAll(t,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "test-cm", Namespace: ns}, Data: map[string]string{"key": "value1"}},
		crp)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		for _, m := range on {
			if _, err := member(t, m).CoreV1().ConfigMaps(ns).Get(ctx, "test-cm", metav1.GetOptions{}); err != nil {
				return fmt.Errorf("%s: %w", m, err)
			}
		}
		p := &placementv1beta1.ClusterResourcePlacement{}
		if err := testenv.Client(t).Get(ctx, client.ObjectKey{Name: name}, p); err != nil {
			return err
		}
		if !meta.IsStatusConditionTrue(p.Status.Conditions, string(placementv1beta1.ClusterResourcePlacementAvailableConditionType)) {
			return fmt.Errorf("placement not available yet: %+v", p.Status.Conditions)
		}
		return nil
	})
}

// evict creates an eviction and waits until it has been acted on; it returns its Valid and
// Executed conditions (nil when absent).
func evict(t *testing.T, name, placement, cluster string) (valid, executed *metav1.Condition) {
	t.Helper()
	e := &placementv1beta1.ClusterResourcePlacementEviction{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: placementv1beta1.PlacementEvictionSpec{PlacementName: placement, ClusterName: cluster}}
	createAll(t, e)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := testenv.Client(t).Get(ctx, client.ObjectKeyFromObject(e), e); err != nil {
			return err
		}
		if !e.Done() {
			return fmt.Errorf("not acted on yet: %+v", e.Status.Conditions)
		}
		return nil
	})
	return meta.FindStatusCondition(e.Status.Conditions, placementv1beta1.EvictionValidCondition),
		meta.FindStatusCondition(e.Status.Conditions, placementv1beta1.EvictionExecutedCondition)
}

func wantCondition(t *testing.T, c *metav1.Condition, what string, status metav1.ConditionStatus, reason, message string) {
	t.Helper()
	if c == nil || c.Status != status || c.Reason != reason || c.Message != message {
		t.Fatalf("%s condition %+v, want %s %s %q", what, c, status, reason, message)
	}
}

// setBudget creates or replaces the placement's disruption budget.
func setBudget(t *testing.T, name string, spec placementv1beta1.PlacementDisruptionBudgetSpec) {
	t.Helper()
	c := testenv.Client(t)
	b := &placementv1beta1.ClusterResourcePlacementDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: name}}
	err := c.Get(t.Context(), client.ObjectKeyFromObject(b), b)
	switch {
	case apierrors.IsNotFound(err):
		b.Spec = spec
		createAll(t, b)
	case err != nil:
		t.Fatal(err)
	default:
		b.Spec = spec
		if err := c.Update(t.Context(), b); err != nil {
			t.Fatal(err)
		}
	}
}

// taint keeps the scheduler from picking member again until the test ends.
func taint(t *testing.T, name string) {
	t.Helper()
	c := testenv.Client(t)
	change := func(taints []clusterv1beta1.Taint) error {
		return retry.RetryOnConflict(retry.DefaultRetry, func() error {
			mc := &clusterv1beta1.MemberCluster{}
			if err := c.Get(context.Background(), client.ObjectKey{Name: name}, mc); err != nil {
				return err
			}
			mc.Spec.Taints = taints
			return c.Update(context.Background(), mc)
		})
	}
	if err := change([]clusterv1beta1.Taint{{Key: "stagecoach.dev/evicted", Value: "true", Effect: corev1.TaintEffectNoSchedule}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := change(nil); err != nil {
			t.Errorf("removing the taint of %s: %v", name, err)
		}
	})
}

// TestEvictionRespectsBudget takes one member out of a PickAll placement: evictions the
// budget forbids, or that a misconfigured budget blocks, leave the member as it is and say
// why; one within the budget withdraws the resources from that member only. The taint is what
// keeps the scheduler from placing them there again, as in Kubefleet; it affects every
// placement, so this test does not run in parallel with others.
func TestEvictionRespectsBudget(t *testing.T) {
	const name, ns = "evict-pickall", "evict-pickall"
	evictionPlacement(t, name, ns, &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickAllPlacementType}, members...)

	setBudget(t, name, placementv1beta1.PlacementDisruptionBudgetSpec{MinAvailable: ptr(intstr.FromInt32(3))})
	valid, executed := evict(t, "evict-blocked", name, "member1")
	wantCondition(t, valid, "Valid", metav1.ConditionTrue, placementv1beta1.EvictionValidReason, placementv1beta1.EvictionValidMessage)
	wantCondition(t, executed, "Executed", metav1.ConditionFalse, placementv1beta1.EvictionNotExecutedReason,
		"Eviction is blocked by specified ClusterResourcePlacementDisruptionBudget, availablePlacements: 3, totalPlacements: 3")

	setBudget(t, name, placementv1beta1.PlacementDisruptionBudgetSpec{MaxUnavailable: ptr(intstr.FromInt32(1))})
	_, executed = evict(t, "evict-misconfigured", name, "member1")
	wantCondition(t, executed, "Executed", metav1.ConditionFalse, placementv1beta1.EvictionNotExecutedReason,
		placementv1beta1.EvictionBlockedMisconfiguredBudgetMessage)
	if _, err := member(t, "member1").CoreV1().ConfigMaps(ns).Get(t.Context(), "test-cm", metav1.GetOptions{}); err != nil {
		t.Fatalf("a refused eviction removed the resources from member1: %v", err)
	}

	setBudget(t, name, placementv1beta1.PlacementDisruptionBudgetSpec{MinAvailable: ptr(intstr.FromInt32(2))})
	taint(t, "member1")
	_, executed = evict(t, "evict-allowed", name, "member1")
	wantCondition(t, executed, "Executed", metav1.ConditionTrue, placementv1beta1.EvictionExecutedReason,
		"Eviction is allowed by specified ClusterResourcePlacementDisruptionBudget, availablePlacements: 3, totalPlacements: 3")
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		_, err := member(t, "member1").CoreV1().ConfigMaps(ns).Get(ctx, "test-cm", metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("member1 still has test-cm (%v)", err)
		}
		var bindings placementv1beta1.ClusterResourceBindingList
		if err := testenv.Client(t).List(ctx, &bindings, client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: name}); err != nil {
			return err
		}
		for _, b := range bindings.Items {
			if b.Spec.TargetCluster == "member1" {
				return fmt.Errorf("binding %s of member1 is still there", b.Name)
			}
		}
		return nil
	})
	for _, m := range []string{"member2", "member3"} {
		if _, err := member(t, m).CoreV1().ConfigMaps(ns).Get(t.Context(), "test-cm", metav1.GetOptions{}); err != nil {
			t.Errorf("%s lost its resources: %v", m, err)
		}
	}

	// An eviction is acted on once: the budget that would now allow the first one changes
	// nothing about it.
	e := &placementv1beta1.ClusterResourcePlacementEviction{}
	if err := testenv.Client(t).Get(t.Context(), client.ObjectKey{Name: "evict-blocked"}, e); err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(e.Status.Conditions, placementv1beta1.EvictionExecutedCondition); c == nil || c.Status != metav1.ConditionFalse {
		t.Errorf("the blocked eviction changed: %+v", e.Status.Conditions)
	}
}

// TestEvictionOfPickFixedIsInvalid: a PickFixed placement names its clusters; evicting from it
// is refused, the way to drop a cluster being to remove it from clusterNames.
func TestEvictionOfPickFixedIsInvalid(t *testing.T) {
	const name = "evict-pickfixed"
	crp := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: name}}
	crp.Spec.ResourceSelectors = []placementv1beta1.ResourceSelectorTerm{{Group: "", Version: "v1", Kind: "Namespace", Name: name}}
	crp.Spec.Policy = &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickFixedPlacementType, ClusterNames: []string{"member2"}}
	createAll(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, crp)
	valid, executed := evict(t, name, name, "member2")
	wantCondition(t, valid, "Valid", metav1.ConditionFalse, placementv1beta1.EvictionInvalidReason, placementv1beta1.EvictionInvalidPickFixedMessage)
	if executed != nil {
		t.Errorf("an invalid eviction has an Executed condition: %+v", executed)
	}
	valid, _ = evict(t, "evict-missing", "no-such-placement", "member2")
	wantCondition(t, valid, "Valid", metav1.ConditionFalse, placementv1beta1.EvictionInvalidReason, placementv1beta1.EvictionInvalidMissingPlacementMessage)
}
