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
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
	"github.com/stagecoach-dev/stagecoach/internal/view"
)

// TestPauseClusterCommands: a cluster paused with the command line is left out of the first
// stage, which passes without it, and status says so; the second stage, not reached, shows what
// it will cover; resumed, the cluster catches up. The clusters are second registrations of
// sandbox clusters, so that pausing them leaves the other tests' alone.
func TestPauseClusterCommands(t *testing.T) {
	c := testenv.Client(t)
	kubeconfigs := map[string]string{}
	for _, m := range testenv.Fleet.Managed {
		kubeconfigs[m.Name] = m.Kubeconfig
	}
	t.Cleanup(func() {
		for _, name := range []string{"first", "second"} {
			_, _ = stagecoachWithin(context.Background(), "unregister", "cluster", "--namespace", "clipause", "--cluster", name)
		}
	})
	for name, sandbox := range map[string]string{"first": "qa", "second": "dev"} {
		if out, err := stagecoach(t, "register", "cluster", "--namespace", "clipause", "--cluster", name, "--kubeconfig", kubeconfigs[sandbox],
			"--labels", "clipause="+name, "--wait", "--timeout", "90s"); err != nil {
			t.Fatalf("register %s: %v: %s", name, err, out)
		}
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "clipause", Namespace: "default"}, Data: map[string]string{
		"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: clipause\ndata:\n  value: v1\n"}}
	if err := c.Create(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), cm) })

	if out, err := stagecoach(t, "pause", "cluster", "clipause/first"); err != nil ||
		out != "paused SveltosCluster clipause/first: nothing is deployed to it and no stage waits for it\n" {
		t.Fatalf("pause: %v: %q", err, out)
	}
	if out, err := stagecoach(t, "pause", "cluster", "clipause/first"); err != nil || out != "SveltosCluster clipause/first is already paused\n" {
		t.Errorf("pausing again: %v: %q", err, out)
	}
	// Someone who may read clusters and not change them is told which verb they lack.
	viewer := impersonating(t, "clipause-viewer", rbacv1.PolicyRule{APIGroups: []string{libv1beta1.GroupVersion.Group},
		Resources: []string{"sveltosclusters"}, Verbs: []string{"get", "list"}})
	if _, err := stagecoachAs(t.Context(), viewer, "resume", "cluster", "clipause/first"); err == nil ||
		!strings.Contains(err.Error(), `permission denied: sveltosclusters.lib.projectsveltos.io "first" is forbidden: User "clipause-viewer" cannot patch resource "sveltosclusters"`) {
		t.Errorf("resuming without the right to: %v", err)
	}
	refused(t, map[string]string{
		"pause cluster first":          `cluster "first": name it NAMESPACE/NAME, as stagecoach status lists it`,
		"resume cluster clipause/nope": "SveltosCluster nope not found in namespace clipause",
	})

	p := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: "clipause"}}
	p.Spec.ProfileSpec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: "ConfigMap", Namespace: "default", Name: "clipause"}}
	first := configv1beta1.Stage{Name: "first", Trigger: &configv1beta1.Trigger{Manual: &configv1beta1.ManualTrigger{}}}
	first.ClusterSelector.MatchLabels = map[string]string{"clipause": "first"}
	second := configv1beta1.Stage{Name: "second"}
	second.ClusterSelector.MatchLabels = map[string]string{"clipause": "second"}
	p.Spec.Stages = []configv1beta1.Stage{first, second}
	if err := c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deletePromotion(t, c, p) })

	// The first stage passes its gate without its only cluster, paused.
	testenv.Eventually(t, timeout, func(context.Context) error {
		r, err := statusOf(t, "promotion", "clipause")
		if err != nil {
			return err
		}
		if len(r.Stages) != 2 || !strings.Contains(r.Stages[0].WaitingFor, "Awaiting Manual Approval") ||
			!strings.Contains(r.Stages[0].WaitingFor, "paused, not waited for: clipause/first") || r.Stages[0].Counts[view.Paused] != 1 {
			return fmt.Errorf("status %+v", r)
		}
		if st := r.Stages[1]; st.State != view.Pending || st.Waves != 1 || st.Total() != 1 {
			return fmt.Errorf("stage second, not reached: %+v", st)
		}
		return nil
	})
	out, err := stagecoach(t, "status", "promotion", "clipause")
	for _, want := range []string{
		"  clipause/first  Paused  ", "paused: nothing is deployed to it and no stage waits for it\n",
		"Stage second: Pending, 0 of 1 cluster succeeded\n  not reached yet: 1 cluster, 1 wave\n  clipause/second  Pending\n",
	} {
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("status promotion clipause (%v) lacks %q:\n%s", err, want, out)
		}
	}
	if _, err := managed(t, "qa").CoreV1().ConfigMaps("clipause").Get(t.Context(), "settings", metav1.GetOptions{}); err == nil {
		t.Error("the paused cluster got the version")
	}

	if out, err := stagecoach(t, "resume", "cluster", "clipause/first"); err != nil ||
		out != "resumed SveltosCluster clipause/first: it catches up with the version of each stage it belongs to\n" {
		t.Fatalf("resume: %v: %q", err, out)
	}
	waitSettings(t, "qa", "clipause", "v1")
	if out, err := stagecoach(t, "approve", "promotion", "clipause"); err != nil {
		t.Fatalf("approve: %v: %s", err, out)
	}
	waitState(t, view.Succeeded, "promotion", "clipause")
	waitSettings(t, "dev", "clipause", "v1")
}
