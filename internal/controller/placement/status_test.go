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

package placement

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// testBinding is a binding of placement "web" to cluster, Bound to snapshot index (none when
// negative), with the given binding conditions True for its generation and snapshot.
func testBinding(cluster string, index int, trueConditions ...string) placementv1beta1.BindingObj {
	b := &placementv1beta1.ClusterResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: "web-" + cluster, Generation: 2}}
	b.Spec = placementv1beta1.ResourceBindingSpec{State: placementv1beta1.BindingStateScheduled, TargetCluster: cluster,
		ClusterDecision: placementv1beta1.ClusterDecision{ClusterName: cluster, Selected: true, Reason: "Picked"}}
	if index >= 0 {
		b.Spec.State = placementv1beta1.BindingStateBound
		b.Spec.ResourceSnapshotName = "web-" + string(rune('0'+index)) + "-snapshot"
		b.Status.ObservedResourceSnapshotName = b.Spec.ResourceSnapshotName
	}
	for _, ct := range trueConditions {
		meta.SetStatusCondition(&b.Status.Conditions, metav1.Condition{Type: ct, Status: metav1.ConditionTrue, Reason: "Test", ObservedGeneration: 2})
	}
	return b
}

func TestSetStatus(t *testing.T) {
	const started, applied, available = placementv1beta1.BindingRolloutStartedCondition, placementv1beta1.BindingAppliedCondition, placementv1beta1.BindingAvailableCondition
	done := []string{started, applied, available}
	for _, tc := range []struct {
		name      string
		strategy  placementv1beta1.RolloutStrategyType
		bindings  []placementv1beta1.BindingObj
		index     string
		want      map[string]metav1.ConditionStatus // by condition type; absent means not set
		inMessage string
	}{
		{
			name:      "External before any run: rollout controlled elsewhere, nothing to report on",
			strategy:  placementv1beta1.ExternalRolloutStrategyType,
			bindings:  []placementv1beta1.BindingObj{testBinding("member1", -1), testBinding("member2", -1)},
			want:      map[string]metav1.ConditionStatus{"ClusterResourcePlacementRolloutStarted": metav1.ConditionUnknown},
			inMessage: "No resource snapshot has been rolled out",
		},
		{
			name:      "External with clusters on different indices",
			strategy:  placementv1beta1.ExternalRolloutStrategyType,
			bindings:  []placementv1beta1.BindingObj{testBinding("member1", 1, done...), testBinding("member2", 0, done...)},
			want:      map[string]metav1.ConditionStatus{"ClusterResourcePlacementRolloutStarted": metav1.ConditionUnknown},
			inMessage: "different resource snapshot indices",
		},
		{
			name:     "External while a run is still rolling index 1 out",
			strategy: placementv1beta1.ExternalRolloutStrategyType,
			bindings: []placementv1beta1.BindingObj{testBinding("member1", 1, done...), testBinding("member2", 1)},
			index:    "1",
			want:     map[string]metav1.ConditionStatus{"ClusterResourcePlacementRolloutStarted": metav1.ConditionUnknown},
		},
		{
			name:     "External once a run brought every cluster to index 1",
			strategy: placementv1beta1.ExternalRolloutStrategyType,
			bindings: []placementv1beta1.BindingObj{testBinding("member1", 1, done...), testBinding("member2", 1, done...)},
			index:    "1",
			want: map[string]metav1.ConditionStatus{"ClusterResourcePlacementRolloutStarted": metav1.ConditionTrue,
				"ClusterResourcePlacementApplied": metav1.ConditionTrue, "ClusterResourcePlacementAvailable": metav1.ConditionTrue},
		},
		{
			name:     "RollingUpdate waiting for a cluster to apply",
			strategy: placementv1beta1.RollingUpdateRolloutStrategyType,
			bindings: []placementv1beta1.BindingObj{testBinding("member1", 1, done...), testBinding("member2", 1, started)},
			index:    "1",
			want: map[string]metav1.ConditionStatus{"ClusterResourcePlacementRolloutStarted": metav1.ConditionTrue,
				"ClusterResourcePlacementApplied": metav1.ConditionUnknown},
			inMessage: "not applied yet on member2",
		},
		{
			name:      "RollingUpdate with a cluster not started",
			strategy:  placementv1beta1.RollingUpdateRolloutStrategyType,
			bindings:  []placementv1beta1.BindingObj{testBinding("member1", 1, done...), testBinding("member2", -1)},
			index:     "1",
			want:      map[string]metav1.ConditionStatus{"ClusterResourcePlacementRolloutStarted": metav1.ConditionFalse},
			inMessage: "not started yet on member2",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "web", Generation: 3}}
			p.Status.Conditions = []metav1.Condition{{Type: "ClusterResourcePlacementAvailable", Status: metav1.ConditionTrue, Reason: "Old"}}
			ps := &pass{p: p, spec: withDefaults(&placementv1beta1.PlacementSpec{Strategy: placementv1beta1.RolloutStrategy{Type: tc.strategy}}),
				selection: &selection{}, index: 1, bindings: tc.bindings}
			r := &kindReconciler{Reconciler: &Reconciler{now: time.Now}, family: placementv1beta1.ClusterFamily}
			r.setStatus(ps)
			if p.Status.ObservedResourceIndex != tc.index {
				t.Errorf("observedResourceIndex %q, want %q", p.Status.ObservedResourceIndex, tc.index)
			}
			var messages []string
			for _, ct := range []string{"ClusterResourcePlacementRolloutStarted", "ClusterResourcePlacementApplied", "ClusterResourcePlacementAvailable"} {
				c := meta.FindStatusCondition(p.Status.Conditions, ct)
				want, set := tc.want[ct]
				switch {
				case c == nil && set:
					t.Errorf("%s missing, want %s", ct, want)
				case c != nil && !set:
					t.Errorf("%s is set (%s: %s), want none", ct, c.Status, c.Message)
				case c != nil && (c.Status != want || c.ObservedGeneration != 3):
					t.Errorf("%s is %s at %d (%s), want %s at 3", ct, c.Status, c.ObservedGeneration, c.Message, want)
				}
				if c != nil {
					messages = append(messages, c.Message)
				}
			}
			if !strings.Contains(strings.Join(messages, "\n"), tc.inMessage) {
				t.Errorf("messages %q do not say %q", messages, tc.inMessage)
			}
			if len(p.Status.PerClusterPlacementStatuses) != len(tc.bindings) {
				t.Errorf("%d cluster statuses", len(p.Status.PerClusterPlacementStatuses))
			}
		})
	}
}

// TestSetStatusOverridden: once bindings report Overridden, the placement's Overridden condition
// comes between RolloutStarted and Applied; a cluster whose overrides fail holds Applied back.
func TestSetStatusOverridden(t *testing.T) {
	const started, overridden, applied, available = placementv1beta1.BindingRolloutStartedCondition, placementv1beta1.BindingOverriddenCondition,
		placementv1beta1.BindingAppliedCondition, placementv1beta1.BindingAvailableCondition
	failing := testBinding("member2", 1, started)
	meta.SetStatusCondition(&failing.BindingStatus().Conditions, metav1.Condition{Type: overridden, Status: metav1.ConditionFalse,
		Reason: placementv1beta1.OverriddenFailedReason, Message: "label key region not found on cluster member2", ObservedGeneration: 2})
	for _, tc := range []struct {
		name     string
		bindings []placementv1beta1.BindingObj
		want     map[string]metav1.ConditionStatus
		message  string
	}{
		{"every cluster overridden", []placementv1beta1.BindingObj{testBinding("member1", 1, started, overridden, applied, available),
			testBinding("member2", 1, started, overridden, applied, available)},
			map[string]metav1.ConditionStatus{"ClusterResourcePlacementOverridden": metav1.ConditionTrue,
				"ClusterResourcePlacementApplied": metav1.ConditionTrue, "ClusterResourcePlacementAvailable": metav1.ConditionTrue}, ""},
		{"one cluster's override fails", []placementv1beta1.BindingObj{testBinding("member1", 1, started, overridden, applied, available), failing},
			map[string]metav1.ConditionStatus{"ClusterResourcePlacementOverridden": metav1.ConditionFalse},
			"failed to apply on member2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "web", Generation: 3}}
			ps := &pass{p: p, spec: withDefaults(&placementv1beta1.PlacementSpec{Strategy: placementv1beta1.RolloutStrategy{Type: placementv1beta1.RollingUpdateRolloutStrategyType}}),
				selection: &selection{}, index: 1, bindings: tc.bindings}
			r := &kindReconciler{Reconciler: &Reconciler{now: time.Now}, family: placementv1beta1.ClusterFamily}
			r.setStatus(ps)
			for _, ct := range []string{"ClusterResourcePlacementOverridden", "ClusterResourcePlacementApplied", "ClusterResourcePlacementAvailable"} {
				c := meta.FindStatusCondition(p.Status.Conditions, ct)
				want, set := tc.want[ct]
				if (c != nil) != set || c != nil && c.Status != want {
					t.Errorf("%s is %+v, want %q (set %v)", ct, c, want, set)
				}
			}
			if c := meta.FindStatusCondition(p.Status.Conditions, "ClusterResourcePlacementOverridden"); tc.message != "" && !strings.Contains(c.Message, tc.message) {
				t.Errorf("Overridden says %q", c.Message)
			}
		})
	}
}

// TestClusterStatusFailedPlacements: a cluster's failed placements are the binding's for the
// snapshot it names; those it still lists from an older snapshot, before it reports on the new
// one, are not.
func TestClusterStatusFailedPlacements(t *testing.T) {
	failed := []placementv1beta1.FailedResourcePlacement{{
		ResourceIdentifier: placementv1beta1.ResourceIdentifier{Version: "v1", Kind: "ConfigMap", Namespace: "app", Name: "c"},
		Condition: metav1.Condition{Type: placementv1beta1.BindingAppliedCondition, Status: metav1.ConditionFalse,
			Reason: placementv1beta1.ManifestApplyFailedReason, ObservedGeneration: 2},
	}}
	for _, tc := range []struct {
		name     string
		observed string
		want     int
	}{
		{"failed on the snapshot it names", "web-1-snapshot", 1},
		{"still listing an older snapshot's failures", "web-0-snapshot", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := testBinding("member1", 1, placementv1beta1.BindingRolloutStartedCondition)
			st := b.BindingStatus()
			st.ObservedResourceSnapshotName = tc.observed
			st.FailedPlacements = failed
			meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: placementv1beta1.BindingAppliedCondition,
				Status: metav1.ConditionFalse, Reason: placementv1beta1.WorkNotAppliedReason, ObservedGeneration: 2})
			p := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "web", Generation: 3}}
			ps := &pass{p: p, spec: withDefaults(&placementv1beta1.PlacementSpec{}), selection: &selection{}, index: 1}
			r := &kindReconciler{Reconciler: &Reconciler{now: time.Now}, family: placementv1beta1.ClusterFamily}
			got := r.clusterStatus(ps, b, false, nil)
			if len(got.FailedPlacements) != tc.want {
				t.Errorf("%d failed placements, want %d: %+v", len(got.FailedPlacements), tc.want, got.FailedPlacements)
			}
		})
	}
}
