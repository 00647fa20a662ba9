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
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/yaml"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// The run controller only talks to the management cluster: a sandbox without managed clusters
// serves. The bindings are made available by availableBindings, which plays the binding
// controller's part.
func TestMain(m *testing.M) { testenv.Main(m) }

const timeout = 60 * time.Second

func seed(t *testing.T, file string, into any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "seeds", file))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, into); err != nil {
		t.Fatal(err)
	}
}

// availableBindings marks every bound binding available with its snapshot, as the binding
// controller does once the resources run on the member cluster.
type availableBindings struct{ client.Client }

func (a availableBindings) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	b := &placementv1beta1.ClusterResourceBinding{}
	if err := a.Get(ctx, req.NamespacedName, b); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if b.Spec.State != placementv1beta1.BindingStateBound || b.Status.ObservedResourceSnapshotName == b.Spec.ResourceSnapshotName &&
		meta.IsStatusConditionTrue(b.Status.Conditions, placementv1beta1.BindingAvailableCondition) &&
		meta.FindStatusCondition(b.Status.Conditions, placementv1beta1.BindingAvailableCondition).ObservedGeneration == b.Generation {
		return reconcile.Result{}, nil
	}
	base := b.DeepCopy()
	b.Status.ObservedResourceSnapshotName = b.Spec.ResourceSnapshotName
	meta.SetStatusCondition(&b.Status.Conditions, metav1.Condition{Type: placementv1beta1.BindingAvailableCondition, Status: metav1.ConditionTrue,
		Reason: "AllWorkAvailable", ObservedGeneration: b.Generation})
	return reconcile.Result{}, a.Status().Patch(ctx, b, client.MergeFrom(base))
}

func startControllers(t *testing.T) client.Client {
	return startControllersAt(t, nil)
}

// startControllersAt is startControllers with the run controller on the clock now.
func startControllersAt(t *testing.T, now func() time.Time) client.Client {
	testenv.StartManager(t, func(mgr ctrl.Manager) error {
		if err := NewReconciler(Options{RecheckInterval: time.Second, Now: now}).SetupWithManager(mgr); err != nil {
			return err
		}
		return ctrl.NewControllerManagedBy(mgr).For(&placementv1beta1.ClusterResourceBinding{}).Named("fake-bindings").
			Complete(availableBindings{mgr.GetClient()})
	})
	return testenv.Client(t)
}

// runReconciler returns the ClusterStagedUpdateRun controller with opts, reading through c and,
// when reader is not nil, around the cache through reader, for tests that drive it by hand.
func runReconciler(c client.Client, reader client.Reader, opts Options) *kindReconciler {
	opts.Client = c
	r := newKindReconciler(NewReconciler(opts), placementv1beta1.ClusterFamily)
	r.reader = reader
	return r
}

// fleet creates seed 004's member clusters and an External placement with snapshots 0 and 1 and
// a Scheduled binding per member, as the placement controller leaves them.
func fleet(t *testing.T, c client.Client, placement string) {
	t.Helper()
	ctx := t.Context()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "seeds", "004-memberclusters.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(data), "\n---\n") {
		m := &clusterv1beta1.MemberCluster{}
		if err := yaml.Unmarshal([]byte(doc), m); err != nil {
			t.Fatal(err)
		}
		if err := c.Create(ctx, m); client.IgnoreAlreadyExists(err) != nil {
			t.Fatal(err)
		}
	}
	crp := &placementv1beta1.ClusterResourcePlacement{}
	seed(t, "004-clusterresourceplacement-example-placement.yaml", crp)
	crp.Name = placement
	create(t, c, crp)
	// The placement controller's part: scheduling is done.
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
		cm := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"test-cm","namespace":"test-namespace"},"data":{"key":"value%d"}}`, i+1)
		snap.Spec.SelectedResources = []placementv1beta1.ResourceContent{{RawExtension: runtime.RawExtension{Raw: []byte(cm)}}}
		create(t, c, snap)
	}
	for _, m := range []string{"member1", "member2", "member3"} {
		create(t, c, &placementv1beta1.ClusterResourceBinding{
			ObjectMeta: metav1.ObjectMeta{Name: placement + "-" + m, Labels: map[string]string{placementv1beta1.PlacementTrackingLabel: placement}},
			Spec:       placementv1beta1.ResourceBindingSpec{State: placementv1beta1.BindingStateScheduled, TargetCluster: m},
		})
	}
}

func create(t *testing.T, c client.Client, obj client.Object) {
	t.Helper()
	if err := c.Create(t.Context(), obj); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), obj) })
}

func strategy(t *testing.T, c client.Client, name string, wait time.Duration) {
	t.Helper()
	s := &placementv1beta1.ClusterStagedUpdateStrategy{}
	seed(t, "004-clusterstagedupdatestrategy-example-strategy.yaml", s)
	s.Name = name
	s.Spec.Stages[0].AfterStageTasks[0].WaitTime = &metav1.Duration{Duration: wait}
	create(t, c, s)
}

func newRun(name, placement, strategy, index string) *placementv1beta1.ClusterStagedUpdateRun {
	return &placementv1beta1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: placementv1beta1.UpdateRunSpec{PlacementName: placement, ResourceSnapshotIndex: index, StagedUpdateStrategyName: strategy}}
}

func waitRun(t *testing.T, c client.Client, name string, cond func(*placementv1beta1.ClusterStagedUpdateRun) error) *placementv1beta1.ClusterStagedUpdateRun {
	t.Helper()
	run := &placementv1beta1.ClusterStagedUpdateRun{}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := c.Get(ctx, client.ObjectKey{Name: name}, run); err != nil {
			return err
		}
		return cond(run)
	})
	return run
}

func conditionIs(conds []metav1.Condition, t string, s metav1.ConditionStatus, reason string) error {
	c := meta.FindStatusCondition(conds, t)
	if c == nil || c.Status != s || c.Reason != reason {
		return fmt.Errorf("%s is %+v, want %s %s", t, c, s, reason)
	}
	return nil
}

func succeeded(run *placementv1beta1.ClusterStagedUpdateRun) error {
	return conditionIs(run.Status.Conditions, "Succeeded", metav1.ConditionTrue, placementv1beta1.UpdateRunSucceededReason)
}

func boundTo(t *testing.T, c client.Client, placement, snapshot string) {
	t.Helper()
	var list placementv1beta1.ClusterResourceBindingList
	if err := c.List(t.Context(), &list, client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: placement}); err != nil {
		t.Fatal(err)
	}
	for _, b := range list.Items {
		if b.Spec.State != placementv1beta1.BindingStateBound || b.Spec.ResourceSnapshotName != snapshot {
			t.Errorf("binding %s: %s %q, want Bound %q", b.Name, b.Spec.State, b.Spec.ResourceSnapshotName, snapshot)
		}
	}
}

// TestSeed004RolloutAndRollback is the cluster-scoped walkthrough: the run waits after staging,
// updates canary in sortingLabelKey order, waits for the ClusterApprovalRequest example-run-canary
// approved with the seed's patch, succeeds; a second run with index 0 rolls back.
func TestSeed004RolloutAndRollback(t *testing.T) {
	c := startControllers(t)
	fleet(t, c, "example-placement")
	strategy(t, c, "example-strategy", 2*time.Second)

	run := newRun("example-run", "example-placement", "example-strategy", "1")
	create(t, c, run)
	run = waitRun(t, c, run.Name, func(r *placementv1beta1.ClusterStagedUpdateRun) error {
		if len(r.Status.StagesStatus) != 2 || len(r.Status.StagesStatus[1].AfterStageTaskStatus) != 1 ||
			len(r.Status.StagesStatus[1].AfterStageTaskStatus[0].Conditions) == 0 {
			return fmt.Errorf("stages %+v", r.Status.StagesStatus)
		}
		return conditionIs(r.Status.Conditions, "Progressing", metav1.ConditionFalse, placementv1beta1.UpdateRunWaitingReason)
	})
	if err := conditionIs(run.Status.Conditions, "Initialized", metav1.ConditionTrue, placementv1beta1.UpdateRunInitializeSucceededReason); err != nil {
		t.Error(err)
	}
	if got := meta.FindStatusCondition(run.Status.Conditions, "Initialized").Message; got != "ClusterStagedUpdateRun initialized successfully" {
		t.Errorf("Initialized message %q", got)
	}
	if run.Status.PolicyObservedClusterCount != 3 || run.Status.DeletionStageStatus == nil ||
		run.Status.DeletionStageStatus.StageName != "kubernetes-fleet.io/deleteStage" {
		t.Errorf("status %+v", run.Status)
	}
	var order []string
	for _, st := range run.Status.StagesStatus {
		for _, cl := range st.Clusters {
			order = append(order, st.StageName+"/"+cl.ClusterName)
		}
	}
	if want := []string{"staging/member2", "canary/member3", "canary/member1"}; !slices.Equal(order, want) {
		t.Errorf("clusters %v, want %v", order, want)
	}
	staging := run.Status.StagesStatus[0]
	if err := conditionIs(staging.AfterStageTaskStatus[0].Conditions, "WaitTimeElapsed", metav1.ConditionTrue, placementv1beta1.AfterStageTaskWaitTimeElapsedReason); err != nil {
		t.Error(err)
	}
	if staging.EndTime == nil || run.Status.StagesStatus[1].StartTime == nil ||
		run.Status.StagesStatus[1].StartTime.Time.Before(staging.EndTime.Time) {
		t.Errorf("canary started %v, staging ended %v", run.Status.StagesStatus[1].StartTime, staging.EndTime)
	}
	if task := run.Status.StagesStatus[1].AfterStageTaskStatus[0]; task.ApprovalRequestName != "example-run-canary" {
		t.Errorf("approval request name %q", task.ApprovalRequestName)
	}

	// The ClusterApprovalRequest, approved exactly as the seed does it.
	approval := &placementv1beta1.ClusterApprovalRequest{}
	if err := c.Get(t.Context(), client.ObjectKey{Name: "example-run-canary"}, approval); err != nil {
		t.Fatal(err)
	}
	if approval.Spec.TargetUpdateRun != "example-run" || approval.Spec.TargetStage != "canary" ||
		approval.Labels[placementv1beta1.TaskTypeLabel] != "afterStage" {
		t.Errorf("approval request %+v", approval)
	}
	patch, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "seeds", "004-approval-patch-clusterapprovalrequest-example-run-canary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Status().Patch(t.Context(), approval, client.RawPatch(types.MergePatchType, patch)); err != nil {
		t.Fatal(err)
	}
	run = waitRun(t, c, run.Name, succeeded)
	if err := conditionIs(run.Status.StagesStatus[1].AfterStageTaskStatus[0].Conditions, "ApprovalRequestApproved", metav1.ConditionTrue,
		placementv1beta1.AfterStageTaskApprovalRequestApprovedReason); err != nil {
		t.Error(err)
	}
	if err := c.Get(t.Context(), client.ObjectKey{Name: "example-run-canary"}, approval); err != nil {
		t.Fatal(err)
	}
	if c := approval.Status.Condition(placementv1beta1.ApprovalRequestConditionApprovalAccepted); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("approval not accepted: %+v", approval.Status)
	}
	boundTo(t, c, "example-placement", "example-placement-1-snapshot")

	// Rollback: a second run with the older index goes through the same stages. This approval
	// carries no observedGeneration, as in the namespaced part of the seed.
	run2 := newRun("example-run-2", "example-placement", "example-strategy", "0")
	create(t, c, run2)
	waitRun(t, c, run2.Name, func(r *placementv1beta1.ClusterStagedUpdateRun) error {
		return c.Get(t.Context(), client.ObjectKey{Name: "example-run-2-canary"}, approval)
	})
	approve := []byte(`{"status":{"conditions":[{"type":"Approved","status":"True","reason":"approved","message":"approved","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`)
	if err := c.Status().Patch(t.Context(), approval, client.RawPatch(types.MergePatchType, approve)); err != nil {
		t.Fatal(err)
	}
	waitRun(t, c, run2.Name, succeeded)
	boundTo(t, c, "example-placement", "example-placement-0-snapshot")
}

// TestRunsThatCannotStart: each names what is wrong in its Initialized condition.
func TestRunsThatCannotStart(t *testing.T) {
	c := startControllers(t)
	fleet(t, c, "broken-placement")
	strategy(t, c, "broken-strategy", time.Second)
	rolling := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "rolling-placement"}}
	rolling.Spec.ResourceSelectors = []placementv1beta1.ResourceSelectorTerm{{Group: "", Version: "v1", Kind: "Namespace", Name: "test-namespace"}}
	create(t, c, rolling)

	tests := []struct{ run, placement, strategy, index, want string }{
		{"missing-index", "broken-placement", "broken-strategy", "7", "ClusterResourcePlacement broken-placement has no resource snapshot with index 7 (it has: 0, 1)"},
		{"missing-strategy", "broken-placement", "nope", "1", "ClusterStagedUpdateStrategy nope not found"},
		{"missing-placement", "nope", "broken-strategy", "1", "ClusterResourcePlacement nope not found"},
		{"not-external", "rolling-placement", "broken-strategy", "1", "ClusterResourcePlacement rolling-placement has rollout strategy RollingUpdate; staged update runs drive placements whose strategy type is External"},
	}
	for _, tc := range tests {
		create(t, c, newRun(tc.run, tc.placement, tc.strategy, tc.index))
	}
	for _, tc := range tests {
		waitRun(t, c, tc.run, func(r *placementv1beta1.ClusterStagedUpdateRun) error {
			if err := conditionIs(r.Status.Conditions, "Initialized", metav1.ConditionFalse, placementv1beta1.UpdateRunInitializeFailedReason); err != nil {
				return err
			}
			if got := meta.FindStatusCondition(r.Status.Conditions, "Initialized").Message; got != tc.want {
				return fmt.Errorf("message %q, want %q", got, tc.want)
			}
			return nil
		})
	}
}

// TestStopAndResume: a stopped run starts no cluster and its waits stop counting; set back to
// Run, it goes on where it stopped and finishes.
func TestStopAndResume(t *testing.T) {
	// The wait after staging is an hour of the controller's clock: the run is stopped inside it
	// however slow the machine, and the test moves the clock on rather than waiting it out.
	clock := &testenv.Clock{}
	c := startControllersAt(t, clock.Now)
	fleet(t, c, "stop-placement")
	strategy(t, c, "stop-strategy", time.Hour)
	run := newRun("stop-run", "stop-placement", "stop-strategy", "1")
	create(t, c, run)
	waitRun(t, c, run.Name, func(r *placementv1beta1.ClusterStagedUpdateRun) error {
		if len(r.Status.StagesStatus) == 0 || !clusterSucceeded(&r.Status.StagesStatus[0].Clusters[0]) {
			return fmt.Errorf("staging not updated yet")
		}
		return nil
	})
	setState := func(s placementv1beta1.State) {
		patch := fmt.Appendf(nil, `{"spec":{"state":%q}}`, s)
		if err := c.Patch(t.Context(), run, client.RawPatch(types.MergePatchType, patch)); err != nil {
			t.Fatal(err)
		}
	}
	setState(placementv1beta1.StateStop)
	stopped := waitRun(t, c, run.Name, func(r *placementv1beta1.ClusterStagedUpdateRun) error {
		return conditionIs(r.Status.Conditions, "Progressing", metav1.ConditionFalse, placementv1beta1.UpdateRunStoppedReason)
	})
	for _, cl := range stopped.Status.StagesStatus[1].Clusters {
		if clusterStarted(&cl) {
			t.Errorf("cluster %s started while the run was stopped", cl.ClusterName)
		}
	}
	waitingSince := meta.FindStatusCondition(stopped.Status.StagesStatus[0].Conditions, "Progressing").LastTransitionTime
	if stopped.Status.StagesStatus[0].StoppedTime == nil {
		t.Fatal("staging's stoppedTime is not set")
	}
	// An hour stopped does not count towards staging's hour of wait.
	clock.Advance(time.Hour)
	setState(placementv1beta1.StateRun)
	resumed := waitRun(t, c, run.Name, func(r *placementv1beta1.ClusterStagedUpdateRun) error {
		if r.Status.StagesStatus[0].StoppedTime != nil {
			return fmt.Errorf("not resumed yet")
		}
		return conditionIs(r.Status.Conditions, "Progressing", metav1.ConditionFalse, placementv1beta1.UpdateRunWaitingReason)
	})
	moved := meta.FindStatusCondition(resumed.Status.StagesStatus[0].Conditions, "Progressing").LastTransitionTime.Sub(waitingSince.Time)
	if moved < time.Hour || moved > time.Hour+time.Minute {
		t.Fatalf("staging's wait moved on by %s, after an hour stopped", moved)
	}
	if err := c.Get(t.Context(), client.ObjectKey{Name: "stop-run-canary"}, &placementv1beta1.ClusterApprovalRequest{}); !apierrors.IsNotFound(err) {
		t.Fatalf("canary started while staging had most of its wait left (%v)", err)
	}
	clock.Advance(time.Hour)
	poke := []byte(fmt.Sprintf(`{"metadata":{"annotations":{"test/poke":%q}}}`, time.Now().Format(time.RFC3339Nano)))
	if err := c.Patch(t.Context(), run, client.RawPatch(types.MergePatchType, poke)); err != nil {
		t.Fatal(err)
	}
	waitRun(t, c, run.Name, func(r *placementv1beta1.ClusterStagedUpdateRun) error {
		return c.Get(t.Context(), client.ObjectKey{Name: "stop-run-canary"}, &placementv1beta1.ClusterApprovalRequest{})
	})
	approval := &placementv1beta1.ClusterApprovalRequest{ObjectMeta: metav1.ObjectMeta{Name: "stop-run-canary"}}
	approve := []byte(`{"status":{"conditions":[{"type":"Approved","status":"True","reason":"ok","message":"ok","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`)
	if err := c.Status().Patch(t.Context(), approval, client.RawPatch(types.MergePatchType, approve)); err != nil {
		t.Fatal(err)
	}
	waitRun(t, c, run.Name, succeeded)
}

// TestBeforeStageApproval: a before-stage Approval holds the stage's first cluster until the
// request <run>-before-<stage> is approved.
func TestBeforeStageApproval(t *testing.T) {
	c := startControllers(t)
	fleet(t, c, "before-placement")
	s := &placementv1beta1.ClusterStagedUpdateStrategy{ObjectMeta: metav1.ObjectMeta{Name: "before-strategy"}}
	s.Spec.Stages = []placementv1beta1.StageConfig{
		stageConfig("staging", map[string]string{"environment": "staging"}),
		stageConfig("canary", map[string]string{"environment": "canary"}),
	}
	s.Spec.Stages[1].BeforeStageTasks = []placementv1beta1.StageTask{{Type: placementv1beta1.StageTaskTypeApproval}}
	create(t, c, s)
	run := newRun("before-run", "before-placement", "before-strategy", "1")
	create(t, c, run)

	approval := &placementv1beta1.ClusterApprovalRequest{ObjectMeta: metav1.ObjectMeta{Name: "before-run-before-canary"}}
	waitRun(t, c, run.Name, func(r *placementv1beta1.ClusterStagedUpdateRun) error {
		return c.Get(t.Context(), client.ObjectKeyFromObject(approval), approval)
	})
	if approval.Labels[placementv1beta1.TaskTypeLabel] != "beforeStage" || approval.Spec.TargetStage != "canary" {
		t.Errorf("approval request %+v", approval)
	}
	held := waitRun(t, c, run.Name, func(r *placementv1beta1.ClusterStagedUpdateRun) error {
		return conditionIs(r.Status.Conditions, "Progressing", metav1.ConditionFalse, placementv1beta1.UpdateRunWaitingReason)
	})
	for _, cl := range held.Status.StagesStatus[1].Clusters {
		if clusterStarted(&cl) {
			t.Errorf("%s started before the stage was approved", cl.ClusterName)
		}
	}
	approve := []byte(`{"status":{"conditions":[{"type":"Approved","status":"True","reason":"ok","message":"ok","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`)
	if err := c.Status().Patch(t.Context(), approval, client.RawPatch(types.MergePatchType, approve)); err != nil {
		t.Fatal(err)
	}
	done := waitRun(t, c, run.Name, succeeded)
	if err := conditionIs(done.Status.StagesStatus[1].BeforeStageTaskStatus[0].Conditions, "ApprovalRequestApproved", metav1.ConditionTrue,
		placementv1beta1.BeforeStageTaskApprovalRequestApprovedReason); err != nil {
		t.Error(err)
	}
}

func stageConfig(name string, match map[string]string) placementv1beta1.StageConfig {
	return placementv1beta1.StageConfig{Name: name, LabelSelector: &metav1.LabelSelector{MatchLabels: match}}
}
