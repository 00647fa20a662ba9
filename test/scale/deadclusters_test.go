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
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/stagecoach-dev/stagecoach/internal/fleetsim"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/scalerollout"
	"github.com/stagecoach-dev/stagecoach/internal/testenv"
)

// rollout is what the tests roll out: a quarter of each stage at a time.
var rollout = scalerollout.Rollout{Name: "scale", StageLabel: "scale-stage", Share: "25%"}

// simulatedFleet starts n simulated clusters and registers them, the first in the first stage,
// the next three in the second and the rest in the last, and waits until the controller reports
// them ready.
func simulatedFleet(t *testing.T, n int) []*fleetsim.Cluster {
	t.Helper()
	sim, err := fleetsim.Start(t.Context(), fleetsim.Options{Clusters: n, NamePrefix: "scale-", AvailableAfter: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	cfg := testenv.Fleet.Management.Config
	cs := kubernetes.NewForConfigOrDie(cfg)
	dyn := dynamic.NewForConfigOrDie(cfg)
	apply(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: scale}")
	clusters := sim.Clusters()
	for i, c := range clusters {
		stage := scalerollout.Stages[2]
		switch {
		case i == 0:
			stage = scalerollout.Stages[0]
		case i < 4:
			stage = scalerollout.Stages[1]
		}
		err := sandbox.Register(t.Context(), cs, dyn, sandbox.Registration{
			Namespace: "scale", Name: c.Name(), Labels: map[string]string{rollout.StageLabel: stage}, Kubeconfig: c.Kubeconfig(),
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	c := testenv.Client(t)
	testenv.Eventually(t, 2*time.Minute, func(ctx context.Context) error {
		for _, sc := range clusters {
			u := get(ctx, c, "lib.projectsveltos.io/v1beta1", "SveltosCluster", "scale", sc.Name())
			if ready, _, _ := unstructured.NestedBool(u.Object, "status", "ready"); !ready {
				return fmt.Errorf("SveltosCluster %s is not ready", sc.Name())
			}
		}
		return nil
	})
	return clusters
}

// TestDeadClustersCostOnlyTheirSlots stops a quarter of the last stage's clusters answering at
// all, more clusters than the controller has deploy workers, then rolls out with a
// ClusterPromotion and a Kubefleet staged update run: every live cluster gets both, and the
// dead ones are named with the reason.
func TestDeadClustersCostOnlyTheirSlots(t *testing.T) {
	clusters := simulatedFleet(t, 16)
	live, dead := clusters[:12], clusters[12:]
	for _, c := range dead {
		c.SetDown(fleetsim.Hang)
	}
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
	for _, c := range dead {
		if rollout.Promoted(c, "v1") {
			t.Errorf("dead cluster %s got the promotion", c.Name())
		}
	}
}

// apply server-side applies each YAML stream to the management cluster.
func apply(t *testing.T, manifests ...string) {
	t.Helper()
	c := testenv.Client(t)
	for _, m := range manifests {
		if err := scalerollout.Apply(t.Context(), c, "scale-test", m); err != nil {
			t.Fatal(err)
		}
	}
}

func get(ctx context.Context, c client.Client, apiVersion, kind, namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	_ = c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, u)
	return u
}
