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

// Package scale checks what a large fleet needs of Stagecoach on a fleet small enough for every
// test run: managed clusters simulated by internal/testing/fleetsim, the management cluster a real
// kube-apiserver. `make bench-scale` runs the same rollouts over thousands of clusters.
package scale

import (
	"fmt"
	"os"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/stagecoach-dev/stagecoach/internal/controller"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/shard"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// shardMode is the first argument with which the test binary runs as a controller replica of
// one shard, a process of its own that a test can kill: shardMode KUBECONFIG KEY.
const shardMode = "stagecoach-shard"

// TestMain starts a management cluster and the controller of the default shard; each test brings
// its own simulated clusters. Run with shardMode, the binary is a replica of another shard.
func TestMain(m *testing.M) {
	if len(os.Args) == 4 && os.Args[1] == shardMode {
		if err := runShard(os.Args[2], shard.Key(os.Args[3])); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	testenv.MainWithController(m, func(mgr ctrl.Manager) error {
		return controller.Setup(mgr, options(""))
	})
}

// options are the controller's: a request to a cluster that stopped answering gives up after
// 5 s (fleet.RequestTimeout), so that the tests see within seconds what a fleet sees within the
// default 30.
func options(key shard.Key) controller.Options {
	fleet.RequestTimeout = 5 * time.Second
	return controller.Options{
		Shard:         key,
		ProbeInterval: 2 * time.Second, HealthInterval: time.Second, DriftInterval: 5 * time.Second,
		// Fewer workers than dead clusters: should a dead cluster hold a worker, the others starve.
		DeployConcurrency: 2,
	}
}

// Leader election as quick as the Lease API allows, so that a standby takes over within seconds.
var leaseDuration, renewDeadline, retryPeriod = 4 * time.Second, 3 * time.Second, 500 * time.Millisecond

// runShard runs a replica of shard key, as `stagecoach controller --shard-key KEY --leader-elect`
// does, against the management cluster.
func runShard(kubeconfig string, key shard.Key) error {
	return testenv.RunControllerProcess(kubeconfig, func(mgr ctrl.Manager) error {
		return controller.Setup(mgr, options(key))
	}, func(o *ctrl.Options) {
		o.LeaderElection = true
		o.LeaderElectionID = key.LeaderElectionID(leaseName)
		o.LeaderElectionNamespace = leaseNamespace
		o.LeaseDuration, o.RenewDeadline, o.RetryPeriod = &leaseDuration, &renewDeadline, &retryPeriod
		o.LeaderElectionReleaseOnCancel = true
	})
}
