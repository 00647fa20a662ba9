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

package manifests

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/testr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"

	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
)

// managed is the managed cluster of the sandbox this test binary runs.
var managed *sandbox.Cluster

// TestMain starts one sandbox with one managed cluster for every test of the package.
func TestMain(m *testing.M) {
	os.Exit(runWithSandbox(m))
}

func runWithSandbox(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "stagecoach-manifests-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "fleet")
	f, err := sandbox.Up(context.Background(), sandbox.Options{Dir: dir, Clusters: []sandbox.ClusterSpec{{Name: "a"}}, Log: logr.Discard()})
	defer func() { _ = sandbox.Down(dir) }()
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the sandbox:", err)
		return 1
	}
	managed = &f.Managed[0]
	return m.Run()
}

// newRemote connects to the managed cluster. Each call makes a new connection with empty
// caches, as a restarted controller would have.
func newRemote(t *testing.T) *fleet.Remote {
	t.Helper()
	return connect(t, managed.Config)
}

func connect(t *testing.T, cfg *rest.Config) *fleet.Remote {
	t.Helper()
	r, err := fleet.NewRemote(fleet.ClusterRef{Kind: fleet.KindSveltosCluster, Namespace: "a", Name: "a"}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// dryRunCounting connects to the managed cluster and counts the dry-run requests it sends.
func dryRunCounting(t *testing.T) (*fleet.Remote, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	cfg := rest.CopyConfig(managed.Config)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			if r.URL.Query().Has("dryRun") {
				n.Add(1)
			}
			return rt.RoundTrip(r)
		})
	})
	return connect(t, cfg), &n
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// testContext carries a logger writing to the test's log.
func testContext(t *testing.T) context.Context {
	return logr.NewContext(t.Context(), testr.New(t))
}

// objects parses YAML documents into the objects of a request.
func objects(t *testing.T, yaml string, opts Options) []Object {
	t.Helper()
	source := "ConfigMap test/" + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-"))
	objs, err := Parse(source, map[string][]byte{"objects.yaml": []byte(yaml)})
	if err != nil {
		t.Fatal(err)
	}
	return ObjectsOf(objs, source, opts)
}

func mustApply(t *testing.T, remote *fleet.Remote, req Request) Result {
	t.Helper()
	res, err := Apply(testContext(t), remote, req)
	if err != nil {
		t.Fatalf("apply for %s: %v", req.Owner, err)
	}
	return res
}

var (
	configMaps  = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	deployments = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
)

// get reads an object; nil when it is absent.
func get(t *testing.T, remote *fleet.Remote, gvr schema.GroupVersionResource, ns, name string) *unstructured.Unstructured {
	t.Helper()
	u, err := remote.Dynamic.Resource(gvr).Namespace(ns).Get(t.Context(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// gone reports an object absent or being deleted.
func gone(u *unstructured.Unstructured) bool {
	return u == nil || u.GetDeletionTimestamp() != nil
}

// eventually polls cond until it returns nil, failing the test with cond's last error after
// timeout.
func eventually(t *testing.T, timeout time.Duration, cond func(ctx context.Context) error) {
	t.Helper()
	last := errors.New("never checked")
	err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		last = cond(ctx)
		return last == nil, nil
	})
	if err != nil {
		t.Fatalf("not within %s: %v", timeout, last)
	}
}

func dataOf(u *unstructured.Unstructured) map[string]string {
	if u == nil {
		return nil
	}
	data, _, _ := unstructured.NestedStringMap(u.Object, "data")
	return data
}
