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

package helm

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
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsv1client "k8s.io/client-go/kubernetes/typed/apps/v1"

	"github.com/stagecoach-dev/stagecoach/internal/chartrepo"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
)

// testEnv is the package's sandbox fleet (managed clusters a and b) and chart repository,
// started by the first test that needs them and stopped by TestMain.
var testEnv struct {
	once     sync.Once
	err      error
	dir      string
	fleet    *sandbox.Fleet
	repoURL  string
	stopRepo func()
}

func TestMain(m *testing.M) {
	code := m.Run()
	if testEnv.stopRepo != nil {
		testEnv.stopRepo()
	}
	if testEnv.dir != "" {
		if err := sandbox.Down(filepath.Join(testEnv.dir, "fleet")); err != nil {
			fmt.Fprintln(os.Stderr, "sandbox down:", err)
		}
		_ = os.RemoveAll(testEnv.dir)
	}
	os.Exit(code)
}

// sandboxFleet returns the running fleet, starting it (and the chart repository) once.
func sandboxFleet(t testing.TB) *sandbox.Fleet {
	t.Helper()
	testEnv.once.Do(func() {
		if testEnv.dir, testEnv.err = os.MkdirTemp("", "stagecoach-helm-test-"); testEnv.err != nil {
			return
		}
		testEnv.repoURL, testEnv.stopRepo, testEnv.err = chartrepo.Serve(context.Background(), "../../../testdata/charts")
		if testEnv.err != nil {
			return
		}
		testEnv.fleet, testEnv.err = sandbox.Up(context.Background(), sandbox.Options{
			Dir:      filepath.Join(testEnv.dir, "fleet"),
			Clusters: []sandbox.ClusterSpec{{Name: "a"}, {Name: "b"}},
			Log:      logr.Discard(),
		})
	})
	if testEnv.err != nil {
		t.Fatalf("starting the sandbox: %v", testEnv.err)
	}
	return testEnv.fleet
}

// remote connects to managed cluster i of the sandbox.
func remote(t testing.TB, i int) *fleet.Remote {
	t.Helper()
	c := sandboxFleet(t).Managed[i]
	r, err := fleet.NewRemote(fleet.ClusterRef{Kind: fleet.KindSveltosCluster, Namespace: c.Name, Name: c.Name}, c.Config)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func newDeployer(t testing.TB) *Deployer {
	t.Helper()
	cache, err := NewCache(CacheOptions{Dir: t.TempDir(), Log: testr.NewWithInterface(t, testr.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewDeployer(Options{Cache: cache, Log: testr.NewWithInterface(t, testr.Options{Verbosity: 0})})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// eventually polls check until it returns "" or the deadline passes, then fails with the last
// reason it gave.
func eventually(t *testing.T, timeout time.Duration, check func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		why := check()
		if why == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", timeout, why)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// deploymentAvailable waits until a Deployment on r has all its replicas available.
func deploymentAvailable(t *testing.T, r *fleet.Remote, ns, name string, replicas int32) {
	t.Helper()
	eventually(t, 2*time.Minute, func() string {
		d, err := appsClient(t, r).Deployments(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err.Error()
		}
		if d.Spec.Replicas == nil || *d.Spec.Replicas != replicas || d.Status.AvailableReplicas != replicas ||
			d.Status.ObservedGeneration != d.Generation {
			return fmt.Sprintf("deployment %s/%s: %d/%d available, want %d", ns, name, d.Status.AvailableReplicas, ptrValue(d.Spec.Replicas), replicas)
		}
		return ""
	})
}

func ptrValue(p *int32) int32 {
	if p == nil {
		return -1
	}
	return *p
}

// releaseSecrets lists the Helm release records of a release on r.
func releaseSecrets(t *testing.T, r *fleet.Remote, ns, name string) []corev1.Secret {
	t.Helper()
	list, err := r.Core.Secrets(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "owner=helm,name=" + name})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// appsClient reaches the apps API group of r's cluster, which Remotes have no client for.
func appsClient(t *testing.T, r *fleet.Remote) appsv1client.AppsV1Interface {
	t.Helper()
	c, err := appsv1client.NewForConfig(r.Config)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func getDeployment(t *testing.T, r *fleet.Remote, ns, name string) *appsv1.Deployment {
	t.Helper()
	d, err := appsClient(t, r).Deployments(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}
