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
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

// TestControllerCommand runs `stagecoach controller` against a sandbox management cluster and
// checks its probes, its metrics, its dashboard (which asks for a token) and that it takes the
// leader-election lease.
func TestControllerCommand(t *testing.T) {
	skipNameValidation = ptr.To(true) // the test may run more than once (go test -count)
	dir := filepath.Join(t.TempDir(), "fleet")
	fleet, err := sandbox.Up(t.Context(), sandbox.Options{Dir: dir, Log: testr.New(t)})
	t.Cleanup(func() { _ = sandbox.Down(dir) })
	if err != nil {
		t.Fatal(err)
	}
	metrics, probes, dashboard := freeAddr(t), freeAddr(t), freeAddr(t)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		cmd := newRootCommand()
		cmd.SetArgs([]string{"controller", "--kubeconfig", fleet.Management.Kubeconfig,
			"--metrics-bind-address", metrics, "--health-probe-bind-address", probes,
			"--dashboard-bind-address", dashboard, "--leader-elect", "--leader-election-namespace", "default"})
		done <- cmd.ExecuteContext(ctx)
	}()

	for _, url := range []string{"http://" + probes + "/healthz", "http://" + probes + "/readyz", "http://" + metrics + "/metrics", "http://" + dashboard + "/healthz"} {
		if err := waitOK(ctx, url); err != nil {
			t.Fatalf("%s: %v", url, err)
		}
	}
	// The controller's dashboard serves no one without a token, and takes no action for them.
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		req, _ := http.NewRequestWithContext(ctx, method, "http://"+dashboard+"/promotions/web/suspend", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s to the controller's dashboard without a token: %s, want 401", method, resp.Status)
		}
	}
	cs := kubernetes.NewForConfigOrDie(fleet.Management.Config)
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		lease, err := cs.CoordinationV1().Leases("default").Get(ctx, "stagecoach.dev", metav1.GetOptions{})
		return err == nil && lease.Spec.HolderIdentity != nil && *lease.Spec.HolderIdentity != "", nil
	})
	if err != nil {
		t.Fatalf("no leader-election lease: %v", err)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("controller exited with %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("controller did not stop when its context was cancelled")
	}

	// A manager whose caches cannot sync (it may read nothing) still stops when told to, which
	// controller-runtime's alone does not.
	shutdownTimeout = 2 * time.Second
	kubeconfig, err := clientcmd.LoadFromFile(fleet.Management.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, user := range kubeconfig.AuthInfos {
		user.Impersonate = "nobody"
	}
	cfg, err := clientcmd.NewDefaultClientConfig(*kubeconfig, nil).ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme.New(), Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: probes})
	if err != nil {
		t.Fatal(err)
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		t.Fatal(err)
	}
	if _, err := mgr.GetCache().GetInformer(t.Context(), &corev1.ConfigMap{}, cache.BlockUntilSynced(false)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithCancel(t.Context())
	go func() { done <- start(ctx, mgr) }()
	if err := waitOK(t.Context(), "http://"+probes+"/healthz"); err != nil {
		select {
		case err := <-done:
			t.Fatalf("controller exited early: %v", err)
		default:
		}
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "may list and watch") {
			t.Errorf("controller without permissions exited with %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("controller without permissions did not stop when its context was cancelled")
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func waitOK(ctx context.Context, url string) error {
	var last string
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		resp, err := http.Get(url)
		if err != nil {
			last = err.Error()
			return false, nil
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		last = fmt.Sprintf("%s: %s", resp.Status, strings.TrimSpace(string(body)))
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		return fmt.Errorf("%w (last: %s)", err, last)
	}
	return nil
}
