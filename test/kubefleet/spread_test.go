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
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// placedOn waits until exactly the clusters want hold the Namespace ns and the placement is
// scheduled as wanted.
func placedOn(t *testing.T, crp, ns string, scheduled bool, want ...string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		var got []string
		for _, m := range members {
			_, err := member(t, m).CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
			switch {
			case err == nil:
				got = append(got, m)
			case !apierrors.IsNotFound(err):
				return err
			}
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("%s is on %v, want %v", ns, got, want)
		}
		p := &placementv1beta1.ClusterResourcePlacement{}
		if err := testenv.Client(t).Get(ctx, client.ObjectKey{Name: crp}, p); err != nil {
			return err
		}
		c := meta.FindStatusCondition(p.Status.Conditions, string(placementv1beta1.ClusterResourcePlacementScheduledConditionType))
		if c == nil || c.ObservedGeneration != p.Generation || (c.Status == metav1.ConditionTrue) != scheduled {
			return fmt.Errorf("scheduled condition %+v, want scheduled=%v", c, scheduled)
		}
		return nil
	})
}

// TestTopologySpread: a PickN placement whose preferred affinity favours the two canary members
// spreads over the environment label instead (member1 canary, member2 staging), as Kubefleet's
// scheduler does; asked for three, it adds the other canary, which keeps the skew at 1.
func TestTopologySpread(t *testing.T) {
	t.Parallel()
	c := testenv.Client(t)
	createAll(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "spread"}})
	crp := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "spread"}}
	crp.Spec.ResourceSelectors = []placementv1beta1.ResourceSelectorTerm{{Version: "v1", Kind: "Namespace", Name: "spread"}}
	crp.Spec.Policy = &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickNPlacementType, NumberOfClusters: ptr[int32](2),
		Affinity: &placementv1beta1.Affinity{ClusterAffinity: &placementv1beta1.ClusterAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []placementv1beta1.PreferredClusterSelector{{Weight: 10,
				Preference: placementv1beta1.ClusterSelectorTerm{LabelSelector: &metav1.LabelSelector{
					MatchLabels: map[string]string{"environment": "canary"}}}}}}},
		TopologySpreadConstraints: []placementv1beta1.TopologySpreadConstraint{{MaxSkew: ptr[int32](1), TopologyKey: "environment",
			WhenUnsatisfiable: placementv1beta1.DoNotSchedule}}}
	createAll(t, crp)
	placedOn(t, "spread", "spread", true, "member1", "member2")

	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(crp), crp); err != nil {
			return err
		}
		crp.Spec.Policy.NumberOfClusters = ptr[int32](3)
		return c.Update(ctx, crp)
	})
	placedOn(t, "spread", "spread", true, "member1", "member2", "member3")
}

// TestTopologySpreadDoNotSchedule: asked for two canaries (required affinity) with maxSkew 1
// over environment, the placement gets one: the staging member, which the affinity rules out,
// still counts as an empty domain, as in Kubefleet, so a second canary would break the skew. The
// placement says why it is short.
func TestTopologySpreadDoNotSchedule(t *testing.T) {
	t.Parallel()
	createAll(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "spread-short"}})
	crp := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "spread-short"}}
	crp.Spec.ResourceSelectors = []placementv1beta1.ResourceSelectorTerm{{Version: "v1", Kind: "Namespace", Name: "spread-short"}}
	crp.Spec.Policy = &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickNPlacementType, NumberOfClusters: ptr[int32](2),
		Affinity: &placementv1beta1.Affinity{ClusterAffinity: &placementv1beta1.ClusterAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &placementv1beta1.ClusterSelector{ClusterSelectorTerms: []placementv1beta1.ClusterSelectorTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"environment": "canary"}}}}}}},
		TopologySpreadConstraints: []placementv1beta1.TopologySpreadConstraint{{MaxSkew: ptr[int32](1), TopologyKey: "environment",
			WhenUnsatisfiable: placementv1beta1.DoNotSchedule}}}
	createAll(t, crp)
	placedOn(t, "spread-short", "spread-short", false, "member1")
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		p := &placementv1beta1.ClusterResourcePlacement{}
		if err := testenv.Client(t).Get(ctx, client.ObjectKeyFromObject(crp), p); err != nil {
			return err
		}
		c := meta.FindStatusCondition(p.Status.Conditions, string(placementv1beta1.ClusterResourcePlacementScheduledConditionType))
		if want := "Picked 1 of the 2 clusters the policy asks for: 1 other matching clusters would break a DoNotSchedule topology spread constraint"; c == nil || c.Message != want {
			return fmt.Errorf("scheduled condition %+v, want message %q", c, want)
		}
		return nil
	})
}
