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
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// shortWaits replaces the strategy's TimedWait waitTimes with 2s: the walkthrough's minute
// proves nothing more than two seconds do.
func shortWaits(u *unstructured.Unstructured) {
	stages, _, _ := unstructured.NestedSlice(u.Object, "spec", "stages")
	for _, s := range stages {
		tasks, _, _ := unstructured.NestedSlice(s.(map[string]any), "afterStageTasks")
		for _, task := range tasks {
			if task.(map[string]any)["type"] == "TimedWait" {
				task.(map[string]any)["waitTime"] = "2s"
			}
		}
		_ = unstructured.SetNestedSlice(s.(map[string]any), tasks, "afterStageTasks")
	}
	_ = unstructured.SetNestedSlice(u.Object, stages, "spec", "stages")
}

func getRun(ctx context.Context, name string, c client.Client) (*placementv1beta1.ClusterStagedUpdateRun, error) {
	run := &placementv1beta1.ClusterStagedUpdateRun{}
	return run, c.Get(ctx, client.ObjectKey{Name: name}, run)
}

func runSucceeded(t *testing.T, name string) *placementv1beta1.ClusterStagedUpdateRun {
	t.Helper()
	var run *placementv1beta1.ClusterStagedUpdateRun
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		var err error
		if run, err = getRun(ctx, name, kclient(t)); err != nil {
			return err
		}
		if !meta.IsStatusConditionTrue(run.Status.Conditions, "Succeeded") {
			return fmt.Errorf("run %s not succeeded: %+v", name, run.Status.Conditions)
		}
		return nil
	})
	return run
}

// runFailed waits, at most within, until the run has failed, and returns it.
func runFailed(t *testing.T, name string, within time.Duration) *placementv1beta1.ClusterStagedUpdateRun {
	t.Helper()
	var run *placementv1beta1.ClusterStagedUpdateRun
	testenv.Eventually(t, within, func(ctx context.Context) error {
		var err error
		if run, err = getRun(ctx, name, kclient(t)); err != nil {
			return err
		}
		if s := meta.FindStatusCondition(run.Status.Conditions, "Succeeded"); s == nil || s.Status != metav1.ConditionFalse {
			return fmt.Errorf("run %s has not failed: %+v", name, run.Status.Conditions)
		}
		return nil
	})
	return run
}

// TestClusterScopedWalkthrough follows the cluster-scoped half of seed 004: snapshots 0 and 1,
// example-run with a TimedWait then an Approval, member3 before member1, the seed's approval
// patch, value2 everywhere, then example-run-2 rolling back to value1.
func TestClusterScopedWalkthrough(t *testing.T) {
	c := testenv.Client(t)
	applyAsWritten(t, "004-namespace-test-namespace.yaml", nil)
	applyAsWritten(t, "004-configmap-test-cm-value1.yaml", nil)
	applyAsWritten(t, "004-clusterresourceplacement-example-placement.yaml", nil)

	// Scheduled on all three members, nothing deployed, not available yet.
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		crp := &placementv1beta1.ClusterResourcePlacement{}
		if err := c.Get(ctx, client.ObjectKey{Name: "example-placement"}, crp); err != nil {
			return err
		}
		if !meta.IsStatusConditionTrue(crp.Status.Conditions, string(placementv1beta1.ClusterResourcePlacementScheduledConditionType)) {
			return fmt.Errorf("not scheduled: %+v", crp.Status.Conditions)
		}
		return snapshotLabels(ctx, c, "example-placement-0-snapshot", "true")
	})
	for _, m := range members {
		if _, err := member(t, m).CoreV1().ConfigMaps("test-namespace").Get(t.Context(), "test-cm", metav1.GetOptions{}); err == nil {
			t.Errorf("%s got test-cm before any update run", m)
		}
	}
	if cols := header(kubectl(t, "get", "crp", "example-placement")); !slices.Equal(cols, []string{"NAME", "GEN", "SCHEDULED", "SCHEDULED-GEN", "AVAILABLE", "AVAILABLE-GEN", "AGE"}) {
		t.Errorf("kubectl get crp columns %v", cols)
	}

	applyAsWritten(t, "004-configmap-test-cm-value2.yaml", nil)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := snapshotLabels(ctx, c, "example-placement-0-snapshot", "false"); err != nil {
			return err
		}
		return snapshotLabels(ctx, c, "example-placement-1-snapshot", "true")
	})
	snap := &placementv1beta1.ClusterResourceSnapshot{}
	if err := c.Get(t.Context(), client.ObjectKey{Name: "example-placement-1-snapshot"}, snap); err != nil {
		t.Fatal(err)
	}
	if s := string(mustJSON(t, snap.Spec.SelectedResources)); !strings.Contains(s, `"key":"value2"`) || !strings.Contains(s, `"kind":"Namespace"`) {
		t.Errorf("snapshot 1 holds %s", s)
	}

	applyAsWritten(t, "004-clusterstagedupdatestrategy-example-strategy.yaml", shortWaits)
	order := watchValues(t, "test-namespace", "test-cm")
	applyAsWritten(t, "004-clusterstagedupdaterun-example-run.yaml", nil)
	approval := &placementv1beta1.ClusterApprovalRequest{ObjectMeta: metav1.ObjectMeta{Name: "example-run-canary"}}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(approval), approval); err != nil {
			return err
		}
		run, err := getRun(ctx, "example-run", c)
		if err != nil {
			return err
		}
		canary := run.Status.StagesStatus[1]
		for _, cl := range canary.Clusters {
			if !meta.IsStatusConditionTrue(cl.Conditions, "Succeeded") {
				return fmt.Errorf("%s not updated yet", cl.ClusterName)
			}
		}
		return nil
	})
	if cols := header(kubectl(t, "get", "csur", "example-run")); !slices.Equal(cols, []string{"NAME", "PLACEMENT", "RESOURCE-SNAPSHOT", "POLICY-SNAPSHOT", "INITIALIZED", "SUCCEEDED", "AGE"}) {
		t.Errorf("kubectl get csur columns %v", cols)
	}
	if meta.IsStatusConditionTrue(mustRun(t, "example-run").Status.Conditions, "Succeeded") {
		t.Fatal("the run succeeded before its approval")
	}
	approve(t, approval, "004-approval-patch-clusterapprovalrequest-example-run-canary.json")
	runSucceeded(t, "example-run")
	waitConfigMapValue(t, "value2")
	if got, want := order(), []string{"member2=value2", "member3=value2", "member1=value2"}; !slices.Equal(got, want) {
		t.Errorf("members received value2 in the order %v, want %v (staging, then canary by the order label)", got, want)
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		out := kubectl(t, "get", "crp", "example-placement", "--no-headers")
		if f := strings.Fields(out); len(f) < 6 || f[2] != "True" || f[4] != "True" || f[5] != "1" {
			return fmt.Errorf("kubectl get crp: %s", out)
		}
		out = kubectl(t, "get", "clusterapprovalrequest", "example-run-canary", "--no-headers")
		if f := strings.Fields(out); len(f) < 5 || f[1] != "example-run" || f[2] != "canary" || f[3] != "True" || f[4] != "True" {
			return fmt.Errorf("kubectl get clusterapprovalrequest: %s", out)
		}
		return nil
	})

	// Rollback: example-run-2 takes snapshot 0 through the same stages.
	applyAsWritten(t, "004-clusterstagedupdaterun-example-run-2.yaml", nil)
	approve(t, &placementv1beta1.ClusterApprovalRequest{ObjectMeta: metav1.ObjectMeta{Name: "example-run-2-canary"}},
		"004-approval-patch-clusterapprovalrequest-example-run-canary.json")
	run := runSucceeded(t, "example-run-2")
	waitConfigMapValue(t, "value1")

	// The finished run's status has the seed's shape: same conditions, stages, clusters and tasks.
	want := &placementv1beta1.ClusterStagedUpdateRun{}
	if err := yaml.Unmarshal(fixture(t, "004-status-clusterstagedupdaterun-example-run-2.yaml"), want); err != nil {
		t.Fatal(err)
	}
	if got, want := statusShape(run.Status), statusShape(want.Status); !slices.Equal(got, want) {
		t.Errorf("status of example-run-2 differs from the seed's:\ngot:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	t.Log("kubectl get crp,csur,careq:\n" + kubectl(t, "get", "crp,csur,careq"))
}

// statusShape lists what a run's status says, without times and messages: each condition of the
// run, its stages, clusters and tasks, in order.
func statusShape(s placementv1beta1.UpdateRunStatus) []string {
	var out []string
	conds := func(prefix string, cs []metav1.Condition) {
		for _, c := range cs {
			out = append(out, fmt.Sprintf("%s %s=%s (%s)", prefix, c.Type, c.Status, c.Reason))
		}
	}
	stage := func(st placementv1beta1.StageUpdatingStatus) {
		conds("stage "+st.StageName, st.Conditions)
		for _, c := range st.Clusters {
			conds("stage "+st.StageName+" cluster "+c.ClusterName, c.Conditions)
		}
		for _, task := range st.AfterStageTaskStatus {
			conds(fmt.Sprintf("stage %s after-task %s %s", st.StageName, task.Type, task.ApprovalRequestName), task.Conditions)
		}
	}
	conds("run", s.Conditions)
	for _, st := range s.StagesStatus {
		stage(st)
	}
	if s.DeletionStageStatus != nil {
		stage(*s.DeletionStageStatus)
	}
	out = append(out, fmt.Sprintf("clusters %d, policy index %q", s.PolicyObservedClusterCount, s.PolicySnapshotIndexUsed))
	return out
}

func snapshotLabels(ctx context.Context, c client.Client, name, latest string) error {
	snap := &placementv1beta1.ClusterResourceSnapshot{}
	if err := c.Get(ctx, client.ObjectKey{Name: name}, snap); err != nil {
		return err
	}
	want := map[string]string{
		"kubernetes-fleet.io/is-latest-snapshot": latest,
		"kubernetes-fleet.io/parent-CRP":         "example-placement",
		"kubernetes-fleet.io/resource-index":     strings.Split(name, "-")[2],
	}
	for k, v := range want {
		if snap.Labels[k] != v {
			return fmt.Errorf("%s: label %s=%q, want %q", name, k, snap.Labels[k], v)
		}
	}
	return nil
}

func mustRun(t *testing.T, name string) *placementv1beta1.ClusterStagedUpdateRun {
	t.Helper()
	run, err := getRun(t.Context(), name, kclient(t))
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := yaml.YAMLToJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestNamespaceScopedWalkthrough follows the namespace-scoped half of seed 004: web-app with
// nginx 1.20, snapshot 1 with nginx 1.21, the StagedUpdateRun approved with the seed's patch (no
// observedGeneration), then the rollback run to 1.20. It runs twice side by side: with the seed's
// v1beta1 documents as written, and with the same documents sent as v1 in a namespace of their own.
func TestNamespaceScopedWalkthrough(t *testing.T) {
	t.Run("v1beta1 as written", func(t *testing.T) {
		t.Parallel()
		namespaceScopedWalkthrough(t, testenv.Client(t), "my-app-namespace", applyAsWritten)
	})
	t.Run("v1", func(t *testing.T) {
		t.Parallel()
		const ns = "my-app-v1"
		namespaceScopedWalkthrough(t, kclient(t), ns, func(t *testing.T, file string, mutate func(*unstructured.Unstructured)) *unstructured.Unstructured {
			t.Helper()
			return apply(t, file, func(u *unstructured.Unstructured) {
				if u.GetKind() == "Namespace" {
					u.SetName(ns)
				} else {
					u.SetNamespace(ns)
				}
				if mutate != nil {
					mutate(u)
				}
			})
		})
		writtenInV1(t, &placementv1beta1.ResourcePlacement{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-app-placement"}},
			&placementv1beta1.StagedUpdateStrategy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app-rollout-strategy"}},
			&placementv1beta1.StagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-app-rollout-v1-21"}})
	})
}

// namespaceScopedWalkthrough is the walkthrough in namespace ns, each document applied with
// applyDoc and every object read with c.
func namespaceScopedWalkthrough(t *testing.T, c client.Client, ns string, applyDoc func(*testing.T, string, func(*unstructured.Unstructured)) *unstructured.Unstructured) {
	applyDoc(t, "004-namespace-my-app-namespace.yaml", nil)
	applyDoc(t, "004-deployment-web-app-nginx-1.20.yaml", nil)
	applyDoc(t, "004-service-web-app.yaml", nil)
	applyDoc(t, "004-resourceplacement-web-app-placement.yaml", nil)
	waitSnapshot := func(name, latest string) {
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			snap := &placementv1beta1.ResourceSnapshot{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, snap); err != nil {
				return err
			}
			if snap.Labels["kubernetes-fleet.io/is-latest-snapshot"] != latest {
				return fmt.Errorf("%s is-latest %q", name, snap.Labels["kubernetes-fleet.io/is-latest-snapshot"])
			}
			return nil
		})
	}
	waitSnapshot("web-app-placement-0-snapshot", "true")
	applyDoc(t, "004-deployment-web-app-nginx-1.21.yaml", nil)
	waitSnapshot("web-app-placement-1-snapshot", "true")
	applyDoc(t, "004-stagedupdatestrategy-app-rollout-strategy.yaml", shortWaits)

	rollout := func(runFile, runName, image string) {
		t.Helper()
		applyDoc(t, runFile, nil)
		approve(t, &placementv1beta1.ApprovalRequest{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: runName + "-prod-clusters"}},
			"004-approval-patch-approvalrequest-web-app-rollout-v1-21-prod-clusters.json")
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			run := &placementv1beta1.StagedUpdateRun{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: runName}, run); err != nil {
				return err
			}
			if !meta.IsStatusConditionTrue(run.Status.Conditions, "Succeeded") {
				return fmt.Errorf("run %s: %+v", runName, run.Status.Conditions)
			}
			return nil
		})
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			for _, m := range members {
				d, err := member(t, m).AppsV1().Deployments(ns).Get(ctx, "web-app", metav1.GetOptions{})
				if err != nil {
					return fmt.Errorf("%s: %w", m, err)
				}
				if got := d.Spec.Template.Spec.Containers[0].Image; got != image || !deploymentAvailable(d) {
					return fmt.Errorf("%s runs %s (available %v), want %s", m, got, deploymentAvailable(d), image)
				}
				if _, err := member(t, m).CoreV1().Services(ns).Get(ctx, "web-app", metav1.GetOptions{}); err != nil {
					return fmt.Errorf("%s: %w", m, err)
				}
			}
			return nil
		})
	}
	rollout("004-stagedupdaterun-web-app-rollout-v1-21.yaml", "web-app-rollout-v1-21", "nginx:1.21")
	rollout("004-stagedupdaterun-web-app-rollback-v1-20.yaml", "web-app-rollback-v1-20", "nginx:1.20")
	t.Log("kubectl get rp,sur,areq -n " + ns + ":\n" + kubectl(t, "get", "rp,sur,areq", "-n", ns))
}

func deploymentAvailable(d *appsv1.Deployment) bool {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable {
			return c.Status == "True" && d.Status.UpdatedReplicas == *d.Spec.Replicas && d.Status.AvailableReplicas == *d.Spec.Replicas
		}
	}
	return false
}

// TestRunsThatCannotStart: a run naming a snapshot index the placement does not have, a missing
// strategy, or a placement that rolls out by itself fails at once and says why.
func TestRunsThatCannotStart(t *testing.T) {
	c := kclient(t)
	// Its own namespace: the walkthrough's is deleted when that test ends, which takes a while.
	apply(t, "004-namespace-test-namespace.yaml", func(u *unstructured.Unstructured) { u.SetName("cannot-start") })
	selectNamespace := func(name, strategy string) func(*unstructured.Unstructured) {
		return func(u *unstructured.Unstructured) {
			u.SetName(name)
			_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"group": "", "version": "v1", "kind": "Namespace", "name": "cannot-start"}}, "spec", "resourceSelectors")
			_ = unstructured.SetNestedField(u.Object, strategy, "spec", "strategy", "type")
		}
	}
	apply(t, "004-clusterresourceplacement-example-placement.yaml", selectNamespace("external-placement", "External"))
	apply(t, "004-clusterresourceplacement-example-placement.yaml", selectNamespace("rolling-placement", "RollingUpdate"))
	apply(t, "004-clusterstagedupdatestrategy-example-strategy.yaml", func(u *unstructured.Unstructured) { u.SetName("cannot-start-strategy") })
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		return c.Get(ctx, client.ObjectKey{Name: "external-placement-0-snapshot"}, &placementv1beta1.ClusterResourceSnapshot{})
	})
	tests := []struct{ run, placement, strategy, index, want string }{
		{"missing-index", "external-placement", "cannot-start-strategy", "5",
			"ClusterResourcePlacement external-placement has no resource snapshot with index 5 (it has: 0)"},
		{"missing-strategy", "external-placement", "no-such-strategy", "0",
			"ClusterStagedUpdateStrategy no-such-strategy not found"},
		{"not-external", "rolling-placement", "cannot-start-strategy", "0",
			"ClusterResourcePlacement rolling-placement has rollout strategy RollingUpdate; staged update runs drive placements whose strategy type is External"},
	}
	for _, tc := range tests {
		apply(t, "004-clusterstagedupdaterun-example-run.yaml", func(u *unstructured.Unstructured) {
			u.SetName(tc.run)
			_ = unstructured.SetNestedField(u.Object, tc.placement, "spec", "placementName")
			_ = unstructured.SetNestedField(u.Object, tc.strategy, "spec", "stagedRolloutStrategyName")
			_ = unstructured.SetNestedField(u.Object, tc.index, "spec", "resourceSnapshotIndex")
		})
	}
	for _, tc := range tests {
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			run, err := getRun(ctx, tc.run, c)
			if err != nil {
				return err
			}
			cond := meta.FindStatusCondition(run.Status.Conditions, "Initialized")
			if cond == nil || cond.Status != metav1.ConditionFalse || cond.Message != tc.want {
				return fmt.Errorf("%s: Initialized %+v, want False with %q", tc.run, cond, tc.want)
			}
			return nil
		})
	}
}

// TestStopAndResume stops a run while it waits for approval after staging: canary is not touched
// until the run is set back to Run and approved, and then it finishes.
func TestStopAndResume(t *testing.T) {
	c := kclient(t)
	apply(t, "004-namespace-test-namespace.yaml", func(u *unstructured.Unstructured) { u.SetName("stop-resume") })
	apply(t, "004-configmap-test-cm-value1.yaml", func(u *unstructured.Unstructured) { u.SetNamespace("stop-resume") })
	apply(t, "004-clusterresourceplacement-example-placement.yaml", func(u *unstructured.Unstructured) {
		u.SetName("stop-placement")
		_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"group": "", "version": "v1", "kind": "Namespace", "name": "stop-resume"}}, "spec", "resourceSelectors")
	})
	apply(t, "004-clusterstagedupdatestrategy-example-strategy.yaml", func(u *unstructured.Unstructured) {
		u.SetName("stop-strategy")
		stages, _, _ := unstructured.NestedSlice(u.Object, "spec", "stages")
		// An approval holds the run after staging for as long as the test needs, however slow
		// the machine: the run is stopped while it waits there.
		stages[0].(map[string]any)["afterStageTasks"] = []any{map[string]any{"type": "Approval"}}
		_ = unstructured.SetNestedSlice(u.Object, stages, "spec", "stages")
	})
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		return c.Get(ctx, client.ObjectKey{Name: "stop-placement-0-snapshot"}, &placementv1beta1.ClusterResourceSnapshot{})
	})
	// A run created right away waits for the placement to finish scheduling: it cannot miss a cluster.
	run := apply(t, "004-clusterstagedupdaterun-example-run.yaml", func(u *unstructured.Unstructured) {
		u.SetName("stop-run")
		_ = unstructured.SetNestedField(u.Object, "stop-placement", "spec", "placementName")
		_ = unstructured.SetNestedField(u.Object, "stop-strategy", "spec", "stagedRolloutStrategyName")
		_ = unstructured.SetNestedField(u.Object, "0", "spec", "resourceSnapshotIndex")
	})
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		r, err := getRun(ctx, "stop-run", c)
		if err != nil {
			return err
		}
		if len(r.Status.StagesStatus) != 2 || len(r.Status.StagesStatus[0].Clusters) != 1 || len(r.Status.StagesStatus[1].Clusters) != 2 {
			return fmt.Errorf("stages %+v", r.Status.StagesStatus)
		}
		if !meta.IsStatusConditionTrue(r.Status.StagesStatus[0].Clusters[0].Conditions, "Succeeded") {
			return fmt.Errorf("staging not updated yet")
		}
		return c.Get(ctx, client.ObjectKey{Name: "stop-run-staging"}, &placementv1beta1.ClusterApprovalRequest{})
	})
	setState := func(state string) {
		patch := []byte(fmt.Sprintf(`{"spec":{"state":%q}}`, state))
		if err := c.Patch(t.Context(), run, client.RawPatch(types.MergePatchType, patch)); err != nil {
			t.Fatal(err)
		}
	}
	setState("Stop")
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		r, err := getRun(ctx, "stop-run", c)
		if err != nil {
			return err
		}
		cond := meta.FindStatusCondition(r.Status.Conditions, "Progressing")
		if cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != placementv1beta1.UpdateRunStoppedReason {
			return fmt.Errorf("Progressing %+v", cond)
		}
		return nil
	})
	for _, m := range []string{"member1", "member3"} {
		if _, err := member(t, m).CoreV1().ConfigMaps("stop-resume").Get(t.Context(), "test-cm", metav1.GetOptions{}); err == nil {
			t.Errorf("%s updated while the run was stopped", m)
		}
	}
	setState("Run")
	approve(t, &placementv1beta1.ClusterApprovalRequest{ObjectMeta: metav1.ObjectMeta{Name: "stop-run-staging"}},
		"004-approval-patch-clusterapprovalrequest-example-run-canary.json")
	approve(t, &placementv1beta1.ClusterApprovalRequest{ObjectMeta: metav1.ObjectMeta{Name: "stop-run-canary"}},
		"004-approval-patch-clusterapprovalrequest-example-run-canary.json")
	runSucceeded(t, "stop-run")
	writtenInV1(t, run) // the seed's v1beta1 document, sent as v1
	for _, m := range members {
		if _, err := member(t, m).CoreV1().ConfigMaps("stop-resume").Get(t.Context(), "test-cm", metav1.GetOptions{}); err != nil {
			t.Errorf("%s: %v", m, err)
		}
	}
}

// TestRollingUpdatePlacement: without an External strategy a placement rolls every change out
// by itself, and withdraws what it placed when it is deleted.
func TestRollingUpdatePlacement(t *testing.T) {
	c := kclient(t)
	apply(t, "004-namespace-test-namespace.yaml", func(u *unstructured.Unstructured) { u.SetName("rolling") })
	apply(t, "004-configmap-test-cm-value1.yaml", func(u *unstructured.Unstructured) { u.SetNamespace("rolling") })
	crp := apply(t, "004-clusterresourceplacement-example-placement.yaml", func(u *unstructured.Unstructured) {
		u.SetName("rolling-update")
		_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"group": "", "version": "v1", "kind": "Namespace", "name": "rolling"}}, "spec", "resourceSelectors")
		_ = unstructured.SetNestedMap(u.Object, map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxUnavailable": int64(1)}}, "spec", "strategy")
	})
	values := func(want string) func(ctx context.Context) error {
		return func(ctx context.Context) error {
			for _, m := range members {
				cm, err := member(t, m).CoreV1().ConfigMaps("rolling").Get(ctx, "test-cm", metav1.GetOptions{})
				if err != nil {
					return fmt.Errorf("%s: %w", m, err)
				}
				if cm.Data["key"] != want {
					return fmt.Errorf("%s: key=%s, want %s", m, cm.Data["key"], want)
				}
			}
			return nil
		}
	}
	testenv.Eventually(t, timeout, values("value1"))
	apply(t, "004-configmap-test-cm-value2.yaml", func(u *unstructured.Unstructured) { u.SetNamespace("rolling") })
	testenv.Eventually(t, timeout, values("value2"))
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		p := &placementv1beta1.ClusterResourcePlacement{}
		if err := c.Get(ctx, client.ObjectKey{Name: "rolling-update"}, p); err != nil {
			return err
		}
		if !meta.IsStatusConditionTrue(p.Status.Conditions, string(placementv1beta1.ClusterResourcePlacementAvailableConditionType)) {
			return fmt.Errorf("not available: %+v", p.Status.Conditions)
		}
		return nil
	})

	if err := c.Delete(t.Context(), crp); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		for _, m := range members {
			if _, err := member(t, m).CoreV1().ConfigMaps("rolling").Get(ctx, "test-cm", metav1.GetOptions{}); err == nil {
				return fmt.Errorf("%s still has test-cm", m)
			}
		}
		return nil
	})
}
