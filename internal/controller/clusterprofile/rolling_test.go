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

package clusterprofile

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

// TestRolloutTargets: a cluster settled on an older spec waits for a slot; one still in the
// middle of an older spec (the spec changed under it: a rollback) is in flight and holds one,
// also while it is unreachable, so that no more than maxUpdate clusters are ever updating.
func TestRolloutTargets(t *testing.T) {
	summary := func(tier int32, observed bool) *configv1beta1.ClusterSummary {
		cs := &configv1beta1.ClusterSummary{ObjectMeta: metav1.ObjectMeta{Generation: 2}}
		cs.Spec.ClusterProfileSpec.Tier = tier
		if observed {
			cs.Status.ObservedGeneration = 2
		}
		return cs
	}
	const currentTier, olderTier = 2, 1
	current := func(cs *configv1beta1.ClusterSummary) bool { return cs.Spec.ClusterProfileSpec.Tier == currentTier }
	keys := []clusterKey{{Namespace: "s", Name: "a"}, {Namespace: "s", Name: "b"}, {Namespace: "s", Name: "c"}, {Namespace: "s", Name: "d"}, {Namespace: "s", Name: "e"}, {Namespace: "s", Name: "f"}}
	summaries := map[clusterKey]*configv1beta1.ClusterSummary{
		{Namespace: "s", Name: "a"}: summary(olderTier, false),   // mid-update on the older spec, and unreachable
		{Namespace: "s", Name: "b"}: summary(currentTier, false), // updating
		{Namespace: "s", Name: "c"}: summary(currentTier, true),  // updated
		{Namespace: "s", Name: "d"}: summary(olderTier, true),    // settled on the older spec
		// e has no summary yet
		{Namespace: "s", Name: "f"}: summary(olderTier, false), // mid-update on the older spec
	}
	targets := rolloutTargets(current, keys, map[clusterKey]string{{Namespace: "s", Name: "a"}: "not ready"}, summaries)
	want := []rollout.TargetState{rollout.Updating, rollout.Updating, rollout.Updated, rollout.Pending, rollout.Pending, rollout.Updating}
	for i, tg := range targets {
		if tg.State != want[i] {
			t.Errorf("%s: state %d, want %d", tg.Name, tg.State, want[i])
		}
	}
	// With maxUpdate 3: a (held while unreachable), b and f fill the slots; d and e wait.
	w := rollout.PlanWave(targets, 3)
	if !slices.Equal(w.Updating, []string{"s/a", "s/b", "s/f"}) || len(w.Start) != 0 || !slices.Equal(w.Waiting, []string{"s/d", "s/e"}) ||
		!slices.Equal(w.Held, []string{"s/a: not ready"}) {
		t.Errorf("wave %+v", w)
	}
}
