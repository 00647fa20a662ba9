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
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-logr/logr"
)

// controller is one run of `stagecoach controller`, with its peak memory sampled every second.
type controller struct {
	cmd     *exec.Cmd
	metrics string
	pprof   string
	done    chan struct{}

	mu      sync.Mutex
	peakRSS int64
}

func startController(ctx context.Context, opts options, kubeconfig, shardKey, logName string, log logr.Logger) (*controller, error) {
	metricsAddr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	pprofAddr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(opts.dir, logName))
	if err != nil {
		return nil, err
	}
	args := append([]string{"controller",
		"--kubeconfig", kubeconfig,
		"--metrics-bind-address", metricsAddr,
		"--pprof-bind-address", pprofAddr,
		"--health-probe-bind-address", "0",
		"--chart-cache-dir", filepath.Join(opts.dir, "charts"),
		// As the chart runs it: a log line per event at debug level is a cost of its own.
		"--zap-log-level=info",
		"--shard-key", shardKey,
	}, opts.controllerArgs...)
	cmd := exec.Command(opts.stagecoach, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if opts.memoryLimit > 0 {
		// What the controller sets itself when it finds a container's limit (automemlimit).
		cmd.Env = append(os.Environ(), "GOMEMLIMIT="+strconv.FormatInt(opts.memoryLimit/10*9, 10))
	}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	c := &controller{cmd: cmd, metrics: "http://" + metricsAddr + "/metrics", pprof: "http://" + pprofAddr, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		logFile.Close()
		close(c.done)
	}()
	go c.sample()
	log.Info("controller started", "pid", cmd.Process.Pid, "shard", shardKey, "log", logFile.Name())
	return c, nil
}

// sample records the process's resident memory every second until it exits.
func (c *controller) sample() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		if rss, err := residentBytes(c.cmd.Process.Pid); err == nil {
			c.mu.Lock()
			c.peakRSS = max(c.peakRSS, rss)
			c.mu.Unlock()
		}
		select {
		case <-c.done:
			return
		case <-t.C:
		}
	}
}

// current is the process's resident memory now; 0 once it has exited.
func (c *controller) current() int64 {
	rss, _ := residentBytes(c.cmd.Process.Pid)
	return rss
}

// rss is the current resident memory; peak the highest seen.
func (c *controller) rss() (current, peak int64) {
	current, _ = residentBytes(c.cmd.Process.Pid)
	c.mu.Lock()
	defer c.mu.Unlock()
	return current, max(c.peakRSS, current)
}

// kill ends the controller at once, as a crash would.
func (c *controller) kill() {
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	<-c.done
}

// stop ends the controller gracefully.
func (c *controller) stop() {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(40 * time.Second):
		c.kill()
	}
}

func (c *controller) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// residentBytes reads VmRSS of a process from /proc.
func residentBytes(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS for process %d", pid)
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func mib(b int64) float64 { return float64(b*10/(1<<20)) / 10 }
