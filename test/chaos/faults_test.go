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

package chaos

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// controllerProcess is the controller running as a process attached to the sandbox.
type controllerProcess struct {
	dir  string
	args []string
}

func newControllerProcess(fleet *sandbox.Fleet) (*controllerProcess, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if exe, err = filepath.Abs(exe); err != nil {
		return nil, err
	}
	return &controllerProcess{dir: fleet.Dir, args: []string{exe, controllerMode, fleet.Management.Kubeconfig}}, nil
}

const controllerName = "stagecoach"

func (p *controllerProcess) start(ctx context.Context) error {
	return sandbox.Attach(ctx, p.dir, controllerName, p.args)
}

// crash kills the controller with SIGKILL and starts it again.
func (p *controllerProcess) crash(ctx context.Context) error {
	if err := sandbox.Kill(p.dir, controllerName); err != nil {
		return err
	}
	return p.start(ctx)
}

// faults injects a trial's faults until ctx ends: the controller is killed and restarted after
// each random gap, and as soon as the staging wave has started (started reports it), outage's
// API server, if any, goes down for a random moment. It is the only goroutine that stops or
// starts processes, so the sandbox's state file has one writer.
type faults struct {
	ctl    *controllerProcess
	rng    *rand.Rand
	outage string
	// started reports whether the wave the outage is for has begun.
	started func() bool
	kills   int
	// outages counts the API server outages done.
	outages int
}

// minGap and maxGap bound the time between two kills: a trial of about 15 s sees several.
const minGap, maxGap = 500 * time.Millisecond, 4 * time.Second

func (f *faults) run(ctx context.Context) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	next := time.Now().Add(f.between(minGap, maxGap))
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		if f.outage != "" && f.started() {
			if err := f.stopAPIServer(ctx); err != nil {
				return err
			}
			continue
		}
		if time.Now().Before(next) {
			continue
		}
		if err := f.ctl.crash(context.Background()); err != nil {
			return err
		}
		f.kills++
		next = time.Now().Add(f.between(minGap, maxGap))
	}
}

// stopAPIServer kills outage's API server and starts it again after a random moment.
func (f *faults) stopAPIServer(ctx context.Context) error {
	if err := sandbox.Kill(f.ctl.dir, f.outage+"-kube-apiserver"); err != nil {
		return err
	}
	f.outage = ""
	f.outages++
	pause(ctx, f.between(500*time.Millisecond, 2*time.Second))
	// Started again whatever happens to ctx: the next trial needs the whole fleet.
	return testenv.Restart(context.Background())
}

func (f *faults) between(lo, hi time.Duration) time.Duration {
	return lo + time.Duration(f.rng.Int64N(int64(hi-lo)))
}

// pause waits d, or less if ctx ends first; it reports whether ctx is still going.
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
