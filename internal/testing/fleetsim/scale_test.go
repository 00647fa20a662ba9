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
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

// askEach asks every cluster its version through its own kubeconfig, from a few goroutines.
func askEach(clusters []*Cluster) error {
	work := make(chan *Cluster)
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for c := range work {
				if err := askOnce(c); err != nil {
					failed.CompareAndSwap(nil, &err)
				}
			}
		})
	}
	for _, c := range clusters {
		work <- c
	}
	close(work)
	wg.Wait()
	if err := failed.Load(); err != nil {
		return *err
	}
	return nil
}

func askOnce(c *Cluster) error {
	cfg, err := fleet.RESTConfigFromKubeconfig(c.Kubeconfig())
	if err != nil {
		return err
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	// Each cluster is asked once: keep no connection open afterwards.
	defer client.CloseIdleConnections()
	dc, err := discovery.NewDiscoveryClientForConfigAndClient(cfg, client)
	if err != nil {
		return err
	}
	v, err := dc.ServerVersion()
	if err != nil {
		return fmt.Errorf("%s: %w", c.Name(), err)
	}
	if v.GitVersion != serverVersion.GitVersion {
		return fmt.Errorf("%s: version %s", c.Name(), v.GitVersion)
	}
	return nil
}

// TestManyClusters: 2,000 clusters each answer on their own address with their own certificate,
// issued on first use.
func TestManyClusters(t *testing.T) {
	if testing.Short() {
		t.Skip("asks 2,000 clusters")
	}
	const n = 2000
	f := startFleet(t, Options{Clusters: n, Log: logr.Discard()})
	start := time.Now()
	if err := askEach(f.Clusters()); err != nil {
		t.Fatal(err)
	}
	issued := 0
	for _, c := range f.Clusters() {
		if c.cert.Load() != nil {
			issued++
		}
	}
	if issued != n || f.Requests() != n {
		t.Errorf("%d certificates issued and %d requests answered, want %d of each", issued, f.Requests(), n)
	}
	t.Logf("%d clusters answered GET /version through their own kubeconfigs in %s", n, time.Since(start))
}

// BenchmarkServe measures GETs spread over 100 clusters, each client keeping its connection.
func BenchmarkServe(b *testing.B) {
	f := startFleet(b, Options{Clusters: 100, Log: logr.Discard()})
	var clients []*kubernetes.Clientset
	for _, c := range f.Clusters() {
		cs := clientset(b, c)
		if _, err := cs.CoreV1().ConfigMaps("default").Create(b.Context(), configMap("bench", nil), metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		clients = append(clients, cs)
	}
	var next atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			cs := clients[next.Add(1)%int64(len(clients))]
			if _, err := cs.CoreV1().ConfigMaps("default").Get(context.Background(), "bench", metav1.GetOptions{}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkIdleClusterMemory reports the heap an idle cluster costs.
func BenchmarkIdleClusterMemory(b *testing.B) {
	const n = 20000
	for range b.N {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		f, err := Start(b.Context(), Options{Clusters: n, Log: logr.Discard()})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "bytes/cluster")
		runtime.KeepAlive(f)
		_ = f.Close()
	}
}
