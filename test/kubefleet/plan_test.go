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
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/plan"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestPlanUpdateRun previews staged update runs of a placement: the strategy's stages with the
// placement's members in update order, and, from dry runs on the members, what the snapshot
// would create the first time and update once a run rolled the first snapshot out.
func TestPlanUpdateRun(t *testing.T) {
	c := kclient(t)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "plan-cm", Namespace: "plan-ns"}, Data: map[string]string{"key": "value1"}}
	strategy := &placementv1beta1.ClusterStagedUpdateStrategy{ObjectMeta: metav1.ObjectMeta{Name: "plan-strategy"}}
	strategy.Spec.Stages = []placementv1beta1.StageConfig{
		{Name: "staging", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"environment": "staging"}}},
		{Name: "canary", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"environment": "canary"}}, SortingLabelKey: ptr("order")},
	}
	crp := externalPlacement("plan-placement", "plan-ns")
	createAll(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "plan-ns"}}, cm, strategy, crp)
	planner := &plan.Planner{Client: c, Clusters: fleet.NewCache(c, fleet.CacheOptions{})}
	run := func(name, index string) *placementv1beta1.ClusterStagedUpdateRun {
		r := &placementv1beta1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: name}}
		r.Spec.PlacementName, r.Spec.StagedUpdateStrategyName, r.Spec.ResourceSnapshotIndex = "plan-placement", "plan-strategy", index
		return r
	}
	// planned waits for the placement to have scheduled its members and taken the snapshot,
	// then returns the plan of run.
	planned := func(r *placementv1beta1.ClusterStagedUpdateRun, snapshot string) *plan.Plan {
		t.Helper()
		var p *plan.Plan
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			if err := c.Get(ctx, client.ObjectKey{Name: snapshot}, &placementv1beta1.ClusterResourceSnapshot{}); err != nil {
				return err
			}
			var err error
			p, err = planner.Plan(ctx, r)
			if err == nil && len(p.Stages) > 1 && len(p.Stages[1].Waves) < 2 {
				return fmt.Errorf("not every member scheduled yet: %+v", p.Stages)
			}
			return err
		})
		return p
	}
	check := func(p *plan.Plan, summary, change string) {
		t.Helper()
		var waves []string
		for _, s := range p.Stages {
			waves = append(waves, fmt.Sprintf("%s %v", s.Name, s.Waves))
			for _, m := range s.Clusters() {
				ch := s.Changes[m]
				if ch.Summary != summary || (change != "" && !slices.ContainsFunc(ch.Objects, func(o plan.ObjectChange) bool { return slices.Contains(o.Changes, change) })) {
					t.Errorf("%s: %+v, want %q with %q", m, ch, summary, change)
				}
			}
		}
		if want := []string{"staging [[member2]]", "canary [[member3] [member1]]"}; !slices.Equal(waves, want) {
			t.Errorf("stages %q, want %q", waves, want)
		}
	}

	check(planned(run("plan-run", ""), "plan-placement-0-snapshot"), "2 to create", "")
	if _, err := member(t, "member2").CoreV1().Namespaces().Get(t.Context(), "plan-ns", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the plan created plan-ns on member2 (%v)", err)
	}

	first := run("plan-run", "0")
	if err := c.Create(t.Context(), first); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), first) })
	runSucceeded(t, first.Name)
	cm.Data["key"] = "value2"
	if err := c.Update(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	check(planned(run("plan-run-2", ""), "plan-placement-1-snapshot"), "1 to update", `~ data.key: "value1" -> "value2"`)

	if _, err := planner.Plan(t.Context(), run("plan-run-3", "7")); err == nil || !strings.Contains(err.Error(), `no resource snapshot with index "7"`) {
		t.Errorf("planning a missing snapshot: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }
