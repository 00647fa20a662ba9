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
	"os"
	"path/filepath"
	"regexp"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestRegisterCommand registers one of the fleet's clusters a second time, with sveltosctl's
// flags, as SveltosCluster and MemberCluster, waits for the controller to reach it, registers it
// again with other labels, refuses a kubeconfig that runs a command, and unregisters it.
func TestRegisterCommand(t *testing.T) {
	c := testenv.Client(t)
	var qa string
	for _, m := range testenv.Fleet.Managed {
		if m.Name == "qa" {
			qa = m.Kubeconfig
		}
	}
	key := client.ObjectKey{Namespace: "cli-reg", Name: "extra"}
	t.Cleanup(func() {
		_, _ = stagecoachWithin(context.Background(), "unregister", "cluster", "--namespace", "cli-reg", "--cluster", "extra")
	})
	register := func(labels string) {
		t.Helper()
		out, err := stagecoach(t, "register", "cluster", "--namespace", "cli-reg", "--cluster", "extra", "--kubeconfig", qa,
			"--labels", labels, "--member-cluster", "--wait", "--timeout", "90s")
		want := "registered SveltosCluster cli-reg/extra and MemberCluster extra, kubeconfig in Secret cli-reg/extra-sveltos-kubeconfig\n" +
			"SveltosCluster cli-reg/extra is ready\n"
		if err != nil || out != want {
			t.Fatalf("register (%s): %v: %q", labels, err, out)
		}
	}
	register("env=extra,tier=one")
	out, err := stagecoach(t, "get", "clusters")
	if err != nil || !regexp.MustCompile(`(?m)^cli-reg/extra\s+SveltosCluster\s+true\s+env=extra,tier=one\s`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^extra\s+MemberCluster\s`).MatchString(out) {
		t.Errorf("get clusters (%v):\n%s", err, out)
	}

	// Again, with other labels: those the command set before and not now go.
	register("env=extra2")
	sc := &libv1beta1.SveltosCluster{}
	if err := c.Get(t.Context(), key, sc); err != nil || len(sc.Labels) != 1 || sc.Labels["env"] != "extra2" {
		t.Errorf("labels %v (%v), want env=extra2 alone", sc.Labels, err)
	}
	m := &clusterv1beta1.MemberCluster{}
	if err := c.Get(t.Context(), client.ObjectKey{Name: "extra"}, m); err != nil ||
		m.Annotations[clusterv1beta1.KubeconfigSecretAnnotation] != "cli-reg/extra-sveltos-kubeconfig" {
		t.Errorf("MemberCluster extra: %v (%v)", m.Annotations, err)
	}

	exec := filepath.Join(t.TempDir(), "exec.kubeconfig")
	data := `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: aws}}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`
	if err := os.WriteFile(exec, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	refused(t, map[string]string{
		"register cluster --namespace cli-reg --cluster bad --kubeconfig " + exec:                   `refusing ` + exec + `: user "u" runs the command "aws" to get credentials`,
		"register cluster --namespace cli-reg --cluster bad --kubeconfig " + qa + " --labels a=b=c": `--labels "a=b=c"`,
		"register cluster --cluster bad --kubeconfig " + qa:                                         "--namespace and --cluster are required",
	})
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: "cli-reg", Name: "bad"}, &libv1beta1.SveltosCluster{}); !apierrors.IsNotFound(err) {
		t.Errorf("a refused cluster was registered (%v)", err)
	}

	out, err = stagecoach(t, "unregister", "cluster", "--namespace", "cli-reg", "--cluster", "extra")
	if err != nil || out != "unregistered SveltosCluster cli-reg/extra, MemberCluster extra and Secret cli-reg/extra-sveltos-kubeconfig\n" {
		t.Fatalf("unregister: %v: %q", err, out)
	}
	if err := c.Get(t.Context(), key, &libv1beta1.SveltosCluster{}); !apierrors.IsNotFound(err) {
		t.Errorf("SveltosCluster still there (%v)", err)
	}
	// The MemberCluster leaves the fleet first (its finalizer); placements then no longer see it.
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := c.Get(ctx, client.ObjectKey{Name: "extra"}, &clusterv1beta1.MemberCluster{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("MemberCluster extra still there (%v)", err)
		}
		return nil
	})
	if _, err := stagecoach(t, "unregister", "cluster", "--namespace", "cli-reg", "--cluster", "extra"); err == nil ||
		err.Error() != "SveltosCluster extra not found in namespace cli-reg" {
		t.Errorf("unregistering again: %v", err)
	}
}
