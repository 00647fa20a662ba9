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
	"cmp"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/testing/chaos"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// The outages a trial can have besides the controller's kills, once the staging wave has started.
const (
	outageMgmt    = "mgmt"    // the management cluster's API server, 0.5 to 2 s
	outageStaging = "staging" // a staging cluster's API server that is updating, 0.5 to 2 s
	outageDown    = "down"    // such a cluster cut off from the controller (its gate), until both dialects mark it Down, and 0.5 to 2 s more
	outageEtcd    = "etcd"    // the etcd of every cluster, 0.5 to 2 s
)

// pickOutage is trial v's outage: in each six trials, three Down clusters, one management outage,
// one short staging outage and one etcd restart. A version that fails at dev never reaches the
// wave and has no outage, so half the trials are Down ones for `make chaos TRIALS=200` to mark
// well over fifty clusters Down. The first two trials, make test's, restart etcd and cut a
// cluster off until it is Down.
func (e *env) pickOutage(v int) string {
	return []string{outageMgmt, outageEtcd, outageDown, outageStaging, outageDown, outageDown}[v%6]
}

// faults injects a trial's faults until ctx ends: after some of its random gaps a replica of the
// controller is killed (see kill) and started again at once, as Kubernetes restarts a pod, and a
// replica that exits on its own is restarted too; once the staging wave has started, the trial's
// outage happens.
type faults struct {
	e   *env
	ctl *controllerProcess
	rng *rand.Rand
	// orng is the outage's own random source: it runs in a goroutine of its own.
	orng   *rand.Rand
	outage string
	// kills is false when CHAOS_FAULTS leaves the controller's kills out.
	kills bool
	// mu serialises what writes the sandbox's state file: starting replicas, restarting the fleet.
	mu sync.Mutex

	counts map[string]int
	// target is the cluster the outage stopped, if a managed one.
	target string
	// downs are the outages during which a dialect marked target Down, for the verdict.
	downs []chaos.Outage
	// stopped is how long the outage's process was stopped; back how long after it stopped the
	// fleet was whole again, for the trial's log line.
	stopped, back time.Duration
	// created is when the trial began, began when its outage did.
	created, began time.Time
}

func (e *env) newFaults(v int, outage string) *faults {
	if !e.faults["outages"] {
		outage = ""
	}
	return &faults{e: e, ctl: e.ctl, rng: e.rng(v, "faults"), orng: e.rng(v, "outage"), outage: outage, kills: e.faults["kills"],
		counts: map[string]int{}, created: time.Now()}
}

// faultKinds reads CHAOS_FAULTS, the kinds of fault the trials inject besides their bad versions:
// "kills" (the controller's replicas), "outages" (an API server or etcd, once the wave started),
// both by default, or "none", to see what each costs a trial.
func faultKinds(t *testing.T) map[string]bool {
	s := cmp.Or(os.Getenv("CHAOS_FAULTS"), "kills,outages")
	kinds := map[string]bool{}
	for k := range strings.SplitSeq(s, ",") {
		switch k = strings.TrimSpace(k); k {
		case "kills", "outages":
			kinds[k] = true
		case "none":
		default:
			t.Fatalf("CHAOS_FAULTS=%q: want kills, outages, both (kills,outages) or none", s)
		}
	}
	return kinds
}

func (f *faults) count(key string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.counts[key] += n
}

// minGap and maxGap bound the time between two kills: a trial of about 30 s sees several. Each
// kill of the leader stalls both rollouts until its Lease expires, and each kill of the standby
// costs a restart's CPU on a machine the two fleets already keep busy: closer kills would make
// a trial longer without trying anything more.
const minGap, maxGap = time.Second, 6 * time.Second

func (f *faults) run(ctx context.Context) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	next := time.Now().Add(f.between(minGap, maxGap))
	outageDone := make(chan error, 1)
	outageStarted, awaitLeader := false, false
	for {
		select {
		case <-ctx.Done():
			if outageStarted {
				return <-outageDone
			}
			return nil
		case <-tick.C:
		}
		if !outageStarted && f.outage != "" && f.e.waveStarted() {
			outageStarted = true
			target := f.pickTarget()
			go func() { outageDone <- f.doOutage(ctx, target) }()
		}
		if err := f.supervise(ctx); err != nil {
			return err
		}
		if time.Now().Before(next) || !f.kills {
			continue
		}
		if awaitLeader {
			// The gap before the next kill counts from the takeover: killing the leader
			// again before one is elected would only stall the rollout.
			if l, _ := f.ctl.leader(ctx); l != nil {
				awaitLeader = false
				next = time.Now().Add(f.between(minGap, maxGap))
			} else {
				next = time.Now().Add(500 * time.Millisecond)
			}
			continue
		}
		var err error
		if awaitLeader, err = f.kill(ctx); err != nil {
			return err
		}
		next = time.Now().Add(f.between(minGap, maxGap))
	}
}

// supervise starts the replicas that are not running.
func (f *faults) supervise(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ctl.start(context.WithoutCancel(ctx))
}

// kill SIGKILLs, at each of its moments, the leader (two times in twenty), both replicas (one in
// twenty), the standby (three in twenty) or nobody. With no leader elected at that moment, a
// random replica goes. It reports whether the leader went: a standby then takes over once the
// leader's Lease expires. A standby does nothing but fill its caches, so killing it tries
// little, and each restart costs the machine a full read of the management cluster: it is the
// rarer kill.
func (f *faults) kill(ctx context.Context) (bool, error) {
	leader, _ := f.ctl.leader(ctx)
	var victims []*replica
	switch n := f.rng.IntN(20); {
	case n < 1:
		victims = f.ctl.replicas
		f.count("both_kills", 1)
	case leader != nil && n < 3:
		victims = []*replica{leader}
		f.count("leader_kills", 1)
	case n < 6:
		others := slices.DeleteFunc(slices.Clone(f.ctl.replicas), func(r *replica) bool { return r == leader })
		victims = []*replica{others[f.rng.IntN(len(others))]}
	default:
		return false, nil
	}
	if err := f.ctl.kill(victims...); err != nil {
		return false, err
	}
	f.count("kills", len(victims))
	return leader == nil || slices.Contains(victims, leader), f.supervise(ctx)
}

// pickTarget chooses the staging cluster a managed outage stops: one whose update has begun.
func (f *faults) pickTarget() string {
	switch f.outage {
	case outageStaging, outageDown:
	default:
		return ""
	}
	_, writes, _ := f.e.rec.Since()
	var started []string
	for _, w := range writes {
		if w.Namespace == sveltosNS && strings.HasPrefix(w.Cluster, "staging") && w.Resource == "secrets" && !slices.Contains(started, w.Cluster) {
			started = append(started, w.Cluster)
		}
	}
	return started[f.rng.IntN(len(started))]
}

// doOutage stops the outage's process and starts it again; a Down outage cuts the cluster's
// gate and opens it again.
func (f *faults) doOutage(ctx context.Context, target string) error {
	f.target = target
	if f.outage == outageDown {
		return f.cutOff(ctx, target)
	}
	name := "mgmt-kube-apiserver"
	switch f.outage {
	case outageEtcd:
		name = "etcd"
	case outageStaging:
		name = target + "-kube-apiserver"
	}
	if err := sandbox.Kill(f.ctl.dir, name); err != nil {
		return err
	}
	killed := f.outageBegins()
	f.lastOutage(ctx)
	// Started again whatever happens to ctx: the next trial needs the whole fleet.
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopped = time.Since(killed)
	err := testenv.Restart(context.Background())
	if err == nil && f.outage == outageEtcd {
		err = restartNodes()
	}
	if err == nil && (f.outage == outageEtcd || f.outage == outageMgmt) {
		// The management cluster started again registers every cluster as the sandbox has it.
		err = registerGated(context.Background(), f.e.c, f.e.gates)
	}
	f.back = time.Since(killed)
	return err
}

// cutOff cuts target off from the controller until both dialects say it is Down, and 0.5 to 2 s
// more, then lets it answer again.
func (f *faults) cutOff(ctx context.Context, target string) error {
	g := f.e.gates[target]
	g.cut()
	cut := f.outageBegins()
	f.awaitDown(ctx, target)
	f.lastOutage(ctx)
	// Opened again whatever happens to ctx: the next trial needs the whole fleet.
	f.mu.Lock()
	err := g.open(context.Background())
	f.stopped = time.Since(cut)
	f.back = f.stopped
	f.mu.Unlock()
	if err != nil {
		return err
	}
	back, err := currentRevision(f.e.c)
	for i := range f.downs {
		f.downs[i].To = back
	}
	return err
}

// lastOutage lets the outage last 0.5 to 2 s (more).
func (f *faults) lastOutage(ctx context.Context) {
	pause(ctx, 500*time.Millisecond+time.Duration(f.orng.Int64N(int64(1500*time.Millisecond))))
}

// outageBegins notes that the outage begins now, and counts it.
func (f *faults) outageBegins() time.Time {
	now := time.Now()
	f.mu.Lock()
	f.began = now
	f.mu.Unlock()
	f.count("outages", 1)
	f.count(f.outage+"_outages", 1)
	return now
}

// restartNodes restarts the simulated nodes (kwok) of every managed cluster after etcd came back:
// kwok's watches can miss a pod bound during the restart, which then stays Pending for minutes, a
// stall of the sandbox's clusters rather than of Stagecoach. (The sandbox frees each node's Lease
// for the new kwok, which would otherwise wait up to 40 s for it.)
func restartNodes() error {
	for _, c := range testenv.Fleet.Managed {
		if err := sandbox.Kill(testenv.Fleet.Dir, c.Name+"-kwok"); err != nil {
			return err
		}
	}
	return testenv.Restart(context.Background())
}

// downWait bounds the wait for a cluster to be marked Down: three failed probes a second apart,
// and room for a controller that was just killed.
const downWait = 30 * time.Second

// awaitDown waits until the SveltosCluster and the MemberCluster of target say Down (Joined
// False), and notes from which revision each did.
func (f *faults) awaitDown(ctx context.Context, target string) {
	deadline := time.Now().Add(downWait)
	found := map[string]int64{}
	for len(found) < 2 && time.Now().Before(deadline) && pause(ctx, 200*time.Millisecond) {
		sc := &libv1beta1.SveltosCluster{}
		if _, ok := found[rollouts[0].Name]; !ok && f.e.c.Get(ctx, client.ObjectKey{Namespace: target, Name: target}, sc) == nil &&
			sc.Status.ConnectionStatus == libv1beta1.ConnectionDown {
			found[rollouts[0].Name] = revision(sc)
		}
		mc := &clusterv1beta1.MemberCluster{}
		if _, ok := found[rollouts[1].Name]; !ok && f.e.c.Get(ctx, client.ObjectKey{Name: target}, mc) == nil &&
			meta.IsStatusConditionFalse(mc.Status.Conditions, string(clusterv1beta1.ConditionTypeMemberClusterJoined)) {
			found[rollouts[1].Name] = revision(mc)
		}
	}
	for r, from := range found {
		f.downs = append(f.downs, chaos.Outage{Rollout: r, Cluster: target, From: from})
	}
	if len(found) == 2 {
		f.count("down_clusters", 1)
	}
}

// currentRevision is etcd's revision now, as the management cluster's API server reports it.
func currentRevision(c client.Client) (int64, error) {
	var rev int64
	err := retry(context.Background(), func(ctx context.Context) error {
		l := &corev1.NamespaceList{}
		if err := c.List(ctx, l, client.Limit(1)); err != nil {
			return err
		}
		_, err := fmt.Sscan(l.ResourceVersion, &rev)
		return err
	})
	return rev, err
}

// describe says what the faults did, for the trial's log line.
func (f *faults) describe() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := fmt.Sprintf("%d kills (%d of the leader, %d of both replicas)", f.counts["kills"], f.counts["leader_kills"], f.counts["both_kills"])
	if f.counts["outages"] == 0 {
		return s + ", no outage"
	}
	times := fmt.Sprintf(" (at %s, stopped %s, whole again after %s)", f.began.Sub(f.created).Round(100*time.Millisecond),
		f.stopped.Round(100*time.Millisecond), f.back.Round(100*time.Millisecond))
	switch {
	case f.outage == outageEtcd:
		return s + ", etcd restarted" + times
	case f.outage == outageMgmt:
		return s + ", mgmt API server down mid-wave" + times
	case f.counts["down_clusters"] > 0:
		return s + ", " + f.target + " Down mid-wave" + times
	case f.outage == outageDown:
		return s + ", " + f.target + " cut off mid-wave, not marked Down in time" + times
	}
	return s + ", " + f.target + " API server down mid-wave" + times
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

// counters add up what the trials did, per kind, for the summary line hack/chaos.sh sums.
type counters map[string]int

func (c counters) add(more map[string]int) {
	for k, n := range more {
		c[k] += n
	}
}

// line is the summary: "chaos-summary" then key=value for every counter, by key.
func (c counters) line() string {
	keys := slices.Sorted(maps.Keys(c))
	var b strings.Builder
	b.WriteString("chaos-summary")
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%d", k, c[k])
	}
	return b.String()
}
