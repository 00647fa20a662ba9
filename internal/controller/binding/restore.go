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

package binding

import (
	"context"
	"math/rand/v2"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// restoredWait, after a restart, takes over a binding whose status shows its current
// generation and snapshot applied and available: the apply that status records is not made
// again at once but at its resync, due at a random time within the resync interval. Otherwise
// a restarted replica would apply every binding of the fleet as it starts (20,000 applies at
// 20,000 clusters), in competition with the rollouts under way. It reports how long the binding
// may wait, or false when it must be applied (or its availability checked) now.
func (r *kindReconciler) restoredWait(ctx context.Context, b placementv1beta1.BindingObj) (time.Duration, bool) {
	key := client.ObjectKeyFromObject(b)
	last := r.memo.get(key)
	switch {
	case last == nil:
		// Once per binding and process: a binding whose apply later fails without a record
		// (a snapshot that cannot be read, say) is applied again, not taken over again.
		if _, again := r.restored.LoadOrStore(b.GetUID(), true); again || !statusShowsApplied(b) {
			return 0, false
		}
		last = &applied{
			uid: b.GetUID(), generation: b.GetGeneration(), snapshot: b.BindingSpec().ResourceSnapshotName,
			due: time.Now().Add(rand.N(r.resyncInterval(ctx) + 1)), restored: true,
		}
		r.memo.succeeded(key, last)
	case !last.restored:
		return 0, false
	}
	if !last.current(b) || !r.joined(ctx, b.BindingSpec().TargetCluster) {
		// Due, changed, or its cluster left: the usual path applies it and says what it found.
		r.memo.forget(key)
		return 0, false
	}
	return max(time.Until(last.due), time.Millisecond), true
}

// statusShowsApplied reports whether the binding's status says its current generation and
// snapshot were applied and found available.
func statusShowsApplied(b placementv1beta1.BindingObj) bool {
	st, gen := b.BindingStatus(), b.GetGeneration()
	if st.ObservedResourceSnapshotName != b.BindingSpec().ResourceSnapshotName {
		return false
	}
	for _, typ := range []string{placementv1beta1.BindingAppliedCondition, placementv1beta1.BindingAvailableCondition} {
		c := meta.FindStatusCondition(st.Conditions, typ)
		if c == nil || c.Status != metav1.ConditionTrue || c.ObservedGeneration != gen {
			return false
		}
	}
	return true
}

// joined reports whether the member cluster is there and has not been reported unreachable.
func (r *kindReconciler) joined(ctx context.Context, name string) bool {
	mc := &clusterv1beta1.MemberCluster{}
	if err := r.client.Get(ctx, client.ObjectKey{Name: name}, mc); err != nil || !mc.DeletionTimestamp.IsZero() {
		return false
	}
	c := meta.FindStatusCondition(mc.Status.Conditions, string(clusterv1beta1.ConditionTypeMemberClusterJoined))
	return c == nil || c.Status != metav1.ConditionFalse
}
