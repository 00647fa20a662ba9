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
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// anyPort lets a test registry lease any port of its window: the protocol is under test, and
// sandboxes running beside the test (other packages' tests) may listen in the window.
func anyPort(int) bool { return true }

// testRegistry is a registry of its own over a window of size ports in the sandbox range, where
// every port counts as free.
func testRegistry(t *testing.T, size int) portRegistry {
	t.Helper()
	low, high := portRange()
	base := low + rand.IntN(high-low-size)
	return portRegistry{dir: filepath.Join(t.TempDir(), "ports"), low: base, high: base + size, free: anyPort}
}

// newSandboxDir makes a directory that looks like a running sandbox: its state file names a
// process that runs.
func newSandboxDir(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// Its one process is this test: it runs as long as the sandbox is needed.
	cmdline, err := os.ReadFile("/proc/self/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
	st := &state{Processes: []*process{{Name: "test", Args: args, PID: os.Getpid()}}}
	if err := saveState(layout{dir: dir}.stateFile(), st); err != nil {
		t.Fatal(err)
	}
	return dir
}

// checkOwners fails unless every port is leased, each to exactly the sandbox that got it.
func checkOwners(t *testing.T, r portRegistry, got map[string][]int) {
	t.Helper()
	owner := map[int]string{}
	for sandbox, ports := range got {
		for _, p := range ports {
			if other, ok := owner[p]; ok {
				t.Errorf("port %d handed to both %s and %s", p, other, sandbox)
			}
			owner[p] = sandbox
			if l, err := r.read(p); err != nil || l.Sandbox != sandbox {
				t.Errorf("lease of port %d: %+v, %v; want one naming %s", p, l, err, sandbox)
			}
		}
	}
}

func TestLeaseConcurrentGoroutines(t *testing.T) {
	const sandboxes, each = 32, 2
	r := testRegistry(t, sandboxes*each+32)
	got := map[string][]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range sandboxes {
		dir := filepath.Join(t.TempDir(), fmt.Sprint("sandbox-", i))
		wg.Go(func() {
			ports, err := r.lease(dir, each)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			got[dir] = ports
		})
	}
	wg.Wait()
	if len(got) != sandboxes {
		t.Fatalf("%d sandboxes got ports, want %d", len(got), sandboxes)
	}
	checkOwners(t, r, got)
}

// TestLeaseAcrossProcesses runs claimers in separate processes (this test binary again, running
// TestPortLeaseHelper), released at the same moment, over a window barely larger than they need.
func TestLeaseAcrossProcesses(t *testing.T) {
	const procs, rounds, each = 4, 4, 3
	r := testRegistry(t, procs*rounds*each+16)
	var cmds []*exec.Cmd
	var stdins []io.WriteCloser
	var outs []*strings.Builder
	var dirs []string
	for i := range procs {
		dir := newSandboxDir(t, fmt.Sprint("sandbox-", i))
		cmd := exec.Command(os.Args[0], "-test.run=^TestPortLeaseHelper$", "-test.count=1")
		cmd.Env = append(os.Environ(),
			"STAGECOACH_PORT_LEASE_HELPER="+strings.Join([]string{r.dir, itoa(r.low), itoa(r.high), dir, itoa(rounds), itoa(each)}, ","))
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, stdins, outs, dirs = append(cmds, cmd), append(stdins, stdin), append(outs, out), append(dirs, dir)
	}
	for _, stdin := range stdins {
		_ = stdin.Close() // the claimers start on end of input
	}
	got := map[string][]int{}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("claimer %d: %v\n%s", i, err, outs[i])
		}
		for line := range strings.SplitSeq(outs[i].String(), "\n") {
			if port, ok := strings.CutPrefix(line, "leased "); ok {
				p, err := strconv.Atoi(port)
				if err != nil {
					t.Fatal(err)
				}
				got[dirs[i]] = append(got[dirs[i]], p)
			}
		}
		if len(got[dirs[i]]) != rounds*each {
			t.Errorf("claimer %d leased %d ports, want %d:\n%s", i, len(got[dirs[i]]), rounds*each, outs[i])
		}
	}
	// The claimers have exited, but their sandboxes' state files keep the leases live.
	checkOwners(t, r, got)
}

// TestPortLeaseHelper is the claiming process of TestLeaseAcrossProcesses.
func TestPortLeaseHelper(t *testing.T) {
	args := os.Getenv("STAGECOACH_PORT_LEASE_HELPER")
	if args == "" {
		t.Skip("run by TestLeaseAcrossProcesses")
	}
	r := portRegistry{free: anyPort}
	var sandbox string
	var rounds, each int
	if _, err := fmt.Sscan(strings.ReplaceAll(args, ",", " "), &r.dir, &r.low, &r.high, &sandbox, &rounds, &each); err != nil {
		t.Fatal(err)
	}
	_, _ = io.ReadAll(os.Stdin)
	for range rounds {
		ports, err := r.lease(sandbox, each)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ports {
			fmt.Println("leased", p)
		}
	}
}

// exitedPID is the pid of a process that has exited.
func exitedPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// freePort is a loopback port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func TestStaleLeases(t *testing.T) {
	running := newSandboxDir(t, "running")
	stopped := filepath.Join(t.TempDir(), "stopped") // its state names no process that runs
	if err := os.MkdirAll(stopped, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := saveState(layout{dir: stopped}.stateFile(), &state{Processes: []*process{{Name: "etcd", Args: []string{"etcd"}, PID: exitedPID(t)}}}); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(t.TempDir(), "gone") // no state file: down, or never written
	self := os.Getpid()
	for _, tc := range []struct {
		name      string
		lease     string // the lease file's content
		reclaimed bool
	}{
		{"sandbox gone, claimer exited", fmt.Sprintf(`{"sandbox":%q,"pid":%d,"start":1}`, gone, exitedPID(t)), true},
		{"sandbox gone, claimer's pid reused", fmt.Sprintf(`{"sandbox":%q,"pid":%d,"start":1}`, gone, self), true},
		{"unreadable", `{"sandb`, true},
		{"sandbox running, claimer exited", fmt.Sprintf(`{"sandbox":%q,"pid":%d,"start":1}`, running, exitedPID(t)), false},
		{"sandbox stopped, claimer exited", fmt.Sprintf(`{"sandbox":%q,"pid":%d,"start":1}`, stopped, exitedPID(t)), true},
		{"sandbox initialising, claimer running", fmt.Sprintf(`{"sandbox":%q,"pid":%d,"start":%d}`, gone, self, processStart(self)), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			port := freePort(t)
			r := portRegistry{dir: filepath.Join(t.TempDir(), "ports"), low: port, high: port + 1}
			if err := os.MkdirAll(r.dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(r.file(port), []byte(tc.lease), 0o600); err != nil {
				t.Fatal(err)
			}
			claimer := filepath.Join(t.TempDir(), "claimer")
			ports, err := r.lease(claimer, 1)
			if !tc.reclaimed {
				if err == nil {
					t.Fatalf("a live lease was taken: got %v", ports)
				}
				if data, _ := os.ReadFile(r.file(port)); string(data) != tc.lease {
					t.Errorf("a live lease was changed to %s", data)
				}
				return
			}
			if err != nil || len(ports) != 1 || ports[0] != port {
				t.Fatalf("stale lease not reclaimed: %v, %v", ports, err)
			}
			if l, err := r.read(port); err != nil || l.Sandbox != claimer || l.PID != self || l.Start != processStart(self) {
				t.Errorf("lease after reclaim: %+v, %v", l, err)
			}
		})
	}
}

// TestConcurrentReclaim has many claimers race for one port behind a stale lease: one wins.
func TestConcurrentReclaim(t *testing.T) {
	port := freePort(t)
	r := portRegistry{dir: filepath.Join(t.TempDir(), "ports"), low: port, high: port + 1}
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	stale := fmt.Sprintf(`{"sandbox":%q,"pid":%d,"start":1}`, filepath.Join(t.TempDir(), "gone"), exitedPID(t))
	if err := os.WriteFile(r.file(port), []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	var won []string
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 16 {
		dir := newSandboxDir(t, fmt.Sprint("sandbox-", i))
		wg.Go(func() {
			if _, err := r.lease(dir, 1); err == nil {
				mu.Lock()
				defer mu.Unlock()
				won = append(won, dir)
			}
		})
	}
	wg.Wait()
	if len(won) != 1 {
		t.Fatalf("%d claimers got the port, want 1: %v", len(won), won)
	}
	checkOwners(t, r, map[string][]int{won[0]: {port}})
}

func TestLeaseSkipsPortsInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	r := portRegistry{dir: filepath.Join(t.TempDir(), "ports"), low: port, high: port + 1}
	if ports, err := r.lease(newSandboxDir(t, "a"), 1); err == nil {
		t.Fatalf("leased port %v, which another program listens on", ports)
	}
	if _, err := os.Stat(r.file(port)); !os.IsNotExist(err) {
		t.Errorf("a lease was left behind for a port in use: %v", err)
	}
}

func TestHoldAndRelease(t *testing.T) {
	r := testRegistry(t, 64)
	a, b := newSandboxDir(t, "a"), newSandboxDir(t, "b")
	ports, err := r.lease(a, 3)
	if err != nil {
		t.Fatal(err)
	}
	// A sandbox restarting holds its own ports again, whether their leases survived or not.
	if err := os.Remove(r.file(ports[0])); err != nil {
		t.Fatal(err)
	}
	if err := r.hold(a, ports); err != nil {
		t.Fatalf("holding its own ports: %v", err)
	}
	checkOwners(t, r, map[string][]int{a: ports})
	if err := r.hold(b, ports[1:2]); err == nil || !strings.Contains(err.Error(), a) {
		t.Errorf("holding another sandbox's port: %v, want an error naming %s", err, a)
	}
	// Releasing is by owner: b cannot release a's ports.
	if err := r.release(b, ports); err != nil {
		t.Fatal(err)
	}
	checkOwners(t, r, map[string][]int{a: ports})
	if err := r.releaseAll(a); err != nil {
		t.Fatal(err)
	}
	if left, err := r.leasedTo(a); err != nil || len(left) != 0 {
		t.Errorf("leases of a after releaseAll: %v, %v", left, err)
	}
	if err := r.hold(b, ports[1:2]); err != nil {
		t.Errorf("holding a released port: %v", err)
	}
}

// TestDownReleasesPorts leases ports for an attached program through FreePorts and checks that
// Down gives them back, with the registry moved aside by its environment variable.
func TestDownReleasesPorts(t *testing.T) {
	t.Setenv(PortsDirEnv, filepath.Join(t.TempDir(), "ports"))
	dir := filepath.Join(t.TempDir(), "fleet")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ports, err := FreePorts(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	r := defaultPorts()
	checkOwners(t, r, map[string][]int{dir: ports})
	if err := Down(dir); err != nil {
		t.Fatal(err)
	}
	if left, err := r.leasedTo(dir); err != nil || len(left) != 0 {
		t.Errorf("leases left after down: %v, %v", left, err)
	}
}
