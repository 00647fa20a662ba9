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

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/fleetv1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
	"github.com/stagecoach-dev/stagecoach/internal/view"
)

// TestRunCommands drives Kubefleet update runs with the command line: status and approve at the
// stage that asks for it (refused for a stage without an approval task or unknown), stop and
// resume, get, then a rollback of the placement to its first snapshot, read from qa.
func TestRunCommands(t *testing.T) {
	c := fleetv1.Client(testenv.Client(t)) // the Kubefleet kinds go through v1, as Kubefleet's docs write them
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "clirun"}}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: "clirun"}, Data: map[string]string{"value": "v1"}}
	staged := &placementv1beta1.ClusterStagedUpdateStrategy{ObjectMeta: metav1.ObjectMeta{Name: "clirun-staged"}}
	staged.Spec.Stages = []placementv1beta1.StageConfig{
		{Name: "dev", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "dev"}},
			AfterStageTasks: []placementv1beta1.StageTask{{Type: placementv1beta1.StageTaskTypeApproval}}},
		{Name: "rest", LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: []string{"prod", "qa"}}}}},
	}
	fast := &placementv1beta1.ClusterStagedUpdateStrategy{ObjectMeta: metav1.ObjectMeta{Name: "clirun-fast"}}
	fast.Spec.Stages = []placementv1beta1.StageConfig{{Name: "all", LabelSelector: &metav1.LabelSelector{}}}
	crp := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "clirun"}}
	crp.Spec.ResourceSelectors = []placementv1beta1.ResourceSelectorTerm{{Group: "", Version: "v1", Kind: "Namespace", Name: "clirun"}}
	crp.Spec.Policy = &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickAllPlacementType}
	crp.Spec.Strategy.Type = placementv1beta1.ExternalRolloutStrategyType
	for _, obj := range []client.Object{ns, cm, staged, fast, crp} {
		if err := c.Create(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Delete(context.Background(), obj) })
	}
	snapshot := func(i int) {
		t.Helper()
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			return c.Get(ctx, client.ObjectKey{Name: fmt.Sprintf("clirun-%d-snapshot", i)}, &placementv1beta1.ClusterResourceSnapshot{})
		})
	}
	start := func(name, index string) {
		t.Helper()
		r := &placementv1beta1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: name}}
		r.Spec.PlacementName, r.Spec.StagedUpdateStrategyName, r.Spec.ResourceSnapshotIndex = "clirun", "clirun-staged", index
		if err := c.Create(t.Context(), r); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Delete(context.Background(), r) })
	}

	snapshot(0)
	start("clirun-1", "0")
	r := waitState(t, view.Waiting, "run", "clirun-1")
	if r.Stages[0].Name != "dev" || !strings.Contains(r.Stages[0].WaitingFor, "approval request clirun-1-dev") || r.Stages[1].State != view.Pending {
		t.Errorf("status run clirun-1: %+v", r)
	}
	refused(t, map[string]string{
		"approve run clirun-1 --stage rest": "stage rest of ClusterStagedUpdateRun clirun-1 has no Approval task",
		"approve run clirun-1 --stage nope": "ClusterStagedUpdateRun clirun-1 has no stage nope; its stages are dev, rest",
		"approve run clirun-1":              "--stage is required",
		"approve run nope --stage dev":      "ClusterStagedUpdateRun nope not found",
		"status run clirun-1 -n default":    "StagedUpdateRun clirun-1 not found in namespace default",
	})
	if out, err := stagecoach(t, "__complete", "status", "run", ""); err != nil || !strings.Contains(out, "clirun-1\n") {
		t.Errorf("completing a run's name: %v: %q", err, out)
	}
	// Approved by someone else than the admin: the API server stamps who on the request.
	approver := impersonating(t, "cli-run-approver", rbacv1.PolicyRule{APIGroups: []string{placementv1beta1.GroupVersion.Group},
		Resources: []string{"clusterstagedupdateruns", "clusterapprovalrequests", "clusterapprovalrequests/status"}, Verbs: []string{"get", "list", "update"}})
	if out, err := stagecoachAs(t.Context(), approver, "approve", "run", "clirun-1", "--stage", "dev"); err != nil ||
		out != "approved ClusterApprovalRequest clirun-1-dev (stage dev of ClusterStagedUpdateRun clirun-1)\n" {
		t.Fatalf("approve run: %v: %q", err, out)
	}
	forgeRunApprover(t, "clirun-1-dev", "cli-run-approver")
	waitState(t, view.Succeeded, "run", "clirun-1")
	waitSettings(t, "qa", "clirun", "v1")

	cm.Data["value"] = "v2"
	if err := c.Update(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	snapshot(1)
	start("clirun-2", "1")
	waitState(t, view.Waiting, "run", "clirun-2")
	if out, err := stagecoach(t, "stop", "run", "clirun-2"); err != nil || out != "stopped ClusterStagedUpdateRun clirun-2\n" {
		t.Fatalf("stop run: %v: %q", err, out)
	}
	waitState(t, view.Suspended, "run", "clirun-2")
	if out, err := stagecoach(t, "resume", "run", "clirun-2"); err != nil || out != "resumed ClusterStagedUpdateRun clirun-2\n" {
		t.Fatalf("resume run: %v: %q", err, out)
	}
	waitState(t, view.Waiting, "run", "clirun-2")
	if _, err := stagecoach(t, "approve", "run", "clirun-2", "--stage", "dev"); err != nil {
		t.Fatal(err)
	}
	waitState(t, view.Succeeded, "run", "clirun-2")
	waitSettings(t, "qa", "clirun", "v2")
	out, err := stagecoach(t, "get", "runs")
	if err != nil || !regexp.MustCompile(`(?m)^-\s+clirun-2\s+clirun\s+1\s+-\s+Succeeded\s`).MatchString(out) {
		t.Errorf("get runs (%v):\n%s", err, out)
	}

	if _, err := stagecoach(t, "rollback", "placement", "clirun", "--to-index", "7"); err == nil ||
		!strings.Contains(err.Error(), "ClusterResourcePlacement clirun has no resource snapshot index 7; it has 0, 1") {
		t.Errorf("rollback to an index that does not exist: %v", err)
	}
	out, err = stagecoach(t, "rollback", "placement", "clirun", "--to-index", "0", "--strategy", "clirun-fast")
	m := regexp.MustCompile(`^created ClusterStagedUpdateRun (clirun-rollback-\w+): ClusterResourcePlacement clirun back to resource snapshot index 0 with strategy clirun-fast\n$`).FindStringSubmatch(out)
	if err != nil || m == nil {
		t.Fatalf("rollback placement: %v: %q", err, out)
	}
	t.Cleanup(func() {
		_ = c.Delete(context.Background(), &placementv1beta1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: m[1]}})
	})
	waitState(t, view.Succeeded, "run", m[1])
	waitSettings(t, "qa", "clirun", "v1")

	// The placement's history: its three runs, newest first.
	out, err = stagecoach(t, "history", "placement", "clirun", "-o", "json")
	var h view.History
	if err == nil {
		err = json.Unmarshal([]byte(out), &h)
	}
	if err != nil || len(h.Versions) != 3 || h.Versions[0].Run != m[1] || h.Versions[1].Run != "clirun-2" || h.Versions[2].Run != "clirun-1" {
		t.Fatalf("history placement clirun -o json (%v):\n%s", err, out)
	}
	first := h.Versions[2]
	if first.Version != "0" || first.Outcome != "Succeeded" || first.Started == nil || first.Finished == nil || len(first.Stages) != 2 ||
		first.Stages[0].Name != "dev" || first.Stages[0].ApprovedAt == nil || first.Stages[0].ApprovedBy != "cli-run-approver" || first.Stages[0].ApprovalNeededSince == nil || first.Stages[1].Outcome != "Succeeded" {
		t.Errorf("run clirun-1 in the history: %+v", first)
	}
	if text, err := stagecoach(t, "history", "placement", "clirun"); err != nil || !strings.Contains(text, "Run clirun-1, resource snapshot 0: Succeeded") {
		t.Errorf("history placement clirun (%v):\n%s", err, text)
	}
}

// forgeRunApprover tries, as the admin, to change and then to remove the approver the API server
// stamped on the approval request: both are undone.
func forgeRunApprover(t *testing.T, name, approver string) {
	t.Helper()
	c := testenv.Client(t)
	stamped := func() string {
		req := &placementv1beta1.ClusterApprovalRequest{}
		if err := c.Get(t.Context(), client.ObjectKey{Name: name}, req); err != nil {
			t.Fatal(err)
		}
		if cond := req.Status.Condition(view.ApprovedByCondition); cond != nil {
			return cond.Message
		}
		return ""
	}
	if by := stamped(); by != approver {
		t.Fatalf("approval request %s is stamped %q, want %q", name, by, approver)
	}
	for _, forge := range []func(*placementv1beta1.ClusterApprovalRequest){
		func(req *placementv1beta1.ClusterApprovalRequest) {
			req.Status.Condition(view.ApprovedByCondition).Message = "bob"
		},
		func(req *placementv1beta1.ClusterApprovalRequest) {
			req.Status.Conditions = slices.DeleteFunc(req.Status.Conditions, func(c placementv1beta1.ApprovalCondition) bool {
				return c.Type == view.ApprovedByCondition
			})
		},
	} {
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			req := &placementv1beta1.ClusterApprovalRequest{}
			if err := c.Get(ctx, client.ObjectKey{Name: name}, req); err != nil {
				return err
			}
			forge(req)
			return c.Status().Update(ctx, req)
		})
		if by := stamped(); by != approver {
			t.Fatalf("a forged approver stuck: approval request %s is stamped %q, want %q", name, by, approver)
		}
	}
}
