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
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"syscall"
	"time"
)

// Attach starts a program next to the sandbox in dir — a controller, a chart repository — and
// records it in the sandbox's state, so that `down` stops it with the clusters. A program
// attached earlier under the same name is stopped first. Its output goes to logs/<name>.log, and
// ports are the loopback ports it listens on: they must be free, and are leased to the sandbox
// (take them from FreePorts) so that no other sandbox picks them until `down`. Attach returns
// once the program has started; it does not wait for it to serve.
func Attach(ctx context.Context, dir, name string, args []string, ports ...int) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	l := layout{dir: dir}
	st, err := loadState(l.stateFile())
	if err != nil {
		return fmt.Errorf("no sandbox in %s: %w", dir, err)
	}
	if i := slices.IndexFunc(st.Processes, func(p *process) bool { return p.Name == name }); i >= 0 {
		if st.Processes[i].Tier != tierAttached {
			return fmt.Errorf("%s is a component of the sandbox, not an attached program", name)
		}
		if err := stopAll(st.Processes[i:i+1], 10*time.Second); err != nil {
			return err
		}
		st.Processes = slices.Delete(st.Processes, i, i+1)
	}
	p := &process{Name: name, Tier: tierAttached, Args: args, Ports: ports}
	if err := defaultPorts().hold(dir, ports); err != nil {
		return err
	}
	if err := waitPortsFree(ctx, p); err != nil {
		return err
	}
	if err := p.start(l.logs()); err != nil {
		return err
	}
	st.Processes = append(st.Processes, p)
	if err := saveState(l.stateFile(), st); err != nil {
		p.signal(syscall.SIGKILL)
		return err
	}
	return nil
}

// FreePorts leases n loopback ports, free now, to the sandbox in dir, for programs attached to it:
// no other sandbox on this machine picks them until `down` releases them.
func FreePorts(dir string, n int) ([]int, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	return defaultPorts().lease(dir, n)
}

// LogFile is where the sandbox in dir writes the output of the named process.
func LogFile(dir, name string) string {
	return filepath.Join(layout{dir: dir}.logs(), name+".log")
}

// Running reports whether the program attached under name still runs: a supervisor restarts
// one that ended on its own (a controller replica that lost its lease exits).
func Running(dir, name string) (bool, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return false, err
	}
	st, err := loadState(layout{dir: dir}.stateFile())
	if err != nil {
		return false, err
	}
	i := slices.IndexFunc(st.Processes, func(p *process) bool { return p.Name == name })
	return i >= 0 && st.Processes[i].alive(), nil
}
