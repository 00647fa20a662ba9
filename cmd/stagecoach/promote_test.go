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
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
	"github.com/stagecoach-dev/stagecoach/internal/view"
)

// statusOf is the promotion (or run) as stagecoach status -o json shows it.
func statusOf(t *testing.T, args ...string) (*view.Rollout, error) {
	t.Helper()
	out, err := stagecoach(t, append([]string{"status"}, append(args, "-o", "json")...)...)
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, out)
	}
	r := &view.Rollout{}
	return r, json.Unmarshal([]byte(out), r)
}

// waitState waits until stagecoach status shows the rollout in state.
func waitState(t *testing.T, state view.State, args ...string) *view.Rollout {
	t.Helper()
	var r *view.Rollout
	testenv.Eventually(t, timeout, func(context.Context) error {
		var err error
		if r, err = statusOf(t, args...); err != nil {
			return err
		}
		if r.State != state {
			return fmt.Errorf("%s %s is %s (%s), want %s", r.Kind, r.Name, r.State, r.Message, state)
		}
		return nil
	})
	return r
}

// configMapValue reads the value of ConfigMap cli/settings on a managed cluster.
func configMapValue(ctx context.Context, t *testing.T, cluster string) (string, error) {
	cm, err := managed(t, cluster).CoreV1().ConfigMaps("cli").Get(ctx, "settings", metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	return cm.Data["value"], nil
}

// waitSettings waits until ConfigMap namespace/settings on a managed cluster holds value.
func waitSettings(t *testing.T, cluster, namespace, value string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := managed(t, cluster).CoreV1().ConfigMaps(namespace).Get(ctx, "settings", metav1.GetOptions{})
		if err != nil || got.Data["value"] != value {
			return fmt.Errorf("%s runs %v (%v), want %s", cluster, got.Data, err, value)
		}
		return nil
	})
}

// TestPromotionCommands follows a promotion the way an operator would, with the command line
// alone: status while it waits for approval at dev, approve (prod ahead of time; refused for a
// stage not reached without --ahead), --watch until it has gone through every stage, get, suspend and resume, then a second version
// rolled back from dev to the first, read from the dev cluster; and status through kubectl's
// plugin mechanism.
func TestPromotionCommands(t *testing.T) {
	c := testenv.Client(t)
	for _, v := range []string{"v1", "v2"} {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cli-" + v, Namespace: "default"}, Data: map[string]string{
			"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: cli\ndata:\n  value: " + v + "\n"}}
		if err := c.Create(t.Context(), cm); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Delete(context.Background(), cm) })
	}
	p := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: "cli"}}
	p.Spec.ProfileSpec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: "ConfigMap", Namespace: "default", Name: "cli-v1"}}
	dev := configv1beta1.Stage{Name: "dev", Trigger: &configv1beta1.Trigger{Manual: &configv1beta1.ManualTrigger{}}}
	dev.ClusterSelector.MatchLabels = map[string]string{"env": "dev"}
	prod := configv1beta1.Stage{Name: "prod", Trigger: &configv1beta1.Trigger{Manual: &configv1beta1.ManualTrigger{}}}
	prod.ClusterSelector.MatchLabels = map[string]string{"env": "prod"}
	p.Spec.Stages = []configv1beta1.Stage{dev, prod}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "cli"}}
	for _, cluster := range []string{"dev", "prod"} {
		if _, err := managed(t, cluster).CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		deletePromotion(t, c, p)
		for _, cluster := range []string{"dev", "prod"} {
			_ = managed(t, cluster).CoreV1().Namespaces().Delete(context.Background(), "cli", metav1.DeleteOptions{})
		}
	})

	// Waiting at dev for its approval, dev done, prod not reached.
	testenv.Eventually(t, timeout, func(context.Context) error {
		r, err := statusOf(t, "promotion", "cli")
		if err != nil {
			return err
		}
		if r.State != view.Waiting || len(r.Stages) != 2 || !strings.Contains(r.Stages[0].WaitingFor, "Awaiting Manual Approval") ||
			r.Stages[0].Counts[view.Succeeded] != 1 || r.Stages[1].State != view.Pending {
			return fmt.Errorf("status %+v", r)
		}
		return nil
	})
	out, err := stagecoach(t, "status", "promotion", "cli")
	if err != nil || !strings.Contains(out, "Stage dev: Waiting, 1 of 1 cluster succeeded\n  Paused: Awaiting Manual Approval") ||
		!strings.Contains(out, "  dev/dev  Succeeded  1 policyRef\n") || !strings.Contains(out, "Stage prod: Pending") {
		t.Errorf("status promotion cli (%v):\n%s", err, out)
	}

	refused(t, map[string]string{
		"approve promotion cli --stage prod":  "stage prod of ClusterPromotion cli is not waiting: the promotion is at stage dev (--ahead approves it in advance)",
		"approve promotion cli --stage nope":  "ClusterPromotion cli has no stage nope; its stages are dev, prod",
		"approve promotion nope":              "ClusterPromotion nope not found",
		"status promotion nope":               "ClusterPromotion nope not found",
		"rollback promotion cli":              "ClusterPromotion cli has no last known good version",
		"status promotion cli -o xml":         `-o "xml": want json or yaml`,
		"suspend promotion cli --context bad": `context "bad" does not exist`,
	})

	// Someone who may read promotions and not change them is told which verb they lack.
	viewer := impersonating(t, "cli-viewer", rbacv1.PolicyRule{APIGroups: []string{configv1beta1.GroupVersion.Group},
		Resources: []string{"clusterpromotions"}, Verbs: []string{"get", "list"}})
	if _, err := stagecoachAs(t.Context(), viewer, "approve", "promotion", "cli"); err == nil ||
		!strings.Contains(err.Error(), `permission denied: clusterpromotions.config.projectsveltos.io "cli" is forbidden: User "cli-viewer" cannot patch resource "clusterpromotions"`) {
		t.Errorf("approving without the right to: %v", err)
	}
	if out, err := stagecoach(t, "approve", "promotion", "cli", "--stage", "prod", "--ahead"); err != nil || out != "approved stage prod of ClusterPromotion cli\n" {
		t.Fatalf("approve ahead: %v: %q", err, out)
	}
	// Approved by someone else than the admin: the history names who (the API server's stamp).
	approver := impersonating(t, "cli-approver", rbacv1.PolicyRule{APIGroups: []string{configv1beta1.GroupVersion.Group},
		Resources: []string{"clusterpromotions"}, Verbs: []string{"get", "list", "patch"}})
	if out, err := stagecoachAs(t.Context(), approver, "approve", "promotion", "cli"); err != nil || out != "approved stage dev of ClusterPromotion cli\n" {
		t.Fatalf("approve: %v: %q", err, out)
	}
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	out, err = stagecoachWithin(ctx, "status", "promotion", "cli", "--watch", "--interval", "200ms", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var last view.Rollout
	for d := json.NewDecoder(strings.NewReader(out)); d.More(); {
		if err := d.Decode(&last); err != nil {
			t.Fatal(err)
		}
	}
	if last.State != view.Succeeded {
		t.Fatalf("--watch ended with %s: %s", last.State, last.Message)
	}
	if out, err := stagecoach(t, "get", "promotions"); err != nil || !strings.Contains(out, "cli ") || !strings.Contains(out, " Succeeded ") {
		t.Errorf("get promotions (%v):\n%s", err, out)
	}
	// The shell completes names from the management cluster.
	if out, err := stagecoach(t, "__complete", "approve", "promotion", ""); err != nil || !strings.HasPrefix(out, "cli\n") {
		t.Errorf("completing a promotion's name: %v: %q", err, out)
	}

	// Each stage's ClusterProfile, on its own.
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		out, err := stagecoachWithin(ctx, "status", "profile", p.StageProfileName("prod"))
		if err != nil || !strings.HasPrefix(out, "ClusterProfile cli-prod: Succeeded\n") || !strings.Contains(out, "  prod/prod  Succeeded  1 policyRef\n") {
			return fmt.Errorf("status profile cli-prod (%v):\n%s", err, out)
		}
		return nil
	})

	if out, err := stagecoach(t, "suspend", "promotion", "cli"); err != nil || out != "suspended ClusterPromotion cli\n" {
		t.Fatalf("suspend: %v: %q", err, out)
	}
	waitState(t, view.Suspended, "promotion", "cli")
	if out, err := stagecoach(t, "suspend", "promotion", "cli"); err != nil || out != "ClusterPromotion cli is already suspended\n" {
		t.Errorf("suspending again: %v: %q", err, out)
	}
	if out, err := stagecoach(t, "resume", "promotion", "cli"); err != nil || out != "resumed ClusterPromotion cli\n" {
		t.Fatalf("resume: %v: %q", err, out)
	}
	waitState(t, view.Succeeded, "promotion", "cli")

	// A second version reaches dev and waits there; rolled back, dev runs the first again.
	// A patch, not an update: the controller writes the promotion's status all the while.
	v2 := []byte(`[{"op": "replace", "path": "/spec/profileSpec/policyRefs/0/name", "value": "cli-v2"}]`)
	if err := c.Patch(t.Context(), p, client.RawPatch(types.JSONPatchType, v2)); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if v, err := configMapValue(ctx, t, "dev"); err != nil || v != "v2" {
			return fmt.Errorf("dev runs %q (%v)", v, err)
		}
		return nil
	})
	if out, err := stagecoach(t, "rollback", "promotion", "cli"); err != nil || !strings.HasPrefix(out, "rolling back ClusterPromotion cli from version ") {
		t.Fatalf("rollback: %v: %q", err, out)
	}
	r := waitState(t, view.RolledBack, "promotion", "cli")
	if !strings.Contains(r.Message, "rollback requested at stage dev; rolled back stages dev to version ") {
		t.Errorf("rolled back: %s", r.Message)
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if v, err := configMapValue(ctx, t, "dev"); err != nil || v != "v1" {
			return fmt.Errorf("dev runs %q (%v)", v, err)
		}
		return nil
	})
	if v, err := configMapValue(t.Context(), t, "prod"); err != nil || v != "v1" {
		t.Errorf("prod runs %q (%v), want v1 all along", v, err)
	}

	historyCommands(t)

	// kubectl finds the plugin on PATH and passes the rest on.
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "stagecoach"), ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if err := os.Symlink("stagecoach", filepath.Join(dir, "kubectl-stagecoach")); err != nil {
		t.Fatal(err)
	}
	bin, err := sandbox.FindKubeBin()
	if err != nil {
		t.Fatal(err)
	}
	kubectl := exec.Command(filepath.Join(bin, "kubectl"), "stagecoach", "status", "promotion", "cli")
	kubectl.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"), "KUBECONFIG="+testenv.Fleet.Management.Kubeconfig)
	out2, err := kubectl.CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out2), "ClusterPromotion cli: RolledBack") {
		t.Errorf("kubectl stagecoach status promotion cli: %v\n%s", err, out2)
	}
	help, err := exec.Command(filepath.Join(dir, "kubectl-stagecoach"), "status", "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(help), "kubectl stagecoach status [command]") {
		t.Errorf("the plugin's help: %v\n%s", err, help)
	}
}

// impersonating writes a kubeconfig of the management cluster that acts as user, whom a
// ClusterRole with rule is bound to, and returns its path.
func impersonating(t *testing.T, user string, rule rbacv1.PolicyRule) string {
	t.Helper()
	c := testenv.Client(t)
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: user}, Rules: []rbacv1.PolicyRule{rule}}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: user},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}}}
	for _, obj := range []client.Object{role, binding} {
		if err := c.Create(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Delete(context.Background(), obj) })
	}
	cfg, err := clientcmd.LoadFromFile(testenv.Fleet.Management.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, auth := range cfg.AuthInfos {
		auth.Impersonate = user
	}
	path := filepath.Join(t.TempDir(), user+".kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestVersionAndCompletion: the version, and a completion script for each shell.
func TestVersionAndCompletion(t *testing.T) {
	if out, err := stagecoach(t, "version"); err != nil || !strings.HasPrefix(out, "stagecoach dev") {
		t.Errorf("version: %v: %q", err, out)
	}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		if out, err := stagecoach(t, "completion", shell); err != nil || !strings.Contains(out, "stagecoach") {
			t.Errorf("completion %s: %v: %.200s", shell, err, out)
		}
	}
}

// historyCommands: the history of promotion cli, as TestPromotionCommands left it: its second
// version rolled back at dev, its first through both stages, dev approved by cli-approver.
func historyCommands(t *testing.T) {
	t.Helper()
	var out string
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		var err error
		out, err = stagecoachWithin(ctx, "history", "promotion", "cli", "-o", "json")
		if err != nil {
			return err
		}
		var h struct {
			Versions []map[string]json.RawMessage `json:"versions"`
		}
		if err := json.Unmarshal([]byte(out), &h); err != nil {
			return err
		}
		if len(h.Versions) != 2 {
			return fmt.Errorf("%d versions:\n%s", len(h.Versions), out)
		}
		var stages [][]map[string]json.RawMessage
		for _, v := range h.Versions {
			for _, key := range []string{"version", "outcome", "stages"} {
				if _, ok := v[key]; !ok {
					return fmt.Errorf("a version has no %q:\n%s", key, out)
				}
			}
			var s []map[string]json.RawMessage
			if err := json.Unmarshal(v["stages"], &s); err != nil {
				return err
			}
			for _, st := range s {
				for _, key := range []string{"name", "started", "finished", "outcome", "approvedBy"} {
					if _, ok := st[key]; !ok {
						return fmt.Errorf("a stage has no %q:\n%s", key, out)
					}
				}
			}
			stages = append(stages, s)
		}
		if string(h.Versions[0]["outcome"]) != `"RolledBack"` || string(h.Versions[1]["outcome"]) != `"Succeeded"` ||
			len(stages[1]) != 2 || string(stages[1][0]["name"]) != `"dev"` || string(stages[1][0]["approvedBy"]) != `"cli-approver"` ||
			string(stages[1][1]["outcome"]) != `"Succeeded"` {
			return fmt.Errorf("history promotion cli -o json:\n%s", out)
		}
		return nil
	})
	text, err := stagecoach(t, "history", "promotion", "cli")
	if err != nil || !strings.Contains(text, ": RolledBack") || !regexp.MustCompile(`(?m)^  dev\s+Succeeded\s.*approved by cli-approver at `).MatchString(text) {
		t.Errorf("history promotion cli (%v):\n%s", err, text)
	}
	refused(t, map[string]string{
		"history promotion nope":         "ClusterPromotion nope not found",
		"history promotion cli -o xml":   `-o "xml": want json or yaml`,
		"history placement nope":         "ClusterResourcePlacement nope not found",
		"history placement nope -n kube": "ResourcePlacement nope not found in namespace kube",
	})
}
