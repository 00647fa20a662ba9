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
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/stagecoach-dev/stagecoach/internal/fleetsim"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/testenv"
)

var (
	deployments = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	configMaps  = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
)

// simulatedFleet starts n simulated clusters and registers them, the first in stage canary, the
// next three in early and the rest in main, and waits until the controller reports them ready.
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
		stage := "main"
		switch {
		case i == 0:
			stage = "canary"
		case i < 4:
			stage = "early"
		}
		err := sandbox.Register(t.Context(), cs, dyn, sandbox.Registration{
			Namespace: "scale", Name: c.Name(), Labels: map[string]string{"scale-stage": stage}, Kubeconfig: c.Kubeconfig(),
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
	apply(t, promotion)
	apply(t, updateRun)
	testenv.Eventually(t, 4*time.Minute, func(context.Context) error {
		for _, c := range live {
			d, ok := c.Get(deployments, "scale-app", "app")
			if !ok {
				return fmt.Errorf("the promotion has not reached %s", c.Name())
			}
			if containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers"); len(containers) != 1 {
				return fmt.Errorf("%s: unexpected Deployment %v", c.Name(), d.Object)
			}
			if _, ok := c.Get(configMaps, "scale-kf", "settings"); !ok {
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
		if _, ok := c.Get(deployments, "scale-app", "app"); ok {
			t.Errorf("dead cluster %s got the promotion", c.Name())
		}
	}
}

const promotion = `
apiVersion: v1
kind: ConfigMap
metadata: {name: app, namespace: scale}
data:
  app.yaml: |
    apiVersion: v1
    kind: Namespace
    metadata: {name: scale-app}
    ---
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: app, namespace: scale-app}
    spec:
      selector: {matchLabels: {app: app}}
      template:
        metadata: {labels: {app: app}}
        spec:
          containers:
          - {name: app, image: "registry.example/app:v1"}
---
apiVersion: config.projectsveltos.io/v1beta1
kind: ClusterPromotion
metadata: {name: scale}
spec:
  profileSpec:
    syncMode: Continuous
    maxUpdate: "25%"
    policyRefs:
    - {kind: ConfigMap, namespace: scale, name: app}
  stages:
  - name: canary
    clusterSelector: {matchLabels: {scale-stage: canary}}
    trigger: {auto: {delay: 0s}}
  - name: early
    clusterSelector: {matchLabels: {scale-stage: early}}
    trigger: {auto: {delay: 0s}}
  - name: main
    clusterSelector: {matchLabels: {scale-stage: main}}
    trigger: {auto: {delay: 0s}}
`

const updateRun = `
apiVersion: v1
kind: Namespace
metadata: {name: scale-kf}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: scale-kf}
data: {version: v1}
---
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterStagedUpdateStrategy
metadata: {name: scale}
spec:
  stages:
  - name: canary
    labelSelector: {matchLabels: {scale-stage: canary}}
  - name: early
    labelSelector: {matchLabels: {scale-stage: early}}
    maxConcurrency: "25%"
  - name: main
    labelSelector: {matchLabels: {scale-stage: main}}
    maxConcurrency: "25%"
---
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterResourcePlacement
metadata: {name: scale}
spec:
  resourceSelectors:
  - {group: "", version: v1, kind: Namespace, name: scale-kf}
  policy: {placementType: PickAll}
  strategy: {type: External}
---
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterStagedUpdateRun
metadata: {name: scale}
spec:
  placementName: scale
  resourceSnapshotIndex: "0"
  stagedRolloutStrategyName: scale
`

// apply server-side applies each object of a YAML stream to the management cluster.
func apply(t *testing.T, manifests string) {
	t.Helper()
	c := testenv.Client(t)
	for doc := range strings.SplitSeq(manifests, "\n---\n") {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
			t.Fatal(err)
		}
		if len(obj.Object) == 0 {
			continue
		}
		err := c.Apply(t.Context(), client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("scale-test"), client.ForceOwnership)
		if err != nil {
			t.Fatalf("applying %s %s: %v", obj.GetKind(), obj.GetName(), err)
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
