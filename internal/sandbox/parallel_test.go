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

package sandbox

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestSixSandboxesAtOnce starts six sandboxes (management clusters) at the same moment, as
// parallel test packages, several `stagecoach sandbox up` runs or the demo beside the tests do,
// checks that each serves and that no port went to two of them, takes them down and does it all
// again. The sandboxes lease from a narrow window of ports, where their first picks often meet,
// and the second round reuses the ports the first released.
func TestSixSandboxesAtOnce(t *testing.T) {
	const sandboxes, portsEach = 6, 4 // etcd client and peer, kube-apiserver, kube-controller-manager
	kubeBin, err := FindKubeBin()
	if err != nil {
		t.Fatal(err)
	}
	// The registry is the machine's own, shared with whatever else runs sandboxes now (other test
	// packages, a demo): a private one would not see their leases.
	low, high := portRange()
	// Slack for the ports other sandboxes hold (a few dozen each) and other programs: the window
	// stays small enough that the six often start leasing at the same ports.
	size := sandboxes*portsEach + 200
	base := low + rand.IntN(high-low-size)
	portWindow = func() (int, int) { return base, base + size }
	t.Cleanup(func() { portWindow = portRange })

	for round := 1; round <= 2; round++ {
		var dirs []string
		for range sandboxes {
			dir := filepath.Join(t.TempDir(), "fleet")
			dirs = append(dirs, dir)
			t.Cleanup(func() { _ = Down(dir) })
		}

		start := time.Now()
		errs := make([]error, sandboxes)
		var wg sync.WaitGroup
		for i, dir := range dirs {
			wg.Go(func() {
				// Generous: six kube-apiservers starting together on a busy 2-core machine.
				_, errs[i] = Up(t.Context(), Options{Dir: dir, KubeBinDir: kubeBin, Timeout: 8 * time.Minute, Log: logr.Discard()})
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, sandbox %d: %v", round, i, err)
			}
		}
		up := time.Since(start)

		owner := map[int]string{}
		var states []*state
		for _, dir := range dirs {
			checkServes(t.Context(), t, dir)
			st, err := loadState(layout{dir: dir}.stateFile())
			if err != nil {
				t.Fatal(err)
			}
			states = append(states, st)
			for _, port := range st.componentPorts() {
				if other, ok := owner[port]; ok {
					t.Errorf("round %d: port %d is used by both %s and %s", round, port, other, dir)
				}
				owner[port] = dir
				if port < base || port >= base+size {
					t.Errorf("round %d: port %d of %s is outside the window %d-%d", round, port, dir, base, base+size-1)
				}
				if l, err := defaultPorts().read(port); err != nil || l.Sandbox != dir {
					t.Errorf("round %d: lease of port %d: %+v, %v; want one naming %s", round, port, l, err, dir)
				}
			}
		}

		start = time.Now()
		for i, dir := range dirs {
			wg.Go(func() { errs[i] = Down(dir) })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, down %d: %v", round, i, err)
			}
		}
		for i, st := range states {
			for _, p := range st.Processes {
				p.exited = nil // check through /proc, as a separate `down` command would
				if p.alive() {
					t.Errorf("round %d: %s (pid %d) still runs after down", round, p.Name, p.PID)
				}
			}
			if left, err := defaultPorts().leasedTo(dirs[i]); err != nil || len(left) != 0 {
				t.Errorf("round %d: ports still leased to %s after down: %v, %v", round, dirs[i], left, err)
			}
		}
		t.Logf("round %d: %d sandboxes up at once in %s, all down in %s", round, sandboxes, up.Round(100*time.Millisecond),
			time.Since(start).Round(100*time.Millisecond))
	}
}

// checkServes checks that the management cluster of the sandbox in dir is ready and serves.
func checkServes(ctx context.Context, t *testing.T, dir string) {
	t.Helper()
	fleet, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(fleet.Management.Config)
	if err != nil {
		t.Fatal(err)
	}
	body, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
	if err != nil || string(body) != "ok" {
		t.Errorf("%s: /readyz answered %q, %v", dir, body, err)
	}
	ns, err := cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
	if err != nil {
		t.Errorf("%s: %v", dir, err)
		return
	}
	if got := fmt.Sprint(ns.Status.Phase); got != "Active" {
		t.Errorf("%s: namespace default is %s, want Active", dir, got)
	}
}
