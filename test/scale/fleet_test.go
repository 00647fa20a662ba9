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
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/stagecoach-dev/stagecoach/internal/registration"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/testing/fleetsim"
	"github.com/stagecoach-dev/stagecoach/internal/testing/scalerollout"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// simulatedFleet starts n simulated clusters, named after the rollout, and registers them with
// the annotations annotate gives the i-th (if any): the first in the first stage, the next
// three in the second and the rest in the last. It waits until the controller reports them
// ready, and returns the simulator and its clusters.
func simulatedFleet(t *testing.T, n int, rollout scalerollout.Rollout, annotate func(i int) map[string]string) (*fleetsim.Fleet, []*fleetsim.Cluster) {
	t.Helper()
	sim, err := fleetsim.Start(t.Context(), fleetsim.Options{Clusters: n, NamePrefix: rollout.Name + "-", AvailableAfter: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Close() })
	mgmt := testenv.Client(t)
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
		reg := registration.Cluster{
			Namespace: "scale", Name: c.Name(), Labels: map[string]string{rollout.StageLabel: stage}, Kubeconfig: c.Kubeconfig(),
			Member: true, Manager: sandbox.FieldManager, Identity: sandbox.AdminUser,
		}
		if annotate != nil {
			reg.Annotations = annotate(i)
		}
		if err := registration.Register(t.Context(), mgmt, reg); err != nil {
			t.Fatal(err)
		}
	}
	testenv.Eventually(t, 2*time.Minute, func(ctx context.Context) error {
		for _, sc := range clusters {
			u := get(ctx, mgmt, "lib.projectsveltos.io/v1beta1", "SveltosCluster", "scale", sc.Name())
			if ready, _, _ := unstructured.NestedBool(u.Object, "status", "ready"); !ready {
				return fmt.Errorf("SveltosCluster %s is not ready", sc.Name())
			}
		}
		return nil
	})
	return sim, clusters
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

// runs counts, per rollout, the tests that rolled it out in this process.
var runs = map[string]int{}

// fresh is the rollout under names of its own for this run of the test: run again (go test
// -count), a test registers new clusters and rolls out to them, while the earlier run's clusters,
// which no longer answer, stay registered under the earlier names.
func fresh(r scalerollout.Rollout) scalerollout.Rollout {
	runs[r.Name]++
	if n := runs[r.Name]; n > 1 {
		r.Name = fmt.Sprintf("%s%d", r.Name, n)
		r.StageLabel = r.Name + "-stage"
	}
	return r
}
