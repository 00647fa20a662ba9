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

package schema_test

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// promotion wraps stage and profile YAML into a ClusterPromotion manifest.
func promotion(profileSpec, stages string) string {
	return "apiVersion: config.projectsveltos.io/v1beta1\nkind: ClusterPromotion\nmetadata:\n  name: invalid\nspec:\n" +
		"  profileSpec:\n" + indent(profileSpec, 4) + "  stages:\n" + indent(stages, 2)
}

const okStage = "- name: dev\n  clusterSelector:\n    matchLabels:\n      env: dev\n"

const okChart = `helmCharts:
- repositoryURL: https://kyverno.github.io/kyverno/
  repositoryName: kyverno
  chartName: kyverno/kyverno
  chartVersion: 3.5.2
  releaseName: kyverno-latest
  releaseNamespace: kyverno
`

// strategy wraps stage YAML into a ClusterStagedUpdateStrategy manifest.
func strategy(stages string) string {
	return "apiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ClusterStagedUpdateStrategy\nmetadata:\n  name: invalid\nspec:\n  stages:\n" + indent(stages, 2)
}

// placement wraps a spec into a ClusterResourcePlacement manifest.
func placement(spec string) string {
	return "apiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ClusterResourcePlacement\nmetadata:\n  name: invalid\nspec:\n" + indent(spec, 2)
}

// budget wraps a spec into a ClusterResourcePlacementDisruptionBudget manifest.
func budget(spec string) string {
	return "apiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ClusterResourcePlacementDisruptionBudget\nmetadata:\n  name: invalid\nspec:\n" + indent(spec, 2)
}

func indent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if strings.TrimSpace(line) != "" {
			b.WriteString(pad)
		}
		b.WriteString(line)
	}
	return b.String()
}

// TestInvalidManifestsRejected sends manifests a user could plausibly write wrong and checks the
// API server refuses each with a message that names the problem.
func TestInvalidManifestsRejected(t *testing.T) {
	for _, tc := range []struct {
		name     string
		manifest string
		// every string must appear in the error message
		want []string
	}{
		{"trigger with both manual and auto",
			promotion(okChart, okStage+"  trigger:\n    manual:\n      approved: false\n    auto:\n      delay: 5m\n"),
			[]string{"trigger", "manual", "auto"}},
		{"trigger with neither manual nor auto",
			promotion(okChart, okStage+"  trigger: {}\n"),
			[]string{"trigger", "manual", "auto"}},
		{"maxUpdate above 100%",
			promotion("maxUpdate: 150%\n"+okChart, okStage),
			[]string{"maxUpdate", "150%"}},
		{"duplicate stage names",
			promotion(okChart, okStage+okStage),
			[]string{"stages", "Duplicate value"}},
		{"no stages",
			strings.Replace(promotion(okChart, ""), "  stages:\n", "  stages: []\n", 1),
			[]string{"stages", "at least 1"}},
		{"stage name that cannot name a ClusterProfile",
			promotion(okChart, "- name: Prod_1\n"),
			[]string{"stages[0].name"}},
		{"helm chart without releaseName",
			promotion(strings.Replace(okChart, "  releaseName: kyverno-latest\n", "", 1), okStage),
			[]string{"releaseName", "Required value"}},
		{"helm chart from an http repository without chartName",
			promotion(strings.Replace(okChart, "  chartName: kyverno/kyverno\n", "", 1), okStage),
			[]string{"chartName is required"}},
		{"unknown syncMode",
			promotion("syncMode: Sometimes\n"+okChart, okStage),
			[]string{"syncMode", "Unsupported value"}},
		{"unknown helmChartAction",
			promotion(strings.Replace(okChart, "  releaseNamespace: kyverno\n", "  releaseNamespace: kyverno\n  helmChartAction: Upgrade\n", 1), okStage),
			[]string{"helmChartAction", "Unsupported value"}},
		{"policyRef with neither kind nor remoteURL",
			promotion("policyRefs:\n- name: cm\n  namespace: default\n", okStage),
			[]string{"policyRefs[0]", "remoteURL", "kind"}},
		{"CEL health rule with both rule and expression",
			promotion("validateHealths:\n- name: h\n  featureID: Helm\n  group: apps\n  version: v1\n  kind: Deployment\n  evaluateCEL:\n  - name: r\n    rule: 'true'\n    expression: 'true'\n", okStage),
			[]string{"evaluateCEL[0]", "rule", "expression"}},
		{"promotion window without an end",
			promotion(okChart, okStage+"  trigger:\n    auto:\n      promotionWindow:\n        from: \"0 9 * * 1-5\"\n"),
			[]string{"promotionWindow.to", "Required value"}},
		{"tier zero",
			promotion("tier: 0\n"+okChart, okStage),
			[]string{"tier", "greater than or equal to 1"}},
		{"TimedWait without waitTime",
			strategy("- name: staging\n  labelSelector: {}\n  afterStageTasks:\n  - type: TimedWait\n"),
			[]string{"afterStageTasks", "waitTime"}},
		{"Approval with waitTime",
			strategy("- name: canary\n  labelSelector: {}\n  afterStageTasks:\n  - type: Approval\n    waitTime: 1m\n"),
			[]string{"afterStageTasks", "waitTime"}},
		{"TimedWait before a stage",
			strategy("- name: canary\n  labelSelector: {}\n  beforeStageTasks:\n  - type: TimedWait\n    waitTime: 1m\n"),
			[]string{"beforeStageTasks", "TimedWait"}},
		{"waitTime that is not a duration",
			strategy("- name: staging\n  labelSelector: {}\n  afterStageTasks:\n  - type: TimedWait\n    waitTime: 5 minutes\n"),
			[]string{"waitTime"}},
		{"duplicate strategy stage names",
			strategy("- name: canary\n  labelSelector: {}\n- name: canary\n  labelSelector: {}\n"),
			[]string{"stages", "canary"}},
		{"maxConcurrency zero",
			strategy("- name: canary\n  labelSelector: {}\n  maxConcurrency: 0\n"),
			[]string{"maxConcurrency", "at least 1"}},
		{"resource selector with name and labelSelector",
			placement("resourceSelectors:\n- group: \"\"\n  version: v1\n  kind: Namespace\n  name: test-namespace\n  labelSelector:\n    matchLabels:\n      a: b\n"),
			[]string{"resourceSelectors", "mutually exclusive"}},
		{"PickN without numberOfClusters",
			placement("resourceSelectors:\n- group: \"\"\n  version: v1\n  kind: Namespace\n  name: test-namespace\npolicy:\n  placementType: PickN\n"),
			[]string{"numberOfClusters"}},
		{"update run with an unknown state",
			"apiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ClusterStagedUpdateRun\nmetadata:\n  name: invalid\nspec:\n  placementName: p\n  stagedRolloutStrategyName: s\n  state: Pause\n",
			[]string{"state", "Unsupported value"}},
		{"update run without a strategy",
			"apiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ClusterStagedUpdateRun\nmetadata:\n  name: invalid\nspec:\n  placementName: p\n",
			[]string{"stagedRolloutStrategyName", "Required value"}},
		{"disruption budget with both maxUnavailable and minAvailable",
			budget("maxUnavailable: 1\nminAvailable: 1\n"),
			[]string{"Both MaxUnavailable and MinAvailable cannot be specified"}},
		{"disruption budget with a percentage over 100",
			budget("minAvailable: 101%\n"),
			[]string{"minAvailable", "^(100|[0-9]{1,2})%$"}},
		{"disruption budget with a negative number",
			budget("maxUnavailable: -1\n"),
			[]string{"maxUnavailable", "greater than or equal to 0"}},
		{"eviction without a cluster",
			"apiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ClusterResourcePlacementEviction\nmetadata:\n  name: invalid\nspec:\n  placementName: p\n",
			[]string{"clusterName", "Required value"}},
		{"cluster resource override naming a namespaced placement",
			"apiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ClusterResourceOverride\nmetadata:\n  name: invalid\nspec:\n" +
				"  placement: {name: p, scope: Namespaced}\n  clusterResourceSelectors: [{group: '', version: v1, kind: Namespace, name: app}]\n" +
				"  policy:\n    overrideRules: [{clusterSelector: {clusterSelectorTerms: []}, overrideType: Delete}]\n",
			[]string{"clusterResourceOverride placement reference cannot be Namespaced scope"}},
		{"resource override with an unknown patch operation",
			"apiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ResourceOverride\nmetadata:\n  name: invalid\n  namespace: default\nspec:\n" +
				"  resourceSelectors: [{group: apps, version: v1, kind: Deployment, name: web}]\n" +
				"  policy:\n    overrideRules: [{clusterSelector: {clusterSelectorTerms: []}, jsonPatchOverrides: [{op: move, path: /spec/replicas}]}]\n",
			[]string{"op", "Unsupported value"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := &unstructured.Unstructured{}
			if err := yaml.Unmarshal([]byte(tc.manifest), &obj.Object); err != nil {
				t.Fatalf("test manifest is not YAML: %v\n%s", err, tc.manifest)
			}
			_, err := resourceFor(t, obj).Create(t.Context(), obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if err == nil {
				t.Fatalf("accepted:\n%s", tc.manifest)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q does not mention %q", err, w)
				}
			}
		})
	}
}

// TestTolerationsOnlyGrow: a placement's tolerations can be added to, never changed or removed.
func TestTolerationsOnlyGrow(t *testing.T) {
	obj := &unstructured.Unstructured{}
	manifest := placement("resourceSelectors: [{group: '', version: v1, kind: Namespace, name: app}]\n" +
		"policy: {placementType: PickAll, tolerations: [{key: dedicated, value: gpu, effect: NoSchedule}]}\n")
	if err := yaml.Unmarshal([]byte(strings.Replace(manifest, "name: invalid", "name: tolerations", 1)), &obj.Object); err != nil {
		t.Fatal(err)
	}
	res := resourceFor(t, obj)
	created, err := res.Create(t.Context(), obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = res.Delete(t.Context(), created.GetName(), metav1.DeleteOptions{}) })
	update := func(tolerations ...any) error {
		u := created.DeepCopy()
		if err := unstructured.SetNestedSlice(u.Object, tolerations, "spec", "policy", "tolerations"); err != nil {
			t.Fatal(err)
		}
		_, err := res.Update(t.Context(), u, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
		return err
	}
	gpu := map[string]any{"key": "dedicated", "value": "gpu", "effect": "NoSchedule", "operator": "Equal"}
	spot := map[string]any{"key": "spot", "operator": "Exists", "effect": "NoSchedule"}
	if err := update(gpu, spot); err != nil {
		t.Errorf("adding a toleration: %v", err)
	}
	for name, tolerations := range map[string][]any{"removed": {spot}, "changed": {map[string]any{"key": "dedicated", "value": "cpu", "effect": "NoSchedule"}}} {
		if err := update(tolerations...); err == nil || !strings.Contains(err.Error(), "tolerations cannot be updated or removed once added") {
			t.Errorf("%s toleration: %v", name, err)
		}
	}
}

// TestEvictionSpecImmutable: an eviction is acted on once, so what it names cannot change.
func TestEvictionSpecImmutable(t *testing.T) {
	obj := &unstructured.Unstructured{}
	manifest := "apiVersion: placement.kubernetes-fleet.io/v1beta1\nkind: ClusterResourcePlacementEviction\nmetadata:\n  name: immutable\n" +
		"spec:\n  placementName: p\n  clusterName: c\n"
	if err := yaml.Unmarshal([]byte(manifest), &obj.Object); err != nil {
		t.Fatal(err)
	}
	res := resourceFor(t, obj)
	created, err := res.Create(t.Context(), obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = res.Delete(t.Context(), created.GetName(), metav1.DeleteOptions{}) })
	for field, want := range map[string]string{"placementName": "The PlacementName field is immutable", "clusterName": "The ClusterName field is immutable"} {
		u := created.DeepCopy()
		if err := unstructured.SetNestedField(u.Object, "other", "spec", field); err != nil {
			t.Fatal(err)
		}
		if _, err := res.Update(t.Context(), u, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("changing %s: %v", field, err)
		}
	}
}
