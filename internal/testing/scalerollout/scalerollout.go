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

// Package scalerollout holds the rollouts that `make bench-scale` and the scale tests run over a
// simulated fleet (internal/testing/fleetsim): a ClusterPromotion and a Kubefleet staged update run
// through three stages of clusters told apart by a label, and how to tell, from a simulated
// cluster's own records, that each reached it.
package scalerollout

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/stagecoach-dev/stagecoach/internal/testing/fleetsim"
)

// Stages are the values of the stage label, in rollout order.
var Stages = []string{"canary", "early", "main"}

// Rollout names the objects of one rollout. The promotion's content, a Namespace and a
// Deployment named app, lives in ConfigMap Name/app and deploys to namespace Name-app; the update
// run places namespace Name-kf and its ConfigMap settings.
type Rollout struct {
	// Name names the promotion, the placement, the strategy and the run, and the namespace of
	// the promotion's content.
	Name string
	// StageLabel is the cluster label whose value (one of Stages) puts a cluster in a stage.
	StageLabel string
	// Share is how many of a stage's clusters are updated at a time: maxUpdate and
	// maxConcurrency, a percentage such as "10%".
	Share string
}

// Promotion is the ClusterPromotion with zero delays between stages, and its namespace.
func (r Rollout) Promotion() string {
	out := fmt.Sprintf(`apiVersion: v1
kind: Namespace
metadata: {name: %[1]s}
---
apiVersion: config.projectsveltos.io/v1beta1
kind: ClusterPromotion
metadata: {name: %[1]s}
spec:
  profileSpec:
    syncMode: Continuous
    maxUpdate: %[2]q
    policyRefs:
    - {kind: ConfigMap, namespace: %[1]s, name: app}
  stages:`, r.Name, r.Share)
	for _, s := range Stages {
		out += fmt.Sprintf(`
  - name: %[1]s
    clusterSelector: {matchLabels: {%[2]s: %[1]s}}
    trigger: {auto: {delay: 0s}}`, s, r.StageLabel)
	}
	return out
}

// Content is the promotion's content at version: the ConfigMap its policyRefs name.
func (r Rollout) Content(version string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata: {name: app, namespace: %[1]s}
data:
  app.yaml: |
    apiVersion: v1
    kind: Namespace
    metadata: {name: %[1]s-app}
    ---
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: app, namespace: %[1]s-app}
    spec:
      replicas: 2
      selector: {matchLabels: {app: app}}
      template:
        metadata: {labels: {app: app}}
        spec:
          containers:
          - {name: app, image: %[2]q}
`, r.Name, image(version))
}

// Placement is what the update run places (namespace Name-kf and its ConfigMap), the
// ClusterStagedUpdateStrategy and the ClusterResourcePlacement, which picks every cluster with
// the stage label (and no other: a run fails on a picked cluster that is in no stage).
func (r Rollout) Placement() string {
	out := fmt.Sprintf(`apiVersion: v1
kind: Namespace
metadata: {name: %[1]s-kf}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: %[1]s-kf}
data: {version: v1}
---
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterResourcePlacement
metadata: {name: %[1]s}
spec:
  resourceSelectors:
  - {group: "", version: v1, kind: Namespace, name: %[1]s-kf}
  policy:
    placementType: PickAll
    affinity:
      clusterAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          clusterSelectorTerms:
          - labelSelector: {matchExpressions: [{key: %[2]s, operator: Exists}]}
  strategy: {type: External}
---
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterStagedUpdateStrategy
metadata: {name: %[1]s}
spec:
  stages:`, r.Name, r.StageLabel)
	for _, s := range Stages {
		out += fmt.Sprintf(`
  - name: %[1]s
    labelSelector: {matchLabels: {%[2]s: %[1]s}}
    maxConcurrency: %[3]q`, s, r.StageLabel, r.Share)
	}
	return out
}

// Run is the ClusterStagedUpdateRun of the placement's first snapshot.
func (r Rollout) Run() string {
	return fmt.Sprintf(`apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterStagedUpdateRun
metadata: {name: %[1]s}
spec:
  placementName: %[1]s
  resourceSnapshotIndex: "0"
  stagedRolloutStrategyName: %[1]s
`, r.Name)
}

var (
	deployments = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	configMaps  = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
)

func image(version string) string { return "registry.example/app:" + version }

// Promoted reports whether the promotion's content at version runs on c.
func (r Rollout) Promoted(c *fleetsim.Cluster, version string) bool {
	d, ok := c.Get(deployments, r.Name+"-app", "app")
	if !ok {
		return false
	}
	containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	if len(containers) != 1 {
		return false
	}
	container, _ := containers[0].(map[string]any)
	return container["image"] == image(version)
}

// Placed reports whether the update run's content is on c.
func (r Rollout) Placed(c *fleetsim.Cluster) bool {
	_, ok := c.Get(configMaps, r.Name+"-kf", "settings")
	return ok
}

// Apply server-side applies every object of a YAML stream, as fieldOwner.
func Apply(ctx context.Context, c client.Client, fieldOwner, manifests string) error {
	for doc := range strings.SplitSeq(manifests, "\n---\n") {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
			return err
		}
		if len(obj.Object) == 0 {
			continue
		}
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner(fieldOwner), client.ForceOwnership); err != nil {
			return fmt.Errorf("applying %s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	return nil
}
