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
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// controllers are the controller processes of one run, one per shard: the first serves the
// default shard (the clusters without a shard key, and every profile, promotion, placement and
// update run), each other one the clusters annotated with its key. With one shard it is the
// single controller users run by default.
type controllers struct {
	shards []*controller
	done   chan struct{}

	mu        sync.Mutex
	peakTotal int64
}

// shardKey names shard i of n: the default shard first, then s1, s2, ...
func shardKey(i int) string {
	if i == 0 {
		return ""
	}
	return fmt.Sprintf("s%d", i)
}

// shardAnnotations put cluster i of the fleet in shard i mod n, so that every shard serves a
// slice of every stage.
func shardAnnotations(i, n int) map[string]string {
	if key := shardKey(i % max(n, 1)); key != "" {
		return map[string]string{libv1beta1.ShardAnnotation: key}
	}
	return nil
}

func startControllers(ctx context.Context, opts options, kubeconfig, logName string, log logr.Logger) (*controllers, error) {
	cs := &controllers{done: make(chan struct{})}
	for i := range max(opts.shards, 1) {
		name := logName
		if key := shardKey(i); key != "" {
			name = strings.TrimSuffix(logName, ".log") + "-shard-" + key + ".log"
		}
		c, err := startController(ctx, opts, kubeconfig, shardKey(i), name, log)
		if err != nil {
			cs.kill()
			return nil, err
		}
		cs.shards = append(cs.shards, c)
	}
	go cs.sample()
	return cs, nil
}

// sample records the shards' summed resident memory every second: the peak of the sum, which
// the sum of each shard's peak would overstate.
func (cs *controllers) sample() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		total := int64(0)
		for _, c := range cs.shards {
			total += c.current()
		}
		cs.mu.Lock()
		cs.peakTotal = max(cs.peakTotal, total)
		cs.mu.Unlock()
		select {
		case <-cs.done:
			return
		case <-t.C:
		}
	}
}

// rss is the shards' current resident memory, summed; peak the highest sum seen.
func (cs *controllers) rss() (current, peak int64) {
	for _, c := range cs.shards {
		current += c.current()
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return current, max(cs.peakTotal, current)
}

// shardPeaks is each shard's peak resident memory.
func (cs *controllers) shardPeaks() []int64 {
	peaks := make([]int64, len(cs.shards))
	for i, c := range cs.shards {
		_, peaks[i] = c.rss()
	}
	return peaks
}

// metrics are the shards' metrics endpoints.
func (cs *controllers) metrics() []string {
	urls := make([]string, len(cs.shards))
	for i, c := range cs.shards {
		urls[i] = c.metrics
	}
	return urls
}

// pprof is the default shard's profiling endpoint: the shard that drives the rollouts.
func (cs *controllers) pprof() string { return cs.shards[0].pprof }

func (cs *controllers) kill() {
	for _, c := range cs.shards {
		c.kill()
	}
	cs.close()
}

func (cs *controllers) stop() {
	var wg sync.WaitGroup
	for _, c := range cs.shards {
		wg.Go(c.stop)
	}
	wg.Wait()
	cs.close()
}

func (cs *controllers) close() {
	select {
	case <-cs.done:
	default:
		close(cs.done)
	}
}

// exited reports whether any shard's controller has exited.
func (cs *controllers) exited() bool {
	for _, c := range cs.shards {
		if c.exited() {
			return true
		}
	}
	return false
}

// recordPeaks keeps the peaks of the processes about to be replaced: the run's figures span
// the restart.
func (b *bench) recordPeaks() {
	_, peak := b.ctrl.rss()
	b.peakRSS = max(b.peakRSS, peak)
	for i, p := range b.ctrl.shardPeaks() {
		if i == len(b.shardPeakRSS) {
			b.shardPeakRSS = append(b.shardPeakRSS, 0)
		}
		b.shardPeakRSS[i] = max(b.shardPeakRSS[i], p)
	}
}

// shardRSSMiB is each shard's peak resident memory over the whole run, with more than one shard.
func (b *bench) shardRSSMiB() []float64 {
	if len(b.shardPeakRSS) < 2 {
		return nil
	}
	out := make([]float64, len(b.shardPeakRSS))
	for i, p := range b.shardPeakRSS {
		out[i] = mib(p)
	}
	return out
}
