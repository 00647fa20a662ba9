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
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/chaos"
)

// The Kubefleet dialect's update runs carry a ResourceOverride: the clusters labelled
// chaosOverrideLabel get key overrideKey in the placed ConfigMap, with a value of the run's
// version. Once the run has pinned it, the override is edited to a value no cluster may get from
// that run (a run delivers the override snapshots it pinned at initialization).
const (
	overrideName = "chaos-settings"
	overrideKey  = "override"
	// ruleOverride is the promise the records must keep about the override.
	ruleOverride = "override"
)

func overrideValue(v int) string { return fmt.Sprintf("o%d", v) }
func unpinnedValue(v int) string { return fmt.Sprintf("x%d", v) }

func resourceOverride(value string) string {
	return fmt.Sprintf(`
apiVersion: placement.kubernetes-fleet.io/v1
kind: ResourceOverride
metadata: {name: %s, namespace: %s}
spec:
  placement: {name: chaos}
  resourceSelectors: [{group: "", version: v1, kind: ConfigMap, name: settings}]
  policy:
    overrideRules:
    - clusterSelector:
        clusterSelectorTerms: [{labelSelector: {matchLabels: {%s: "yes"}}}]
      jsonPatchOverrides: [{op: add, path: /data/%s, value: %q}]
`, overrideName, fleetNS, chaosOverrideLabel, overrideKey, value)
}

// override sets the override's value for version v and waits until its latest snapshot holds it,
// so that the run started next pins it.
func (e *env) override(ctx context.Context, v int) error {
	return e.setOverride(ctx, overrideValue(v))
}

// unpin edits the override once run v has pinned its snapshots: once its status lists its stages.
func (e *env) unpin(ctx context.Context, v int) error {
	err := retry(ctx, func(ctx context.Context) error {
		run := &placementv1beta1.ClusterStagedUpdateRun{}
		if err := e.c.Get(ctx, client.ObjectKey{Name: fmt.Sprintf("chaos-%d", v)}, run); err != nil {
			return err
		}
		if len(run.Status.StagesStatus) == 0 {
			return fmt.Errorf("update run chaos-%d is not initialized", v)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return e.setOverride(ctx, unpinnedValue(v))
}

func (e *env) setOverride(ctx context.Context, value string) error {
	if err := apply(ctx, e.c, resourceOverride(value)); err != nil {
		return err
	}
	return retry(ctx, func(ctx context.Context) error {
		snaps := &placementv1beta1.ResourceOverrideSnapshotList{}
		if err := e.c.List(ctx, snaps, client.InNamespace(fleetNS), client.MatchingLabels{
			placementv1beta1.OverrideTrackingLabel: overrideName, placementv1beta1.IsLatestSnapshotLabel: "true"}); err != nil {
			return err
		}
		for _, s := range snaps.Items {
			data, _ := json.Marshal(s.Spec.OverrideSpec)
			if strings.Contains(string(data), fmt.Sprintf("%q", value)) {
				return nil
			}
		}
		return fmt.Errorf("no latest snapshot of override %s with %s yet", overrideName, value)
	})
}

// checkOverride judges the placed ConfigMap of every cluster from the records: the overridden
// clusters end with version v's value and never had the value set after the run pinned its
// snapshots; the others never have the key.
func checkOverride(initial, writes []chaos.Write, v int) []chaos.Violation {
	final := map[string]*corev1.ConfigMap{}
	var found []chaos.Violation
	violate := func(format string, args ...any) {
		found = append(found, chaos.Violation{Rollout: rollouts[1].Name, Rule: ruleOverride, Detail: fmt.Sprintf(format, args...)})
	}
	for i, w := range append(initial[:len(initial):len(initial)], writes...) {
		cm, ok := w.Object.(*corev1.ConfigMap)
		if !ok || w.Namespace != fleetNS || w.Name != "settings" {
			continue
		}
		final[w.Cluster] = cm
		if i < len(initial) {
			continue
		}
		got, has := cm.Data[overrideKey]
		switch {
		case has && !overridden(w.Cluster):
			violate("%s got %s=%s at revision %d, but no override selects it", w.Cluster, overrideKey, got, w.Rev)
		case got == unpinnedValue(v):
			violate("%s got %s=%s at revision %d, a value set after run chaos-%d pinned its overrides", w.Cluster, overrideKey, got, w.Rev, v)
		}
	}
	for _, s := range rollouts[1].Stages {
		for _, name := range s.Clusters {
			if cm := final[name]; overridden(name) && (cm == nil || cm.Data[overrideKey] != overrideValue(v)) {
				violate("%s ends without %s=%s", name, overrideKey, overrideValue(v))
			}
		}
	}
	return found
}
