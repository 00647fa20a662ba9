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
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
)

// usage adds up what the controller processes of a run cost, every shard's and every restart's:
// CPU from /proc, and the Go runtime's own figures from each controller's /metrics
// (controller-runtime exports every runtime/metrics value there): GC CPU against the CPU used,
// and the live heap after each GC.
type usage struct {
	mu sync.Mutex
	// cpu is the CPU seconds of the processes already gone, gcCPU and allCPU their runtime's
	// GC and total CPU seconds; the current processes' are added by retire.
	cpu, gcCPU, allCPU float64
	// fromGC and fromAll are each shard's runtime GC and total CPU seconds when the rollouts
	// started, in the processes running then; later processes count from their start.
	fromGC, fromAll []float64
	// peakLive is the peak of the shards' live heaps summed, each sampled at the same time.
	peakLive float64
	// tracking is true during the rollouts, when the live heap's peak is recorded.
	tracking bool
	// fromController, fromManagement and fromSimulator are the CPU seconds of the controller
	// processes (counted as cpu is), of the management cluster's processes and of this process
	// when the rollouts started.
	fromController, fromManagement, fromSimulator float64
}

// runtimeFigures are the controller's cumulative runtime/metrics values of interest; allCPU is
// the CPU the process used: the runtime's total (GOMAXPROCS × wall time) less its idle time.
type runtimeFigures struct{ gcCPU, allCPU, liveHeap float64 }

func (b *bench) runtimeFigures(ctx context.Context, c *controller) (runtimeFigures, error) {
	body, err := b.get(ctx, c.metrics)
	if err != nil {
		return runtimeFigures{}, err
	}
	var f runtimeFigures
	var idle float64
	found := 0
	for line := range strings.Lines(string(body)) {
		name, value, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok {
			continue
		}
		var dst *float64
		switch name {
		case "go_cpu_classes_gc_total_cpu_seconds_total":
			dst = &f.gcCPU
		case "go_cpu_classes_total_cpu_seconds_total":
			dst = &f.allCPU
		case "go_cpu_classes_idle_cpu_seconds_total":
			dst = &idle
		case "go_gc_heap_live_bytes":
			dst = &f.liveHeap
		default:
			continue
		}
		if *dst, err = strconv.ParseFloat(value, 64); err != nil {
			return f, err
		}
		found++
	}
	if found < 4 {
		return f, fmt.Errorf("the controller's /metrics lacks the Go runtime's CPU classes or live heap")
	}
	f.allCPU -= idle
	return f, nil
}

// shardFigures reads every shard's runtime figures at once; a shard it cannot read is nil.
func (b *bench) shardFigures(ctx context.Context, cs *controllers) []*runtimeFigures {
	out := make([]*runtimeFigures, len(cs.shards))
	var wg sync.WaitGroup
	for i, c := range cs.shards {
		wg.Go(func() {
			if f, err := b.runtimeFigures(ctx, c); err == nil {
				out[i] = &f
			} else {
				b.log.Error(err, "reading the controller's runtime metrics", "shard", shardKey(i))
			}
		})
	}
	wg.Wait()
	return out
}

// recordLive keeps the peak of the shards' live heaps summed; a sample missing a shard is
// not counted, as it would understate the sum.
func (b *bench) recordLive(figures []*runtimeFigures) {
	total := 0.0
	for _, f := range figures {
		if f == nil {
			return
		}
		total += f.liveHeap
	}
	b.usage.mu.Lock()
	defer b.usage.mu.Unlock()
	b.usage.peakLive = max(b.usage.peakLive, total)
}

// watchUsage samples the shards' live heaps every 10 s while they run and the rollouts do.
// A controller's /metrics page grows with the fleet, so it is not read more often.
func (b *bench) watchUsage(ctx context.Context, cs *controllers) {
	t := time.NewTicker(10 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-cs.done:
			return
		case <-t.C:
		}
		b.usage.mu.Lock()
		tracking := b.usage.tracking
		b.usage.mu.Unlock()
		if tracking && !cs.exited() {
			b.recordLive(b.shardFigures(ctx, cs))
		}
	}
}

// startTracking marks the start of the rollouts: GC CPU is counted from here.
func (b *bench) startTracking(ctx context.Context) {
	figures := b.shardFigures(ctx, b.ctrl)
	b.recordLive(figures)
	management, simulator := b.othersCPU()
	controller := 0.0
	for _, c := range b.ctrl.shards {
		s, _ := cpuSeconds(c.cmd.Process.Pid)
		controller += s
	}
	b.usage.mu.Lock()
	defer b.usage.mu.Unlock()
	b.usage.fromController = b.usage.cpu + controller
	b.usage.fromManagement, b.usage.fromSimulator = management, simulator
	b.usage.fromGC, b.usage.fromAll = make([]float64, len(figures)), make([]float64, len(figures))
	for i, f := range figures {
		if f != nil {
			b.usage.fromGC[i], b.usage.fromAll[i] = f.gcCPU, f.allCPU
		}
	}
	b.usage.tracking = true
}

// retire adds up the current controllers' figures, before they are killed or at the end.
func (b *bench) retire(ctx context.Context) {
	cpu := 0.0
	for _, c := range b.ctrl.shards {
		s, err := cpuSeconds(c.cmd.Process.Pid)
		if err != nil {
			b.log.Error(err, "reading the controller's CPU time")
		}
		cpu += s
	}
	b.usage.mu.Lock()
	b.usage.cpu += cpu
	tracking := b.usage.tracking
	b.usage.mu.Unlock()
	if !tracking {
		return
	}
	figures := b.shardFigures(ctx, b.ctrl)
	b.recordLive(figures)
	b.usage.mu.Lock()
	defer b.usage.mu.Unlock()
	for i, f := range figures {
		if f == nil {
			continue
		}
		fromGC, fromAll := 0.0, 0.0
		if i < len(b.usage.fromGC) {
			fromGC, fromAll = b.usage.fromGC[i], b.usage.fromAll[i]
		}
		b.usage.gcCPU += f.gcCPU - fromGC
		b.usage.allCPU += f.allCPU - fromAll
	}
	b.usage.fromGC, b.usage.fromAll = nil, nil
}

// othersCPU is the CPU seconds so far of the management cluster's processes and of this
// process; a process that cannot be read counts nothing.
func (b *bench) othersCPU() (management, simulator float64) {
	if pids, err := sandbox.PIDs(b.mgmt.Dir); err == nil {
		for _, pid := range pids {
			s, _ := cpuSeconds(pid)
			management += s
		}
	} else {
		b.log.Error(err, "finding the management cluster's processes")
	}
	simulator, _ = cpuSeconds(os.Getpid())
	return management, simulator
}

// report writes the figures into res.
func (b *bench) report(res *result) {
	management, simulator := b.othersCPU()
	b.usage.mu.Lock()
	defer b.usage.mu.Unlock()
	if b.usage.tracking {
		res.ControllerRolloutsCPUS = round1(b.usage.cpu - b.usage.fromController)
		res.ManagementRolloutsCPUS = round1(management - b.usage.fromManagement)
		res.SimulatorRolloutsCPUS = round1(simulator - b.usage.fromSimulator)
	}
	res.ControllerCPUS = round1(b.usage.cpu)
	if b.usage.allCPU > 0 {
		res.GCCPUFraction = float64(int64(b.usage.gcCPU/b.usage.allCPU*1000+0.5)) / 1000
	}
	res.LiveHeapMiB = mib(int64(b.usage.peakLive))
}

// cpuSeconds is a process's user and system CPU time so far, from /proc/<pid>/stat.
func cpuSeconds(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces; the fields after its closing parenthesis
	// start with the state (field 3) after the last parenthesis, so utime and stime (14 and 15) are the 12th and 13th.
	end := strings.LastIndexByte(string(data), ')')
	fields := strings.Fields(string(data)[end+1:])
	if end < 0 || len(fields) < 13 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	utime, err1 := strconv.ParseFloat(fields[11], 64)
	stime, err2 := strconv.ParseFloat(fields[12], 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	// Linux reports them in clock ticks of USER_HZ, 100 a second on every architecture Go runs
	// the benchmark on.
	return (utime + stime) / 100, nil
}
