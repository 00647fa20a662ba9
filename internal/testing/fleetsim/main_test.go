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

package fleetsim

import (
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

var (
	configMaps  = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	deployments = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	crds        = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

// startFleet starts a fleet that stops with the test.
func startFleet(t testing.TB, opts Options) *Fleet {
	t.Helper()
	if opts.Log.GetSink() == nil {
		opts.Log = testr.NewWithInterface(t, testr.Options{Verbosity: 0})
	}
	f, err := Start(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Errorf("closing the fleet: %v", err)
		}
	})
	return f
}

// restConfig reads the cluster's kubeconfig as Stagecoach reads a managed cluster's.
func restConfig(t testing.TB, c *Cluster) *rest.Config {
	t.Helper()
	cfg, err := fleet.RESTConfigFromKubeconfig(c.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func clientset(t testing.TB, c *Cluster) *kubernetes.Clientset {
	t.Helper()
	cs, err := kubernetes.NewForConfig(restConfig(t, c))
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func dynamicClient(t testing.TB, c *Cluster) *dynamic.DynamicClient {
	t.Helper()
	dc, err := dynamic.NewForConfig(restConfig(t, c))
	if err != nil {
		t.Fatal(err)
	}
	return dc
}

// remote connects to a cluster as Stagecoach's deployers do.
func remote(t testing.TB, c *Cluster) *fleet.Remote {
	t.Helper()
	r, err := fleet.NewRemote(fleet.ClusterRef{Kind: fleet.KindSveltosCluster, Namespace: "x", Name: c.Name()}, restConfig(t, c))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// eventually polls check until it returns nil, failing with its last error after timeout.
func eventually(t testing.TB, timeout time.Duration, check func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		last := check()
		if last == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %v", timeout, last)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
