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

package scale

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/shard"
	"github.com/stagecoach-dev/stagecoach/internal/testing/fleetsim"
	"github.com/stagecoach-dev/stagecoach/internal/testing/scalerollout"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// The Lease the replicas of a shard elect their leader with: stagecoach controller's.
const leaseName, leaseNamespace = "stagecoach.dev", "default"

// shardsRollout rolls out to half of each stage at a time.
var shardsRollout = scalerollout.Rollout{Name: "shards", StageLabel: "shards-stage", Share: "50%"}

// TestShardsServeTheirClusters runs the default shard's controller (the test's own) and two
// replicas of shard a (separate processes, one leader and one standby) against one management
// cluster, over six clusters: every other one in shard a, so that every stage spans both shards.
// A promotion and an update run reach every cluster, each cluster hearing only from the replica
// of its shard; then shard a's leader is killed, the next version is published, and the standby
// takes it to shard a's clusters while the promotion keeps its stage order.
func TestShardsServeTheirClusters(t *testing.T) {
	rollout := fresh(shardsRollout)
	const key = shard.Key("a")
	leader := startReplica(t, key, "shard-a-leader")
	waitForLeader(t, key)
	startReplica(t, key, "shard-a-standby")

	inShard := func(i int) bool { return i%2 == 1 }
	_, clusters := simulatedFleet(t, 6, rollout, func(i int) map[string]string {
		if inShard(i) {
			return map[string]string{libv1beta1.ShardAnnotation: string(key)}
		}
		return nil
	})
	// Only the replicas of shard a say "shard/a" in their user agent.
	servedByItsShard := func(t *testing.T) {
		t.Helper()
		for i, c := range clusters {
			fromA := c.RequestsFrom("shard/" + string(key))
			fromDefault := c.Requests() - fromA
			if inShard(i) && (fromDefault > 0 || fromA == 0) {
				t.Errorf("cluster %s of shard a: %d requests from shard a's replicas, %d from the default shard's", c.Name(), fromA, fromDefault)
			}
			if !inShard(i) && (fromA > 0 || fromDefault == 0) {
				t.Errorf("cluster %s of the default shard: %d requests from the default shard's replica, %d from shard a's", c.Name(), fromDefault, fromA)
			}
		}
	}

	apply(t, rollout.Promotion(), rollout.Content("v1"), rollout.Placement(), rollout.Run())
	testenv.Eventually(t, 3*time.Minute, func(context.Context) error {
		for _, c := range clusters {
			if !rollout.Promoted(c, "v1") {
				return fmt.Errorf("the promotion has not reached %s", c.Name())
			}
			if !rollout.Placed(c) {
				return fmt.Errorf("the update run has not reached %s", c.Name())
			}
		}
		return nil
	})
	servedByItsShard(t)

	leader.kill(t)
	apply(t, rollout.Content("v2"))
	stages := byStage(clusters)
	testenv.Eventually(t, 3*time.Minute, func(context.Context) error {
		// Later stages first: a cluster never goes back, so a later stage seen with v2 before
		// an earlier one is read means the earlier one was not done when the later began.
		started := -1
		for s := len(stages) - 1; s >= 0; s-- {
			for _, c := range stages[s] {
				promoted := rollout.Promoted(c, "v2")
				if !promoted && started > s {
					t.Fatalf("stage %s started before %s of stage %s was done", scalerollout.Stages[started], c.Name(), scalerollout.Stages[s])
				}
				if promoted && started < 0 {
					started = s
				}
			}
		}
		for _, c := range clusters {
			if !rollout.Promoted(c, "v2") {
				return fmt.Errorf("v2 has not reached %s", c.Name())
			}
		}
		return nil
	})
	servedByItsShard(t)
}

// byStage groups the clusters of simulatedFleet by stage.
func byStage(clusters []*fleetsim.Cluster) [][]*fleetsim.Cluster {
	return [][]*fleetsim.Cluster{clusters[:1], clusters[1:4], clusters[4:]}
}

// replica is a controller process serving one shard.
type replica struct{ name string }

// startReplica starts a replica of shard key as a process attached to the sandbox; it is
// killed when the test ends.
func startReplica(t *testing.T, key shard.Key, name string) *replica {
	t.Helper()
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.Abs(exe)
	}
	if err != nil {
		t.Fatal(err)
	}
	args := []string{exe, shardMode, testenv.Fleet.Management.Kubeconfig, string(key)}
	if err := sandbox.Attach(t.Context(), testenv.Fleet.Dir, name, args); err != nil {
		t.Fatal(err)
	}
	r := &replica{name: name}
	t.Cleanup(func() { _ = sandbox.Kill(testenv.Fleet.Dir, name) })
	return r
}

// kill stops the replica at once, as a crash would: its Lease is left to expire.
func (r *replica) kill(t *testing.T) {
	t.Helper()
	if err := sandbox.Kill(testenv.Fleet.Dir, r.name); err != nil {
		t.Fatal(err)
	}
}

// waitForLeader waits until a replica of shard key holds its Lease.
func waitForLeader(t *testing.T, key shard.Key) {
	t.Helper()
	c := testenv.Client(t)
	testenv.Eventually(t, time.Minute, func(ctx context.Context) error {
		var lease coordinationv1.Lease
		if err := c.Get(ctx, client.ObjectKey{Namespace: leaseNamespace, Name: key.LeaderElectionID(leaseName)}, &lease); err != nil {
			return err
		}
		if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
			return fmt.Errorf("nobody holds Lease %s", lease.Name)
		}
		return nil
	})
}
