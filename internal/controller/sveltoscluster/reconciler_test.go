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

package sveltoscluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/testr"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

// TestSveltosClusterConnectivity runs the controller against a sandbox fleet of one managed
// cluster: the registered cluster becomes ready; SveltosClusters with a missing Secret, a wrong
// key or a broken kubeconfig say so while the others keep being served; the cache follows a
// changed Secret; a killed API server turns the cluster Down and its restart Healthy again.
func TestSveltosClusterConnectivity(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "fleet")
	opts := sandbox.Options{
		Dir:      dir,
		Clusters: []sandbox.ClusterSpec{{Name: "a", Labels: map[string]string{"env": "dev"}}},
		Log:      testr.New(t),
	}
	sb, err := sandbox.Up(ctx, opts)
	t.Cleanup(func() { _ = sandbox.Down(dir) })
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(sb.Management.Config, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	cache := startController(t, sb.Management.Config)

	// The cluster the sandbox registered is probed and found healthy.
	a := objKey("a", "a")
	waitForStatus(t, c, a, "ready and Healthy", func(s libv1beta1.SveltosClusterStatus) bool {
		return s.Ready && s.ConnectionStatus == libv1beta1.ConnectionHealthy && s.Version != "" &&
			s.FailureMessage == nil && s.ConnectionFailures == 0
	})
	waitForEvent(t, c, a, reasonConnectionHealthy)

	// Broken registrations get a failureMessage naming the Secret and key, and turn Down after
	// the threshold, while the healthy cluster keeps being served.
	kubeconfig, err := os.ReadFile(sb.Managed[0].Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "broken"}})
	mustCreate(t, c, &libv1beta1.SveltosCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "broken", Name: "missing"}})
	mustCreate(t, c, secret("broken", "copy-of-a", map[string][]byte{"kubeconfig": kubeconfig}))
	mustCreate(t, c, &libv1beta1.SveltosCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "broken", Name: "badkey"},
		Spec: libv1beta1.SveltosClusterSpec{KubeconfigName: "copy-of-a", KubeconfigKeyName: "nope"}})
	garbage := "apiVersion: v1\nusers:\n- name: u\n  user:\n    token: not-for-your-eyes\n  : : oops\n"
	mustCreate(t, c, secret("broken", "garbage-sveltos-kubeconfig", map[string][]byte{"value": []byte(garbage)}))
	mustCreate(t, c, &libv1beta1.SveltosCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "broken", Name: "garbage"}})
	for name, want := range map[string]string{
		"missing": "kubeconfig Secret broken/missing-sveltos-kubeconfig does not exist",
		"badkey":  `kubeconfig Secret broken/copy-of-a has no key "nope" (its keys are kubeconfig)`,
		"garbage": `key "value" of Secret broken/garbage-sveltos-kubeconfig does not hold a usable kubeconfig: YAML syntax error at line 5`,
	} {
		waitForStatus(t, c, objKey("broken", name), "Down saying "+want, func(s libv1beta1.SveltosClusterStatus) bool {
			return !s.Ready && s.ConnectionStatus == libv1beta1.ConnectionDown && s.ConnectionFailures == DefaultFailureThreshold &&
				s.FailureMessage != nil && *s.FailureMessage == want
		})
	}
	if s := getStatus(t, c, a); !s.Ready || s.ConnectionStatus != libv1beta1.ConnectionHealthy {
		t.Errorf("cluster a while others fail: %+v", show(s))
	}

	// Fixing a registration, in the SveltosCluster or in the Secret, brings it up.
	patchSpec(t, c, objKey("broken", "badkey"), func(sc *libv1beta1.SveltosCluster) { sc.Spec.KubeconfigKeyName = "kubeconfig" })
	mustCreate(t, c, secret("broken", "missing-sveltos-kubeconfig", map[string][]byte{"kubeconfig": kubeconfig}))
	for _, name := range []string{"badkey", "missing"} {
		waitForStatus(t, c, objKey("broken", name), "ready once fixed", func(s libv1beta1.SveltosClusterStatus) bool {
			return s.Ready && s.ConnectionStatus == libv1beta1.ConnectionHealthy && s.FailureMessage == nil
		})
	}

	// The cache hands out one Remote per cluster and builds a new one when the Secret's
	// kubeconfig changes.
	checkCacheFollowsSecret(t, c, cache, kubeconfig)

	// The API server dies: after three failed probes the cluster is Down, saying why.
	const apiserver = "a-kube-apiserver"
	if err := sandbox.Kill(dir, apiserver); err != nil {
		t.Fatal(err)
	}
	var downMessage string
	waitForStatus(t, c, a, "Down with connection refused", func(s libv1beta1.SveltosClusterStatus) bool {
		if s.FailureMessage != nil {
			downMessage = *s.FailureMessage
		}
		return !s.Ready && s.ConnectionStatus == libv1beta1.ConnectionDown && s.ConnectionFailures == DefaultFailureThreshold &&
			strings.HasPrefix(downMessage, "cannot reach "+sb.Managed[0].Config.Host) && strings.HasSuffix(downMessage, "connection refused")
	})
	t.Logf("%s killed: %s", apiserver, downMessage)
	waitForEvent(t, c, a, reasonConnectionDown)

	// Restarted, it is Healthy again.
	if _, err := sandbox.Up(ctx, opts); err != nil {
		t.Fatalf("restarting the sandbox: %v", err)
	}
	waitForStatus(t, c, a, "Healthy again", func(s libv1beta1.SveltosClusterStatus) bool {
		return s.Ready && s.ConnectionStatus == libv1beta1.ConnectionHealthy && s.FailureMessage == nil && s.ConnectionFailures == 0
	})
}

// checkCacheFollowsSecret rewrites the kubeconfig Secret of broken/badkey (same cluster, other
// context name) and expects the cache to build a new, working Remote.
func checkCacheFollowsSecret(t *testing.T, c client.Client, cache *fleet.Cache, kubeconfig []byte) {
	t.Helper()
	ctx := t.Context()
	ref := fleet.ClusterRef{Kind: fleet.KindSveltosCluster, Namespace: "broken", Name: "badkey"}
	first, err := cache.Get(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := cache.Get(ctx, ref); err != nil || again != first {
		t.Fatalf("a second Get returned another Remote (%v)", err)
	}
	if _, err := first.Core.Namespaces().List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("the cached Remote does not work: %v", err)
	}
	raw, err := clientcmd.Load(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	raw.Contexts["renamed"] = raw.Contexts[raw.CurrentContext]
	delete(raw.Contexts, raw.CurrentContext)
	raw.CurrentContext = "renamed"
	renamed, err := clientcmd.Write(*raw)
	if err != nil {
		t.Fatal(err)
	}
	s := &corev1.Secret{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "broken", Name: "copy-of-a"}, s); err != nil {
		t.Fatal(err)
	}
	s.Data["kubeconfig"] = renamed
	if err := c.Update(ctx, s); err != nil {
		t.Fatal(err)
	}
	var second *fleet.Remote
	poll(t, "a new Remote after the Secret changed", func() (bool, string) {
		second, err = cache.Get(ctx, ref)
		return err == nil && second != first, fmt.Sprintf("err %v", err)
	})
	if _, err := second.Core.Namespaces().List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("the rebuilt Remote does not work: %v", err)
	}
}

// startController runs the SveltosCluster controller in a manager against the management cluster
// until the test ends, probing every second.
func startController(t *testing.T, cfg *rest.Config) *fleet.Cache {
	t.Helper()
	// The manager logs to the test; this quiets what logs through the global logger (the
	// informers), which may still run a moment after the test ends.
	ctrl.SetLogger(logr.Discard())
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme.New(),
		Logger:                 testr.New(t),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	cache := fleet.NewCache(mgr.GetClient(), fleet.CacheOptions{})
	if err := NewReconciler(Options{Clusters: cache, Probe: fleet.ProbeOptions{ProbeInterval: time.Second, ProbeTimeout: 2 * time.Second}}).SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	return cache
}

func objKey(ns, name string) client.ObjectKey { return client.ObjectKey{Namespace: ns, Name: name} }

func secret(ns, name string, data map[string][]byte) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}
}

func mustCreate(t *testing.T, c client.Client, obj client.Object) {
	t.Helper()
	if err := c.Create(t.Context(), obj); err != nil {
		t.Fatal(err)
	}
}

func patchSpec(t *testing.T, c client.Client, key client.ObjectKey, edit func(*libv1beta1.SveltosCluster)) {
	t.Helper()
	sc := &libv1beta1.SveltosCluster{}
	if err := c.Get(t.Context(), key, sc); err != nil {
		t.Fatal(err)
	}
	before := sc.DeepCopy()
	edit(sc)
	if err := c.Patch(t.Context(), sc, client.MergeFrom(before)); err != nil {
		t.Fatal(err)
	}
}

func getStatus(t *testing.T, c client.Client, key client.ObjectKey) libv1beta1.SveltosClusterStatus {
	t.Helper()
	sc := &libv1beta1.SveltosCluster{}
	if err := c.Get(t.Context(), key, sc); err != nil {
		t.Fatal(err)
	}
	return sc.Status
}

func waitForStatus(t *testing.T, c client.Client, key client.ObjectKey, what string, ok func(libv1beta1.SveltosClusterStatus) bool) {
	t.Helper()
	poll(t, fmt.Sprintf("SveltosCluster %s %s", key, what), func() (bool, string) {
		sc := &libv1beta1.SveltosCluster{}
		if err := c.Get(t.Context(), key, sc); err != nil {
			return false, err.Error()
		}
		return ok(sc.Status), fmt.Sprintf("status %v", show(sc.Status))
	})
}

func waitForEvent(t *testing.T, c client.Client, key client.ObjectKey, reason string) {
	t.Helper()
	poll(t, fmt.Sprintf("a %s event for %s", reason, key), func() (bool, string) {
		events := &eventsv1.EventList{}
		if err := c.List(t.Context(), events, client.InNamespace(key.Namespace)); err != nil {
			return false, err.Error()
		}
		var seen []string
		for _, e := range events.Items {
			if e.Regarding.Kind == "SveltosCluster" && e.Regarding.Name == key.Name && e.Reason == reason {
				return true, ""
			}
			seen = append(seen, e.Reason+": "+e.Note)
		}
		return false, fmt.Sprintf("events %q", seen)
	})
}

// poll calls cond until it holds, failing the test with cond's last description after 30s.
func poll(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		var ok bool
		ok, last = cond()
		return ok, nil
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v; last seen: %s", what, err, last)
	}
}
