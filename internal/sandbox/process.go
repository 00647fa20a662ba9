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

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// process is one component the sandbox started. Its command line always mentions the sandbox
// directory, which is how a recorded pid is told apart from an unrelated process that reused it.
type process struct {
	Name string   `json:"name"`
	Tier int      `json:"tier"` // stopped in decreasing tier order: etcd (0) goes last
	Args []string `json:"args"`
	PID  int      `json:"pid"`
	// Ports are the loopback ports the process listens on.
	Ports []int `json:"ports,omitempty"`
	// Env is added to the environment the process inherits.
	Env []string `json:"env,omitempty"`

	// exited is closed when a process started by this program exits; nil for processes found in
	// the state file, which are checked through /proc instead.
	exited chan struct{}
}

// start launches the process in its own session, with output appended to logDir/<name>.log, so
// it outlives the command that started it. A goroutine reaps it if it exits while we still run.
func (p *process) start(logDir string) error {
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return err
	}
	log, err := os.OpenFile(filepath.Join(logDir, p.Name+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(p.Args[0], p.Args[1:]...)
	cmd.Stdout, cmd.Stderr = log, log
	if len(p.Env) > 0 {
		cmd.Env = append(os.Environ(), p.Env...)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", p.Name, err)
	}
	p.PID = cmd.Process.Pid
	p.exited = make(chan struct{})
	go func() { _ = cmd.Wait(); close(p.exited) }()
	return nil
}

// alive reports whether the recorded pid still runs this process's command line.
func (p *process) alive() bool {
	if p.exited != nil {
		select {
		case <-p.exited:
			return false
		default:
			return true
		}
	}
	if p.PID <= 0 {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.PID))
	if err != nil {
		return false
	}
	// The state letter follows the parenthesised command name; Z (zombie) and X (dead) don't count.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		if s := stat[i+2]; s == 'Z' || s == 'X' {
			return false
		}
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.PID))
	if err != nil {
		return false
	}
	return strings.Join(strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00"), " ") ==
		strings.Join(p.Args, " ")
}

func (p *process) signal(sig syscall.Signal) {
	if p.alive() {
		_ = syscall.Kill(p.PID, sig)
	}
}

// stopAll stops the processes tier by tier, highest first: SIGTERM, a grace period, then SIGKILL.
// kube-apiserver takes several seconds to drain on SIGTERM, hence the generous grace period.
func stopAll(procs []*process, grace time.Duration) error {
	tiers := map[int][]*process{}
	maxTier := 0
	for _, p := range procs {
		tiers[p.Tier] = append(tiers[p.Tier], p)
		maxTier = max(maxTier, p.Tier)
	}
	var errs []error
	for t := maxTier; t >= 0; t-- {
		group := tiers[t]
		for _, p := range group {
			p.signal(syscall.SIGTERM)
		}
		deadline := time.Now().Add(grace)
		for anyAlive(group) && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		for _, p := range group {
			p.signal(syscall.SIGKILL)
		}
		deadline = time.Now().Add(5 * time.Second)
		for anyAlive(group) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		for _, p := range group {
			if p.alive() {
				errs = append(errs, fmt.Errorf("%s (pid %d) did not exit", p.Name, p.PID))
			}
		}
	}
	return errors.Join(errs...)
}

func anyAlive(procs []*process) bool {
	for _, p := range procs {
		if p.alive() {
			return true
		}
	}
	return false
}

func itoa(i int) string { return strconv.Itoa(i) }
