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
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/operate"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestOverridesPinnedByRuns: an update run pins the override snapshots it started with. An
// override edited while a run waits for the canary stage's approval reaches no canary cluster
// through that run; the next run, which also rolls out a resource change, gives it to staging,
// and to the canaries only through its approval. `stagecoach rollback placement` back to the
// first index restores the override the clusters had with it; an ordinary run naming that
// index takes the latest override, as Kubefleet does.
func TestOverridesPinnedByRuns(t *testing.T) {
	t.Parallel()
	c := testenv.Client(t)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ovr-run"}}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ovr-run"}, Data: map[string]string{"key": "value1"}}
	strategy := &placementv1beta1.ClusterStagedUpdateStrategy{ObjectMeta: metav1.ObjectMeta{Name: "ovr-run"}}
	strategy.Spec.Stages = []placementv1beta1.StageConfig{
		{Name: "staging", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"environment": "staging"}}},
		{Name: "canary", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"environment": "canary"}},
			BeforeStageTasks: []placementv1beta1.StageTask{{Type: placementv1beta1.StageTaskTypeApproval}}},
	}
	ro := resourceOverride("cm-flavour", "ovr-run", "", "ConfigMap", "cm", placementv1beta1.OverrideRule{ClusterSelector: everyCluster(),
		JSONPatchOverrides: []placementv1beta1.JSONPatchOverride{jsonPatch("add", "/data/flavour", `"one"`)}})
	createAll(t, ns, cm, strategy, ro, externalPlacement("ovr-run", "ovr-run"))
	waitLatestOverrideSnapshot(t, "ovr-run", "cm-flavour-0")
	waitSnapshot(t, "ovr-run-0-snapshot")

	start := func(name, index string) {
		t.Helper()
		r := &placementv1beta1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: name}}
		r.Spec.PlacementName, r.Spec.StagedUpdateStrategyName, r.Spec.ResourceSnapshotIndex = "ovr-run", "ovr-run", index
		createAll(t, r)
	}
	approveCanary := func(run string) {
		t.Helper()
		approve(t, &placementv1beta1.ClusterApprovalRequest{ObjectMeta: metav1.ObjectMeta{Name: run + "-before-canary"}},
			"004-approval-patch-clusterapprovalrequest-example-run-canary.json")
	}
	// flavours waits for key and flavour on member1, member2 and member3, "value/flavour" each.
	flavours := func(want ...string) {
		t.Helper()
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			for i, m := range members {
				data, err := memberConfigMap(ctx, t, m, "ovr-run", "cm")
				if err != nil {
					return err
				}
				if got := data["key"] + "/" + data["flavour"]; got != want[i] {
					return fmt.Errorf("%s runs %s, want %s", m, got, want[i])
				}
			}
			return nil
		})
	}
	pinned := func(run *placementv1beta1.ClusterStagedUpdateRun, want string) {
		t.Helper()
		for _, st := range run.Status.StagesStatus {
			for _, cl := range st.Clusters {
				if len(cl.ResourceOverrideSnapshots) != 1 || cl.ResourceOverrideSnapshots[0].Name != want {
					t.Errorf("run %s pins %v for %s, want %s", run.Name, cl.ResourceOverrideSnapshots, cl.ClusterName, want)
				}
			}
		}
	}

	start("ovr-run-1", "0")
	// Staging is done when the canary stage waits for its approval.
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		return c.Get(ctx, client.ObjectKey{Name: "ovr-run-1-before-canary"}, &placementv1beta1.ClusterApprovalRequest{})
	})
	waitData(t, "ovr-run", "cm", "flavour", map[string]string{"member2": "one"})
	updateOverride(t, ro, "cm-flavour-1", placementv1beta1.OverrideRule{ClusterSelector: everyCluster(),
		JSONPatchOverrides: []placementv1beta1.JSONPatchOverride{jsonPatch("add", "/data/flavour", `"two"`)}})
	approveCanary("ovr-run-1")
	pinned(runSucceeded(t, "ovr-run-1"), "cm-flavour-0")
	flavours("value1/one", "value1/one", "value1/one")

	// A resource change and the edited override, through the next run.
	cm.Data["key"] = "value2"
	if err := c.Update(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	waitSnapshot(t, "ovr-run-1-snapshot")
	start("ovr-run-2", "1")
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		return c.Get(ctx, client.ObjectKey{Name: "ovr-run-2-before-canary"}, &placementv1beta1.ClusterApprovalRequest{})
	})
	flavours("value1/one", "value2/two", "value1/one")
	approveCanary("ovr-run-2")
	pinned(runSucceeded(t, "ovr-run-2"), "cm-flavour-1")
	flavours("value2/two", "value2/two", "value2/two")

	// Rolled back to index 0: the override the clusters had with it.
	msg, rb, err := operate.RollbackPlacement(t.Context(), c, "", "ovr-run", 0, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Log(msg)
	t.Cleanup(func() { _ = c.Delete(context.Background(), rb) })
	approveCanary(rb.GetName())
	pinned(runSucceeded(t, rb.GetName()), "cm-flavour-0")
	flavours("value1/one", "value1/one", "value1/one")

	// An ordinary run naming index 0 takes the latest override.
	start("ovr-run-4", "0")
	approveCanary("ovr-run-4")
	pinned(runSucceeded(t, "ovr-run-4"), "cm-flavour-1")
	flavours("value1/two", "value1/two", "value1/two")
	if !strings.Contains(msg, "back to resource snapshot index 0") {
		t.Errorf("rollback says %q", msg)
	}
}
