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
	"testing"
	"time"
)

func TestJitterStaysWithinBounds(t *testing.T) {
	f := &Fleet{opts: Options{Latency: 30 * time.Millisecond, Jitter: 10 * time.Millisecond, Seed: 7}}
	lo, hi := time.Hour, time.Duration(0)
	for range 10000 {
		d := f.nextLatency()
		lo, hi = min(lo, d), max(hi, d)
	}
	if lo < 20*time.Millisecond || hi > 40*time.Millisecond {
		t.Errorf("latencies from %s to %s, want within 20ms..40ms", lo, hi)
	}
	if hi-lo < 19*time.Millisecond {
		t.Errorf("latencies from %s to %s: hardly spread", lo, hi)
	}
}

func TestFlapTakesClustersDownAndBackUp(t *testing.T) {
	f := startFleet(t, Options{Clusters: 2})
	ctx, cancel := context.WithCancel(t.Context())
	c := f.Clusters()[1]
	f.Flap(ctx, f.Clusters()[1:], 400*time.Millisecond, 200*time.Millisecond, Refuse)
	seen := map[DownMode]bool{}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && len(seen) < 2; time.Sleep(10 * time.Millisecond) {
		seen[c.DownMode()] = true
	}
	if !seen[Up] || !seen[Refuse] {
		t.Fatalf("flapping cluster was only %v", seen)
	}
	if f.Clusters()[0].DownMode() != Up {
		t.Error("a cluster not flapping went down")
	}
	cancel()
	for deadline := time.Now().Add(5 * time.Second); c.DownMode() != Up; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the cluster stayed down after flapping stopped")
		}
	}
}
