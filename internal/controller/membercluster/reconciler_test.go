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

package membercluster

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/testr"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/registration"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

// TestMemberClusterConnectivity runs the controller against a sandbox fleet of one managed
// cluster: the registered MemberCluster joins; one without the kubeconfig annotation says so,
// and joins once annotated; a frozen API server (SIGSTOP) makes the cluster leave after three
// unanswered probes and rejoin when it thaws.
func TestMemberClusterConnectivity(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "fleet")
	sb, err := sandbox.Up(ctx, sandbox.Options{
		Dir:      dir,
		Clusters: []sandbox.ClusterSpec{{Name: "m", Labels: map[string]string{"env": "canary"}}},
		Log:      testr.New(t),
	})
	t.Cleanup(func() { _ = sandbox.Down(dir) })
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(sb.Management.Config, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	cache := startController(t, sb.Management.Config)

	waitForJoined(t, c, "m", metav1.ConditionTrue, reasonReachable, "The API server answers (Kubernetes ")
	waitForEvent(t, c, "m", reasonConnectionHealthy)
	poll(t, "the cache to list m as ready", func() (bool, string) {
		clusters, err := cache.List(ctx, fleet.KindMemberCluster)
		if err != nil {
			return false, err.Error()
		}
		for _, cl := range clusters {
			if cl.Ref.Name == "m" {
				return cl.Ready && cl.Labels["env"] == "canary" && !cl.Paused && !cl.Deleting, fmt.Sprintf("%+v", cl)
			}
		}
		return false, fmt.Sprintf("%+v", clusters)
	})

	// Without the annotation there is no kubeconfig; adding it is enough to join.
	unannotated := &clusterv1beta1.MemberCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "unannotated"},
		Spec:       clusterv1beta1.MemberClusterSpec{Identity: rbacv1.Subject{Kind: "User", Name: "nobody", APIGroup: rbacv1.GroupName}},
	}
	if err := c.Create(ctx, unannotated); err != nil {
		t.Fatal(err)
	}
	waitForJoined(t, c, "unannotated", metav1.ConditionFalse, fleet.ReasonKubeconfigNotFound,
		"the MemberCluster has no stagecoach.dev/kubeconfig-secret annotation")
	before := unannotated.DeepCopy()
	unannotated.Annotations = map[string]string{clusterv1beta1.KubeconfigSecretAnnotation: "m/" + registration.SecretName("m")}
	if err := c.Patch(ctx, unannotated, client.MergeFrom(before)); err != nil {
		t.Fatal(err)
	}
	waitForJoined(t, c, "unannotated", metav1.ConditionTrue, reasonReachable, "The API server answers")

	// A frozen API server accepts connections and never answers.
	apiserver := signalProcess(t, dir, "m-kube-apiserver", syscall.SIGSTOP)
	thaw := func() { _ = syscall.Kill(apiserver, syscall.SIGCONT) }
	t.Cleanup(thaw) // before Down, which could not stop a frozen process gracefully
	waitForJoined(t, c, "m", metav1.ConditionFalse, fleet.ReasonUnreachable,
		"cannot reach "+sb.Managed[0].Config.Host+": no answer within 1s")
	waitForEvent(t, c, "m", reasonConnectionDown)
	thaw()
	waitForJoined(t, c, "m", metav1.ConditionTrue, reasonReachable, "The API server answers")

	testLeave(t, c)
}

// testLeave deletes MemberClusters that a placement still targets: with validationMode Strict
// (the default) the deletion waits until the binding is gone, with Skip it does not.
func testLeave(t *testing.T, c client.Client) {
	ctx := t.Context()
	skip := &clusterv1beta1.MemberCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "skip", Annotations: map[string]string{clusterv1beta1.KubeconfigSecretAnnotation: "m/" + registration.SecretName("m")}},
		Spec: clusterv1beta1.MemberClusterSpec{Identity: rbacv1.Subject{Kind: "User", Name: "nobody", APIGroup: rbacv1.GroupName},
			DeleteOptions: &clusterv1beta1.DeleteOptions{ValidationMode: clusterv1beta1.DeleteValidationModeSkip}},
	}
	if err := c.Create(ctx, skip); err != nil {
		t.Fatal(err)
	}
	waitForJoined(t, c, "skip", metav1.ConditionTrue, reasonReachable, "The API server answers")
	for _, cluster := range []string{"unannotated", "skip"} {
		b := &placementv1beta1.ClusterResourceBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "web-" + cluster, Labels: map[string]string{placementv1beta1.PlacementTrackingLabel: "web"}},
			Spec: placementv1beta1.ResourceBindingSpec{State: placementv1beta1.BindingStateScheduled, TargetCluster: cluster,
				ClusterDecision: placementv1beta1.ClusterDecision{ClusterName: cluster, Selected: true}},
		}
		if err := c.Create(ctx, b); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Delete(context.Background(), b) })
		if err := c.Delete(ctx, &clusterv1beta1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: cluster}}); err != nil {
			t.Fatal(err)
		}
	}
	gone := func(name string) func() (bool, string) {
		return func() (bool, string) {
			err := c.Get(ctx, client.ObjectKey{Name: name}, &clusterv1beta1.MemberCluster{})
			return apierrors.IsNotFound(err), fmt.Sprintf("MemberCluster %s: %v", name, err)
		}
	}
	poll(t, "MemberCluster skip to be gone at once", gone("skip"))
	waitForEvent(t, c, "unannotated", reasonLeaving)
	mc := &clusterv1beta1.MemberCluster{}
	if err := c.Get(ctx, client.ObjectKey{Name: "unannotated"}, mc); err != nil || mc.DeletionTimestamp.IsZero() {
		t.Fatalf("MemberCluster unannotated should wait for its binding: %v %+v", err, mc.ObjectMeta)
	}
	if err := c.Delete(ctx, &placementv1beta1.ClusterResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: "web-unannotated"}}); err != nil {
		t.Fatal(err)
	}
	poll(t, "MemberCluster unannotated to go once its binding is gone", gone("unannotated"))
}

// startController runs the MemberCluster controller in a manager against the management
// cluster until the test ends, probing every second.
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
	if err := NewReconciler(Options{Clusters: cache, Probe: fleet.ProbeOptions{ProbeInterval: time.Second, ProbeTimeout: time.Second}}).SetupWithManager(mgr); err != nil {
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

// signalProcess sends sig to the sandbox process of that name and returns its pid.
func signalProcess(t *testing.T, dir, name string, sig syscall.Signal) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "sandbox.json"))
	if err != nil {
		t.Fatal(err)
	}
	var state struct {
		Processes []struct {
			Name string `json:"name"`
			PID  int    `json:"pid"`
		} `json:"processes"`
	}
	if err := json.Unmarshal(data, &state); err != nil {
		t.Fatal(err)
	}
	for _, p := range state.Processes {
		if p.Name == name {
			if err := syscall.Kill(p.PID, sig); err != nil {
				t.Fatalf("signalling %s (pid %d): %v", name, p.PID, err)
			}
			return p.PID
		}
	}
	t.Fatalf("no process %s in the sandbox state", name)
	return 0
}

func waitForJoined(t *testing.T, c client.Client, name string, status metav1.ConditionStatus, reason, messagePrefix string) {
	t.Helper()
	poll(t, fmt.Sprintf("MemberCluster %s Joined=%s (%s)", name, status, reason), func() (bool, string) {
		mc := &clusterv1beta1.MemberCluster{}
		if err := c.Get(t.Context(), client.ObjectKey{Name: name}, mc); err != nil {
			return false, err.Error()
		}
		joined := meta.FindStatusCondition(mc.Status.Conditions, string(clusterv1beta1.ConditionTypeMemberClusterJoined))
		if joined == nil {
			return false, "no Joined condition"
		}
		return joined.Status == status && joined.Reason == reason && strings.HasPrefix(joined.Message, messagePrefix),
			fmt.Sprintf("Joined=%s %s: %s", joined.Status, joined.Reason, joined.Message)
	})
}

func waitForEvent(t *testing.T, c client.Client, name, reason string) {
	t.Helper()
	poll(t, fmt.Sprintf("a %s event for MemberCluster %s", reason, name), func() (bool, string) {
		events := &eventsv1.EventList{}
		if err := c.List(t.Context(), events); err != nil {
			return false, err.Error()
		}
		var seen []string
		for _, e := range events.Items {
			if e.Regarding.Kind == "MemberCluster" && e.Regarding.Name == name && e.Reason == reason {
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
