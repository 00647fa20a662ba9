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
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/fleetsim"
)

func TestMediansFieldByField(t *testing.T) {
	line, err := medians([]*result{
		{Profile: "realistic", Clusters: 100, PromotionS: 30, LiveHeapMiB: 80, Shards: 2, ShardRSSMiB: []float64{100, 50}},
		{Profile: "realistic", Clusters: 100, PromotionS: 10, LiveHeapMiB: 90, Shards: 2, ShardRSSMiB: []float64{120, 40}},
		{Profile: "realistic", Clusters: 100, PromotionS: 20, LiveHeapMiB: 70, Shards: 2, ShardRSSMiB: []float64{110, 60}},
	})
	if err != nil {
		t.Fatal(err)
	}
	// With an even number of runs, the mean of the middle two, to the fraction's precision.
	even, err := medians([]*result{{GCCPUFraction: 0.129}, {GCCPUFraction: 0.132}})
	if err != nil || !strings.Contains(string(even), `"gc_cpu_fraction":0.131`) {
		t.Errorf("medians of two runs = %s, %v; want gc_cpu_fraction 0.131", even, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(line, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"median_of": 3.0, "profile": "realistic", "clusters": 100.0, "promotion_s": 20.0, "live_heap_mib": 80.0,
		"shards": 2.0, "shard_rss_mib": []any{110.0, 50.0}}
	for k, v := range want {
		if !reflect.DeepEqual(got[k], v) {
			t.Errorf("%s = %v, want %v (line %s)", k, got[k], v, line)
		}
	}
}

func TestDeadClustersInEveryStage(t *testing.T) {
	for _, n := range []int{100, 200, 1000, 20000} {
		dead := deadIndexes(n, 1, true)
		for _, b := range stageBounds(n) {
			in := 0
			for i := b[0]; i < b[1]; i++ {
				if dead[i] {
					in++
				}
			}
			if in == 0 && b[1]-b[0] > 1 || in == b[1]-b[0] {
				t.Errorf("%d clusters: %d of the stage [%d, %d) dead", n, in, b[0], b[1])
			}
		}
	}
}

func TestPromotionFloorCountsWavesChecksAndSoaks(t *testing.T) {
	b := &bench{opts: options{kind: profileRealistic, clusters: 1000, soak: 10 * time.Second, availableAfter: time.Second}}
	// 10, 90 and 900 clusters with 1, 1 and 9 dead: 9, 10 and 10 waves of 5 s (the health
	// interval), two soaks, less the last wave's check.
	b.dead = nil
	sim, err := fleetsim.Start(t.Context(), fleetsim.Options{Clusters: 1000})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	all := sim.Clusters()
	for i := range deadIndexes(1000, 1, true) {
		b.dead = append(b.dead, all[i])
	}
	if got, want := b.promotionFloor(), 29*5*time.Second+20*time.Second-5*time.Second; got != want {
		t.Errorf("realistic floor %s, want %s", got, want)
	}
	b.opts.kind, b.opts.soak = profileZero, 0
	if got := b.promotionFloor(); got != 0 {
		t.Errorf("zero-profile floor %s, want 0: nothing waits without a health check", got)
	}
}

// The realistic profile's manifests are what the API accepts: every field known.
func TestRealisticManifestsDecodeStrictly(t *testing.T) {
	b := &bench{opts: options{kind: profileRealistic, soak: 10 * time.Second}, chartRepo: "http://127.0.0.1:1/charts"}
	var p configv1beta1.ClusterPromotion
	if err := yaml.UnmarshalStrict([]byte(b.helmPromotion("v2")), &p); err != nil {
		t.Fatal(err)
	}
	spec := p.Spec.ProfileSpec
	if len(spec.HelmCharts) != 1 || spec.HelmCharts[0].ChartVersion != "1.1.0" || len(spec.ValidateHealths) != 1 ||
		!strings.Contains(spec.ValidateHealths[0].Script, "function evaluate()") || len(p.Spec.Stages) != 3 {
		t.Errorf("unexpected promotion: %+v", p.Spec)
	}
	docs := strings.Split(b.placement(), "\n---\n")
	var s placementv1beta1.ClusterStagedUpdateStrategy
	if err := yaml.UnmarshalStrict([]byte(docs[len(docs)-1]), &s); err != nil {
		t.Fatal(err)
	}
	for _, st := range s.Spec.Stages {
		if len(st.AfterStageTasks) != 1 || st.AfterStageTasks[0].WaitTime == nil || st.AfterStageTasks[0].WaitTime.Duration != 10*time.Second {
			t.Errorf("stage %s: after-stage tasks %+v, want a TimedWait of 10s", st.Name, st.AfterStageTasks)
		}
	}
}
