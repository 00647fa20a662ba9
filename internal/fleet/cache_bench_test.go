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

package fleet

import (
	"fmt"
	"runtime"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

// BenchmarkCacheMemory reports the heap the Cache keeps per cluster: once every cluster has been
// probed (config and probe client), and once each also has a Remote.
func BenchmarkCacheMemory(b *testing.B) {
	const clusters = 500
	objs := make([]client.Object, 0, 2*clusters)
	refs := make([]ClusterRef, 0, clusters)
	for i := range clusters {
		name := fmt.Sprintf("c%d", i)
		objs = append(objs, sveltosCluster("ns", name),
			kubeconfigSecret("ns", name+"-sveltos-kubeconfig", testKubeconfig(b, fmt.Sprintf("https://10.0.%d.%d:6443", i/250, i%250), nil, nil)))
		refs = append(refs, ClusterRef{Kind: KindSveltosCluster, Namespace: "ns", Name: name})
	}
	reader := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).Build()
	ctx := b.Context()
	for b.Loop() {
		cache := NewCache(reader, CacheOptions{})
		base := heap()
		for _, ref := range refs {
			conn := cache.connection(ref)
			if err := conn.refresh(ctx, reader, ref, CacheOptions{}, true); err != nil {
				b.Fatal(err)
			}
		}
		probed := heap()
		for _, ref := range refs {
			if _, err := cache.Get(ctx, ref); err != nil {
				b.Fatal(err)
			}
		}
		withRemotes := heap()
		b.ReportMetric(float64(probed-base)/clusters, "B/cluster-probed")
		b.ReportMetric(float64(withRemotes-base)/clusters, "B/cluster-with-remote")
		runtime.KeepAlive(cache)
	}
}

func heap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
