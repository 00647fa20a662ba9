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
package updaterun

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// The bounded tests list at most two clusters per stage.
const testMaxListed = 2

// boundedFleet creates an External placement with snapshots 0 and 1 and members <placement>-<i>:
// one in stage small, seven in stage big, and three the placement no longer picks.
func boundedFleet(t *testing.T, c client.Client, placement string) {
	t.Helper()
	ctx := t.Context()
	crp := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: placement}}
	crp.Spec.ResourceSelectors = []placementv1beta1.ResourceSelectorTerm{{Group: "", Version: "v1", Kind: "Namespace", Name: "test-namespace"}}
	crp.Spec.Strategy.Type = placementv1beta1.ExternalRolloutStrategyType
	create(t, c, crp)
	crp.Status.Conditions = []metav1.Condition{{Type: string(placementv1beta1.ClusterResourcePlacementScheduledConditionType),
		Status: metav1.ConditionTrue, Reason: "Scheduled", ObservedGeneration: crp.Generation, LastTransitionTime: metav1.Now()}}
	if err := c.Status().Update(ctx, crp); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		snap := &placementv1beta1.ClusterResourceSnapshot{ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("%s-%d-snapshot", placement, i),
			Labels: map[string]string{placementv1beta1.PlacementTrackingLabel: placement, placementv1beta1.ResourceIndexLabel: fmt.Sprint(i),
				placementv1beta1.IsLatestSnapshotLabel: fmt.Sprint(i == 1)},
			Annotations: map[string]string{placementv1beta1.ResourceGroupHashAnnotation: fmt.Sprint(i), placementv1beta1.NumberOfResourceSnapshotsAnnotation: "1"},
		}}
		snap.Spec.SelectedResources = []placementv1beta1.ResourceContent{{RawExtension: runtime.RawExtension{
			Raw: []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"test-namespace"}}`)}}}
		create(t, c, snap)
	}
	for i := range 11 {
		name, env, state := fmt.Sprintf("%s-%02d", placement, i), "big", placementv1beta1.BindingStateScheduled
		switch {
		case i == 0:
			env = "small"
		case i > 7:
			state = placementv1beta1.BindingStateUnscheduled
		}
		create(t, c, &clusterv1beta1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"env": env}},
			Spec: clusterv1beta1.MemberClusterSpec{Identity: rbacv1.Subject{Kind: "User", Name: "agent", APIGroup: "rbac.authorization.k8s.io"}}})
		create(t, c, &placementv1beta1.ClusterResourceBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{placementv1beta1.PlacementTrackingLabel: placement}},
			Spec:       placementv1beta1.ResourceBindingSpec{State: state, TargetCluster: name},
		})
	}
	three := intstr.FromInt32(3)
	s := &placementv1beta1.ClusterStagedUpdateStrategy{ObjectMeta: metav1.ObjectMeta{Name: placement}}
	s.Spec.Stages = []placementv1beta1.StageConfig{stageConfig("small", map[string]string{"env": "small"}), stageConfig("big", map[string]string{"env": "big"})}
	s.Spec.Stages[1].MaxConcurrency = &three
	create(t, c, s)
}

// checkBounded checks what a bounded stage must always hold: at most the limit listed (a failed
// cluster aside), no cluster named twice, counts that add up, at most maxConcurrency updating.
func checkBounded(st *placementv1beta1.StageUpdatingStatus, total, maxConcurrency int32) error {
	n := st.ClusterCounts
	if n == nil || n.Total != total {
		return fmt.Errorf("stage %s counts %+v, want a total of %d", st.StageName, n, total)
	}
	if n.NotStarted+n.Updating+n.Succeeded+n.Failed != n.Total || n.Updating > maxConcurrency {
		return fmt.Errorf("stage %s counts %+v", st.StageName, *n)
	}
	if len(st.Clusters) > testMaxListed {
		return fmt.Errorf("stage %s lists %d clusters", st.StageName, len(st.Clusters))
	}
	seen := map[string]bool{}
	for _, name := range append(append(clusterNames(st), st.NotStartedClusters...), st.UpdatingClusters...) {
		if seen[name] {
			return fmt.Errorf("stage %s names %s twice", st.StageName, name)
		}
		seen[name] = true
	}
	return nil
}

func clusterNames(st *placementv1beta1.StageUpdatingStatus) []string {
	var out []string
	for _, c := range st.Clusters {
		out = append(out, c.ClusterName)
	}
	return out
}

// TestBoundedRunRestartsStopsAndResumes: a run whose stages hold more clusters than they may
// list completes, with counts that add up at every step. Every pass is made by a new
// reconciler, as after a restart, so that the status alone carries the run; the run is
// stopped halfway through the large stage, starts nothing while stopped, and resumes.
func TestBoundedRunRestartsStopsAndResumes(t *testing.T) {
	testenv.StartManager(t, func(mgr ctrl.Manager) error {
		return ctrl.NewControllerManagedBy(mgr).For(&placementv1beta1.ClusterResourceBinding{}).Named("available-bindings-bounded").
			Complete(availableBindings{mgr.GetClient()})
	})
	c := testenv.Client(t)
	boundedFleet(t, c, "bounded")
	run := newRun("bounded-run", "bounded", "bounded", "1")
	create(t, c, run)
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(run)}
	// overflowed: maxConcurrency (3) exceeds what a stage lists (2), so updating clusters are
	// named in updatingClusters at times.
	overflowed := false
	reconcileUntil := func(cond func(*placementv1beta1.ClusterStagedUpdateRun) error) *placementv1beta1.ClusterStagedUpdateRun {
		t.Helper()
		got := &placementv1beta1.ClusterStagedUpdateRun{}
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			r := runReconciler(c, nil, Options{MaxListedClusters: testMaxListed})
			if _, err := r.Reconcile(ctx, req); err != nil {
				return err
			}
			if err := c.Get(ctx, req.NamespacedName, got); err != nil {
				return err
			}
			if len(got.Status.StagesStatus) == 2 {
				if st := got.Status.StagesStatus[0]; st.ClusterCounts != nil || len(st.Clusters) != 1 {
					t.Fatalf("stage small, of one cluster, is bounded: %+v", st)
				}
				if err := checkBounded(&got.Status.StagesStatus[1], 7, 3); err != nil {
					t.Fatal(err)
				}
				if err := checkBounded(got.Status.DeletionStageStatus, 3, 3); err != nil {
					t.Fatal(err)
				}
				overflowed = overflowed || len(got.Status.StagesStatus[1].UpdatingClusters) > 0
			}
			return cond(got)
		})
		return got
	}
	setState := func(s placementv1beta1.State) {
		patch := fmt.Appendf(nil, `{"spec":{"state":%q}}`, s)
		if err := c.Patch(t.Context(), run, client.RawPatch(types.MergePatchType, patch)); err != nil {
			t.Fatal(err)
		}
	}

	initialized := reconcileUntil(func(r *placementv1beta1.ClusterStagedUpdateRun) error {
		return conditionIs(r.Status.Conditions, "Initialized", metav1.ConditionTrue, placementv1beta1.UpdateRunInitializeSucceededReason)
	})
	if big := initialized.Status.StagesStatus[1]; len(big.NotStartedClusters) != 7 || big.NotStartedClusters[0] != "bounded-01" {
		t.Errorf("big stage at initialization: %+v", big)
	}
	reconcileUntil(func(r *placementv1beta1.ClusterStagedUpdateRun) error {
		if n := r.Status.StagesStatus[1].ClusterCounts; n.Succeeded < 3 || n.NotStarted == 0 {
			return fmt.Errorf("big stage counts %+v", *n)
		}
		return nil
	})
	setState(placementv1beta1.StateStop)
	stopped := reconcileUntil(func(r *placementv1beta1.ClusterStagedUpdateRun) error {
		return conditionIs(r.Status.Conditions, "Progressing", metav1.ConditionFalse, placementv1beta1.UpdateRunStoppedReason)
	})
	notStarted := stopped.Status.StagesStatus[1].ClusterCounts.NotStarted
	if notStarted == 0 || stopped.Status.StagesStatus[1].ClusterCounts.Updating != 0 {
		t.Fatalf("stopped with counts %+v", *stopped.Status.StagesStatus[1].ClusterCounts)
	}
	// Stopped stays stopped, pass after pass.
	for range 3 {
		again := reconcileUntil(func(*placementv1beta1.ClusterStagedUpdateRun) error { return nil })
		if got := again.Status.StagesStatus[1].ClusterCounts.NotStarted; got != notStarted {
			t.Fatalf("a stopped run started clusters: %d not started, was %d", got, notStarted)
		}
	}
	setState(placementv1beta1.StateRun)
	done := reconcileUntil(func(r *placementv1beta1.ClusterStagedUpdateRun) error {
		if r.Status.DeletionStageStatus != nil && r.Status.DeletionStageStatus.ClusterCounts.Succeeded != 3 {
			return errors.New("deletion stage not done")
		}
		return succeeded(r)
	})
	want := placementv1beta1.StageClusterCounts{Total: 7, Succeeded: 7}
	if big := done.Status.StagesStatus[1]; *big.ClusterCounts != want || len(big.NotStartedClusters)+len(big.UpdatingClusters) != 0 {
		t.Errorf("big stage at the end: %+v", big)
	}
	if msg := conditionMessage(done.Status.StagesStatus[1].Conditions, "Succeeded"); !strings.Contains(msg, "kubectl get clusterresourcebindings -l kubernetes-fleet.io/parent-CRP=bounded") {
		t.Errorf("the big stage's Succeeded condition does not say where its clusters are: %q", msg)
	}
	var bindings placementv1beta1.ClusterResourceBindingList
	if err := c.List(t.Context(), &bindings, client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: "bounded"}); err != nil {
		t.Fatal(err)
	}
	if len(bindings.Items) != 8 {
		t.Errorf("%d bindings left, want the 8 picked ones", len(bindings.Items))
	}
	boundTo(t, c, "bounded", "bounded-1-snapshot")
	if !overflowed {
		t.Error("no cluster was ever named in updatingClusters")
	}
}

func conditionMessage(conds []metav1.Condition, t string) string {
	for _, c := range conds {
		if c.Type == t {
			return c.Message
		}
	}
	return ""
}
