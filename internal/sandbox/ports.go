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
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// PortsDirEnv names the environment variable that overrides where sandboxes lease their ports.
const PortsDirEnv = "STAGECOACH_SANDBOX_PORTS_DIR"

// A sandbox's components bind their ports seconds after the ports are picked, and a sandbox
// restarted after a crash binds the same ports again. So a port is not merely found free: it is
// leased, machine-wide, to the sandbox directory that uses it, until `down` releases it. Every
// sandbox of the same user shares one registry directory holding a lease file per port, named
// after the port and naming the sandbox directory and the process that claimed it.
//
// A lease is stale, and may be claimed again, only when the claiming process has exited and its
// sandbox is gone or runs no process: a sandbox being initialised has no state file yet but a
// live claimer, and a sandbox left running by `stagecoach sandbox up` has an exited claimer but
// running components. Every change to the registry — a claim, a reclaim, a release — happens under an exclusive
// flock on the registry's lock file, so a lease is always judged and replaced in one step, and the
// kernel drops the lock of a process that dies. A lease file appears whole (written aside, then
// hard-linked into place), and a claim also checks that the port can be listened on now, as a
// program outside the registry may hold it.

// portLease is the content of a lease file.
type portLease struct {
	// Sandbox is the absolute sandbox directory the port is leased to.
	Sandbox string `json:"sandbox"`
	// PID and Start (the process start time, in clock ticks since boot, from /proc) identify the
	// process that claimed the port, so that a reused pid is not taken for it.
	PID   int    `json:"pid"`
	Start uint64 `json:"start"`
}

// portRegistry leases loopback ports between low (inclusive) and high (exclusive).
type portRegistry struct {
	dir       string
	low, high int
	// free reports whether a port can be listened on now; nil means canListen. The tests of the
	// lease protocol replace it, so that sandboxes running beside them cannot starve their window.
	free func(port int) bool
}

// defaultPorts is the registry every sandbox of this user shares: $STAGECOACH_SANDBOX_PORTS_DIR,
// or stagecoach-sandbox-ports-<uid> in the temporary directory, over portWindow.
func defaultPorts() portRegistry {
	dir := os.Getenv(PortsDirEnv)
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "stagecoach-sandbox-ports-"+strconv.Itoa(os.Getuid()))
	}
	low, high := portWindow()
	return portRegistry{dir: dir, low: low, high: high}
}

// lease claims n ports that nothing holds, for the sandbox in the absolute directory sandbox.
func (r portRegistry) lease(sandbox string, n int) ([]int, error) {
	unlock, err := r.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	size := r.high - r.low
	first := rand.IntN(size)
	var ports []int
	for i := 0; i < size && len(ports) < n; i++ {
		port := r.low + (first+i)%size
		ok, err := r.claim(sandbox, port, true)
		if err != nil {
			return nil, errors.Join(err, r.releaseLocked(sandbox, ports))
		}
		if ok {
			ports = append(ports, port)
		}
	}
	if len(ports) < n {
		return nil, errors.Join(fmt.Errorf("found only %d of %d free ports between %d and %d (leases in %s)",
			len(ports), n, r.low, r.high-1, r.dir), r.releaseLocked(sandbox, ports))
	}
	return ports, nil
}

// hold makes sure the given ports are leased to sandbox, as when a sandbox restarts its components
// on the ports it recorded. It does not check that they can be listened on: the sandbox's own
// components may be running on them. A port leased to a live other sandbox is an error.
func (r portRegistry) hold(sandbox string, ports []int) error {
	unlock, err := r.lock()
	if err != nil {
		return err
	}
	defer unlock()
	for _, port := range ports {
		ok, err := r.claim(sandbox, port, false)
		if err != nil {
			return err
		}
		if !ok {
			other, _ := r.read(port)
			return fmt.Errorf("port %d is leased to another sandbox, in %s; stop it, or start afresh with stagecoach sandbox down",
				port, other.Sandbox)
		}
	}
	return nil
}

// release gives up the leases of sandbox on ports; releaseAll gives up all its leases.
func (r portRegistry) release(sandbox string, ports []int) error {
	unlock, err := r.lock()
	if err != nil {
		return err
	}
	defer unlock()
	return r.releaseLocked(sandbox, ports)
}

func (r portRegistry) releaseAll(sandbox string) error {
	unlock, err := r.lock()
	if err != nil {
		return err
	}
	defer unlock()
	ports, err := r.leasedTo(sandbox)
	if err != nil {
		return err
	}
	return r.releaseLocked(sandbox, ports)
}

// leasedTo lists the ports leased to sandbox.
func (r portRegistry) leasedTo(sandbox string) ([]int, error) {
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		return nil, err
	}
	var ports []int
	for _, e := range entries {
		port, err := strconv.Atoi(strings.TrimSuffix(e.Name(), ".lease"))
		if err != nil || !strings.HasSuffix(e.Name(), ".lease") {
			continue
		}
		if l, err := r.read(port); err == nil && l.Sandbox == sandbox {
			ports = append(ports, port)
		}
	}
	return ports, nil
}

// releaseLocked removes the leases of sandbox on ports; the caller holds the lock.
func (r portRegistry) releaseLocked(sandbox string, ports []int) error {
	var errs []error
	for _, port := range ports {
		if l, err := r.read(port); err == nil && l.Sandbox == sandbox {
			errs = append(errs, removeIfExists(r.file(port)))
		}
	}
	return errors.Join(errs...)
}

// claim leases port to sandbox unless a live lease of another sandbox holds it, replacing a stale
// lease. With listen, a port that cannot be listened on now is not claimed. It reports whether
// sandbox holds the port afterwards; a port sandbox already held counts only without listen
// (a fresh lease wants ports the sandbox does not use yet). The caller holds the lock.
func (r portRegistry) claim(sandbox string, port int, listen bool) (bool, error) {
	l, err := r.read(port)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err == nil && l.Sandbox == sandbox:
		return !listen, nil
	case err == nil && !l.stale():
		return false, nil
	default: // stale, or unreadable: a lease file is only ever written whole
		if err := removeIfExists(r.file(port)); err != nil {
			return false, err
		}
	}
	if listen && !r.listenable(port) {
		return false, nil
	}
	err = r.write(port, portLease{Sandbox: sandbox, PID: os.Getpid(), Start: processStart(os.Getpid())})
	if errors.Is(err, fs.ErrExist) { // cannot happen under the lock, but a lease is never overwritten
		return false, nil
	}
	return err == nil, err
}

// write creates the lease file of port: written aside, then hard-linked into place, which fails
// if a lease exists, so that no one ever reads half a lease.
func (r portRegistry) write(port int, l portLease) error {
	data, err := json.Marshal(l)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(r.dir, ".lease-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err := errors.Join(err, tmp.Close()); err != nil {
		return err
	}
	return os.Link(tmp.Name(), r.file(port))
}

func (r portRegistry) read(port int) (portLease, error) {
	var l portLease
	data, err := os.ReadFile(r.file(port))
	if err != nil {
		return l, err
	}
	if err := json.Unmarshal(data, &l); err != nil {
		return l, err
	}
	if l.Sandbox == "" {
		return l, errors.New("lease names no sandbox")
	}
	return l, nil
}

func (r portRegistry) file(port int) string {
	return filepath.Join(r.dir, strconv.Itoa(port)+".lease")
}

// lock takes the registry's exclusive lock, creating the registry directory if need be, and
// returns the function that gives it back.
func (r portRegistry) lock() (func(), error) {
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return nil, fmt.Errorf("sandbox port registry: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(r.dir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("sandbox port registry: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("locking the sandbox port registry %s: %w", r.dir, err)
	}
	// Closing the file drops the lock.
	return func() { _ = f.Close() }, nil
}

// stale reports whether the lease outlived both the process that claimed it and its sandbox:
// the sandbox is gone, or none of its processes runs (a test killed before its cleanup, a
// machine rebooted), so its ports are free for others. A later `up` of such a sandbox claims its
// ports again, or says which sandbox took them.
func (l portLease) stale() bool {
	if l.PID > 0 && processStart(l.PID) == l.Start {
		return false // the claimer still runs: the sandbox may be starting
	}
	st, err := loadState(layout{dir: l.Sandbox}.stateFile())
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return true
	case err != nil:
		return false // a state file being written, or one to look at: keep the lease
	}
	return !anyAlive(st.Processes)
}

// processStart is the start time of process pid in clock ticks since boot, 0 if it does not run.
func processStart(pid int) uint64 {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the parenthesised command name start with the state, field 3 of stat(5);
	// the start time is field 22. A zombie has exited.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0
	}
	fields := strings.Fields(string(stat[i+1:]))
	if len(fields) < 20 || fields[0] == "Z" || fields[0] == "X" {
		return 0
	}
	start, err := strconv.ParseUint(fields[19], 10, 64)
	if err != nil {
		return 0
	}
	return start
}

func (r portRegistry) listenable(port int) bool {
	if r.free != nil {
		return r.free(port)
	}
	return canListen(port)
}

// canListen reports whether port can be listened on on loopback now.
func canListen(port int) bool {
	ln, err := net.Listen("tcp", "127.0.0.1:"+itoa(port))
	if err != nil {
		return false
	}
	_ = ln.Close()
	return true
}

// portWindow is where sandboxes lease ports; tests narrow it to make sandboxes contend.
var portWindow = portRange

// portRange is where sandbox ports are picked: from 20000 up to the start of the kernel's
// ephemeral range. A port from that range can be taken by any outgoing connection's local end
// while a component is down, and then a restarted component could not listen on it again.
func portRange() (int, int) {
	low, high := 20000, 32768
	if data, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		var start, end int
		if _, err := fmt.Sscan(string(data), &start, &end); err == nil && start > low+1000 {
			high = start
		}
	}
	return low, high
}
