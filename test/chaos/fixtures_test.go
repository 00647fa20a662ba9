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
	"context"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/stagecoach-dev/stagecoach/internal/testing/chaos"
)

// Where each dialect deploys on the managed clusters, and where its sources live on the
// management cluster.
const (
	sveltosNS = "chaos-sveltos" // the Helm release's namespace
	sourcesNS = "chaos"         // the promotion's valuesFrom ConfigMap
	fleetNS   = "chaos-fleet"   // placed as a whole by the ClusterResourcePlacement
	soak      = 2 * time.Second
	imageRepo = "registry.example/webapp:"
	// A trial takes one to two minutes on an idle 2-core machine; the bound only catches one
	// that no longer progresses, so it leaves room for a machine busy with other work.
	runTimeout = 10 * time.Minute
)

func image(version int) string   { return fmt.Sprintf("%st%d", imageRepo, version) }
func message(version int) string { return fmt.Sprintf("c%d", version) }

// rollouts are the two rollouts of every trial and what each promises, in the verdict's terms.
var rollouts = []*chaos.Rollout{
	{
		Name: "sveltos", Namespace: sveltosNS, Deployment: "chaos", ConfigMap: "chaos-info", Key: "message", HelmRelease: "chaos",
		Stages: []chaos.Stage{
			{Name: "dev", Clusters: []string{"dev"}, MaxInFlight: 1, Soak: soak, Profile: "chaos-dev"},
			{Name: "staging", MaxInFlight: 2, Approval: true, Profile: "chaos-staging"}, // Clusters: the wave, set by TestMain
			{Name: "prod", Clusters: []string{"prod"}, MaxInFlight: 1, Profile: "chaos-prod"},
		},
	},
	{
		Name: "kubefleet", Namespace: fleetNS, Deployment: "chaos", ConfigMap: "settings", Key: "message", KeepsDone: true,
		Stages: []chaos.Stage{
			{Name: "dev", Clusters: []string{"dev"}, Soak: soak},
			{Name: "staging", MaxInFlight: 2, Approval: true},
			{Name: "prod", Clusters: []string{"prod"}},
		},
	},
}

// promotion is the Sveltos dialect's rollout: the test chart, its image in the spec and its
// message in a ConfigMap, three stages, two releases at a time, a soak after dev and an approval
// after staging. A Deployment counts as updated once every replica runs its spec, and healthy
// unless the version names its cluster among those it fails on (bad): the chart writes both
// onto the Deployment, the cluster's name templated per cluster. A bad version's stage gets its
// failure budget and deadline, and the promotion its onFailure.
func promotion(repoURL string, version int, bad *failPlan) string {
	return fmt.Sprintf(`
apiVersion: config.projectsveltos.io/v1beta1
kind: ClusterPromotion
metadata:
  name: chaos
spec:
  %[6]s
  profileSpec:
    maxUpdate: 2
    helmCharts:
    - repositoryURL: %[1]s
      repositoryName: local
      chartName: local/webapp
      chartVersion: 1.0.0
      releaseName: chaos
      releaseNamespace: %[2]s
      helmChartAction: Install
      values: |
        replicas: 1
        image: %[3]s
        annotations:
          %[7]s: "{{ .Cluster.metadata.name }}"
          %[8]s: " %[9]s "
      valuesFrom:
      - {kind: ConfigMap, namespace: %[4]s, name: chaos-values}
    validateHealths:
    - name: rolled-out
      featureID: Helm
      group: apps
      version: v1
      kind: Deployment
      namespace: %[2]s
      evaluateCEL:
      - name: every-replica-updated-and-available
        rule: >-
          has(self.status.observedGeneration) && self.status.observedGeneration >= self.metadata.generation &&
          has(self.status.updatedReplicas) && self.status.updatedReplicas == self.spec.replicas &&
          has(self.status.replicas) && self.status.replicas == self.spec.replicas &&
          has(self.status.availableReplicas) && self.status.availableReplicas == self.spec.replicas
    - name: version-healthy
      featureID: Helm
      group: apps
      version: v1
      kind: Deployment
      namespace: %[2]s
      evaluateCEL:
      - name: cluster-not-failed-by-the-version
        rule: >-
          !self.metadata.annotations['%[8]s'].contains(' ' + self.metadata.annotations['%[7]s'] + ' ')
  stages:
  - name: dev
    clusterSelector: {matchLabels: {env: dev}}
    trigger: {auto: {delay: %[5]s}}%[10]s
  - name: staging
    clusterSelector: {matchLabels: {env: staging}}
    trigger: {manual: {automaticReset: true}}%[11]s
  - name: prod
    clusterSelector: {matchLabels: {env: prod}}%[12]s
`, repoURL, sveltosNS, image(version), sourcesNS, soak, bad.onFailure(), clusterAnnotation, failsOnAnnotation,
		strings.Join(bad.failingClusters(), " "), bad.budget(0), bad.budget(1), bad.budget(2))
}

// The Deployment's annotations that the version-healthy check compares.
const (
	clusterAnnotation = "chaos.stagecoach.dev/cluster"
	failsOnAnnotation = "chaos.stagecoach.dev/fails-on"
)

func sveltosValues(version int) string {
	return fmt.Sprintf(`
apiVersion: v1
kind: ConfigMap
metadata: {name: chaos-values, namespace: %s}
data:
  values.yaml: "message: %s"
`, sourcesNS, message(version))
}

// fleetResources are what the ClusterResourcePlacement places: the namespace, a ConfigMap with
// the message and a Deployment with the image, annotated with the clusters that refuse it. A bad
// version (bad) leaves the ConfigMap as it was.
func fleetResources(version int, bad *failPlan) []string {
	deployment := fmt.Sprintf(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: chaos, namespace: %s, annotations: {%s: " %s "}}
spec:
  replicas: 1
  selector: {matchLabels: {app: chaos}}
  template:
    metadata: {labels: {app: chaos}}
    spec:
      containers: [{name: web, image: %s}]
`, fleetNS, failsOnAnnotation, strings.Join(bad.failingClusters(), " "), image(version))
	if bad != nil {
		return []string{deployment}
	}
	return []string{
		fmt.Sprintf("{apiVersion: v1, kind: ConfigMap, metadata: {name: settings, namespace: %s}, data: {message: %s}}", fleetNS, message(version)),
		deployment,
	}
}

// fleetSetup is the Kubefleet dialect's placement and strategy, in v1 as Kubefleet's docs write
// them: the same stages, a TimedWait after dev, two clusters at a time in staging and an approval
// after it (strategy).
func fleetSetup() []string {
	return []string{
		fmt.Sprintf("{apiVersion: v1, kind: Namespace, metadata: {name: %s}}", fleetNS),
		fmt.Sprintf(`
apiVersion: placement.kubernetes-fleet.io/v1
kind: ClusterResourcePlacement
metadata: {name: chaos}
spec:
  resourceSelectors: [{group: "", version: v1, kind: Namespace, name: %s}]
  policy: {placementType: PickAll}
  strategy: {type: External}
`, fleetNS),
		strategy(nil),
	}
}

func updateRun(version int, snapshot string) string {
	return fmt.Sprintf(`
apiVersion: placement.kubernetes-fleet.io/v1
kind: ClusterStagedUpdateRun
metadata: {name: chaos-%d}
spec: {placementName: chaos, resourceSnapshotIndex: %q, stagedRolloutStrategyName: chaos}
`, version, snapshot)
}

// apply server-side applies each manifest, retrying while the management cluster is away.
func apply(ctx context.Context, c client.Client, manifests ...string) error {
	for _, m := range manifests {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(m), &u.Object); err != nil {
			return fmt.Errorf("%w in\n%s", err, m)
		}
		err := retry(ctx, func(ctx context.Context) error {
			return c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner("chaos-trial"), client.ForceOwnership)
		})
		if err != nil {
			return fmt.Errorf("applying %s %s: %w", u.GetKind(), u.GetName(), err)
		}
	}
	return nil
}

// retry calls f until it succeeds or runTimeout passes: the management API server may be down.
func retry(ctx context.Context, f func(context.Context) error) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, runTimeout, true, func(ctx context.Context) (bool, error) {
		last = f(ctx)
		return last == nil, nil
	})
	if err != nil && last != nil {
		return last
	}
	return err
}
