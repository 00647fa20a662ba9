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
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/stagecoach-dev/stagecoach/internal/testing/fleetsim"
	"github.com/stagecoach-dev/stagecoach/internal/testing/scalerollout"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// deadRollout and stuckRollout roll out to a quarter of each stage at a time.
var (
	deadRollout  = scalerollout.Rollout{Name: "scale", StageLabel: "scale-stage", Share: "25%"}
	stuckRollout = scalerollout.Rollout{Name: "stuck", StageLabel: "stuck-stage", Share: "25%"}
)

// TestDeadClustersCostOnlyTheirSlots stops a quarter of the last stage's clusters answering at
// all, more clusters than the controller has deploy workers, then rolls out with a
// ClusterPromotion and a Kubefleet staged update run: every live cluster gets both, and the
// dead ones are named with the reason.
func TestDeadClustersCostOnlyTheirSlots(t *testing.T) {
	rollout := fresh(deadRollout)
	_, clusters := simulatedFleet(t, 16, rollout, nil)
	live, dead := clusters[:12], clusters[12:]
	for _, c := range dead {
		c.SetDown(fleetsim.Hang)
	}
	rollOut(t, rollout, live, dead)
	for _, c := range dead {
		if rollout.Promoted(c, "v1") {
			t.Errorf("dead cluster %s got the promotion", c.Name())
		}
	}
}

// TestStuckClustersCostOnlyTheirSlots makes the first two clusters of the last stage hang every
// write while they answer reads, as an API server whose etcd lost quorum does: probes find them
// ready, so deploys to them start, as many as the controller has deploy workers, and never
// finish. They hold two of the stage's three slots for good, but a hung request holds a deploy
// worker only until it times out, so the rest of the stage goes through the third slot.
func TestStuckClustersCostOnlyTheirSlots(t *testing.T) {
	rollout := fresh(stuckRollout)
	_, clusters := simulatedFleet(t, 16, rollout, nil)
	stuck := clusters[4:6]
	live := slices.Concat(clusters[:4], clusters[6:])
	for _, c := range stuck {
		c.SetDown(fleetsim.HangWrites)
	}
	rollOut(t, rollout, live, nil)
	for _, c := range stuck {
		if rollout.Promoted(c, "v1") {
			t.Errorf("cluster %s got the promotion while hanging every write", c.Name())
		}
	}
}

// rollOut runs the rollout's promotion and update run and waits until both reach every live
// cluster and the first dead one, if any, is reported down with the reason.
func rollOut(t *testing.T, rollout scalerollout.Rollout, live, dead []*fleetsim.Cluster) {
	t.Helper()
	apply(t, rollout.Promotion(), rollout.Content("v1"), rollout.Placement(), rollout.Run())
	testenv.Eventually(t, 4*time.Minute, func(context.Context) error {
		for _, c := range live {
			if !rollout.Promoted(c, "v1") {
				return fmt.Errorf("the promotion has not reached %s", c.Name())
			}
			if !rollout.Placed(c) {
				return fmt.Errorf("the update run has not reached %s", c.Name())
			}
		}
		return nil
	})
	if len(dead) == 0 {
		return
	}
	// A dead cluster says why it gets nothing, once probed.
	c := testenv.Client(t)
	testenv.Eventually(t, time.Minute, func(ctx context.Context) error {
		u := get(ctx, c, "lib.projectsveltos.io/v1beta1", "SveltosCluster", "scale", dead[0].Name())
		msg, _, _ := unstructured.NestedString(u.Object, "status", "failureMessage")
		if ready, _, _ := unstructured.NestedBool(u.Object, "status", "ready"); ready || !strings.Contains(msg, dead[0].Host()) {
			return fmt.Errorf("SveltosCluster %s: ready %v, failureMessage %q", dead[0].Name(), ready, msg)
		}
		return nil
	})
}
