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

// Package testenv runs tests against a sandbox fleet: one fleet per test binary, started from
// TestMain, plus helpers to run controllers on it and to wait for conditions with a deadline.
package testenv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/testr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/stagecoach-dev/stagecoach/internal/controller/managercache"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

// Fleet is the sandbox of the running test binary, set by Main.
var Fleet *sandbox.Fleet

// options started Fleet; Recover starts it again with them.
var options sandbox.Options

// SourceController runs Flux's source-controller, when set before Main or MainWithController,
// beside the fleet's management cluster (built by `make flux`), so that tests create Flux sources.
var SourceController bool

// Recover restarts whatever process of the fleet is no longer running (see sandbox.Kill).
func Recover(t testing.TB) {
	t.Helper()
	if err := Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// Restart is Recover for code that has no test to fail.
func Restart(ctx context.Context) error {
	_, err := sandbox.Up(ctx, options)
	return err
}

// Main starts a sandbox with the given managed clusters, runs the tests and tears it down.
// Use it as `func TestMain(m *testing.M) { testenv.Main(m, clusters...) }`.
func Main(m *testing.M, clusters ...sandbox.ClusterSpec) {
	os.Exit(run(m, nil, clusters))
}

// MainWithController is Main with one controller manager, set up by setup, running on the
// management cluster for the whole test binary: tests that share a fleet must share the
// controller too, or two would fight over the same objects. It runs as the Helm chart's
// ServiceAccount with the chart's RBAC, as an installed controller does. Its log goes to a file
// whose path is printed.
func MainWithController(m *testing.M, setup func(ctrl.Manager) error, clusters ...sandbox.ClusterSpec) {
	os.Exit(run(m, setup, clusters))
}

func run(m *testing.M, setup func(ctrl.Manager) error, clusters []sandbox.ClusterSpec) int {
	tmp, err := os.MkdirTemp("", "stagecoach-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "fleet")
	options = sandbox.Options{Dir: dir, Clusters: clusters, SourceController: SourceController, Log: logr.Discard()}
	Fleet, err = sandbox.Up(context.Background(), options)
	defer func() { _ = sandbox.Down(dir) }()
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the sandbox:", err)
		return 1
	}
	if setup != nil {
		stop, err := startSharedManager(setup, filepath.Join(os.TempDir(), fmt.Sprintf("stagecoach-controller-%d.log", os.Getpid())))
		if err != nil {
			fmt.Fprintln(os.Stderr, "starting the controller:", err)
			return 1
		}
		defer stop()
	}
	code := m.Run()
	if n := secretContentReads.Load(); n > 0 && code == 0 {
		fmt.Fprintf(os.Stderr, "the controller read Secrets through its cache %d times: the cache would hold every Secret's content\n", n)
		code = 1
	}
	return code
}

func startSharedManager(setup func(ctrl.Manager) error, logPath string) (func(), error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(os.Stderr, "controller log:", logPath)
	logger := zap.New(zap.WriteTo(logFile), zap.UseDevMode(true))
	ctrl.SetLogger(logger)
	cfg, user, err := asChartServiceAccount(context.Background(), Fleet.Management.Config)
	if err != nil {
		return nil, fmt.Errorf("installing the chart's RBAC: %w", err)
	}
	ChartServiceAccount = user
	fmt.Fprintln(os.Stderr, "controller runs as", user)
	ctx, cancel := context.WithCancel(context.Background())
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme.New(),
		Cache:                  managercache.Options(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Logger:                 logger,
		NewCache:               newSecretGuardedCache,
		// Controller names are unique per process unless skipped: a test may run the
		// controller command itself beside this manager.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err == nil {
		err = setup(mgr)
	}
	if err != nil {
		cancel()
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "controller:", err)
		}
	}()
	return func() { cancel(); <-done; logFile.Close() }, nil
}

// Client returns a client of the management cluster with every Stagecoach API registered.
func Client(t testing.TB) client.Client {
	t.Helper()
	c, err := client.New(Fleet.Management.Config, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// StartManager starts a controller manager on the management cluster after setup registered
// its reconcilers, and stops it when the test ends. Each tweak may change the manager's options
// (its NewClient, to inject faults into the controllers' writes, say).
func StartManager(t testing.TB, setup func(ctrl.Manager) error, tweaks ...func(*ctrl.Options)) ctrl.Manager {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	// Goroutines of the manager (the event broadcaster, say) may log after the test ended, which
	// testing forbids: the sink stops forwarding once the test's cleanup is done.
	ended := &testEnd{}
	logger := logr.New(&endingSink{LogSink: testr.NewWithInterface(t, testr.Options{Verbosity: 1}).GetSink(), ended: ended})
	opts := ctrl.Options{
		Scheme:                 scheme.New(),
		Cache:                  managercache.Options(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Logger:                 logger,
		// Each test runs its own manager with the same controllers.
		Controller:  config.Controller{SkipNameValidation: ptr.To(true)},
		BaseContext: func() context.Context { return log.IntoContext(ctx, logger) },
	}
	for _, tweak := range tweaks {
		tweak(&opts)
	}
	mgr, err := ctrl.NewManager(Fleet.Management.Config, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := setup(mgr); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mgr.Start(ctx); err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	// A manager stopped before its caches synced never returns from Start (controller-runtime's
	// runnableGroup.Start loops once its context is done): the test goes on once they have, and
	// a cleanup after they did not leaves the manager behind rather than hang.
	synced := false
	t.Cleanup(func() {
		cancel()
		if synced {
			<-done
		}
		ended.set()
	})
	syncCtx, stop := context.WithTimeout(ctx, 2*time.Minute)
	defer stop()
	if synced = mgr.GetCache().WaitForCacheSync(syncCtx); !synced {
		t.Fatal("the manager's caches did not sync within 2m")
	}
	return mgr
}

// testEnd records that a test ended. The lock makes the end wait for log lines in flight, so
// none reaches the test after it completed.
type testEnd struct {
	mu    sync.RWMutex
	ended bool
}

func (e *testEnd) set() { e.mu.Lock(); e.ended = true; e.mu.Unlock() }

// do runs log unless the test ended.
func (e *testEnd) do(log func()) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if !e.ended {
		log()
	}
}

// endingSink drops log lines once the test ended.
type endingSink struct {
	logr.LogSink
	ended *testEnd
}

func (s *endingSink) Info(level int, msg string, kv ...any) {
	s.ended.do(func() { s.LogSink.Info(level, msg, kv...) })
}

func (s *endingSink) Error(err error, msg string, kv ...any) {
	s.ended.do(func() { s.LogSink.Error(err, msg, kv...) })
}

func (s *endingSink) WithValues(kv ...any) logr.LogSink {
	return &endingSink{LogSink: s.LogSink.WithValues(kv...), ended: s.ended}
}

func (s *endingSink) WithName(name string) logr.LogSink {
	return &endingSink{LogSink: s.LogSink.WithName(name), ended: s.ended}
}

// Eventually polls cond until it returns nil or the timeout passes, then fails the test with
// the last error cond returned.
func Eventually(t testing.TB, timeout time.Duration, cond func(ctx context.Context) error) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		err := cond(ctx)
		if err != nil && ctx.Err() != nil && last != nil {
			return false, nil // the deadline cut this attempt short: keep the previous reason
		}
		last = err
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("condition not met within %s: %v", timeout, last)
	}
}
