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
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/availability"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
	"github.com/stagecoach-dev/stagecoach/internal/inplace"
)

// applied records the last successful apply of a binding, so that the frequent availability
// checks between two applies read only the objects whose state matters instead of applying the
// whole snapshot again. It lives in memory only: after a restart, a binding whose status shows
// its generation applied and available is taken over as it is and applied again at its resync
// (restoredWait); any other is applied once more, which server-side apply makes harmless.
type applied struct {
	uid        types.UID
	generation int64
	snapshot   string
	// due is when to apply again, to revert drift.
	due     time.Time
	objects []manifests.ObjectRef
	// ok holds the objects found available (or untrackable) since the apply; they are not read
	// again until the next apply.
	ok map[manifests.ObjectRef]availability.Result
	// envelopes names the envelope of each object that came out of one.
	envelopes map[manifests.ObjectRef]*placementv1beta1.EnvelopeIdentifier
	// stale is set when an object went missing: the next reconcile applies again at once.
	stale bool
	// drifts are, with FullComparison, the fields no manifest sets found right after the apply.
	drifts []manifests.Drift
	// restored: not applied by this replica but taken over from the status after a restart
	// (restoredWait); objects is then unknown, and the status is left as it is until the resync.
	restored bool
}

// current reports whether a describes b as it is now and is not due to be applied again.
func (a *applied) current(b placementv1beta1.BindingObj) bool {
	spec := b.BindingSpec()
	return a != nil && !a.stale && a.uid == b.GetUID() && a.generation == b.GetGeneration() &&
		a.snapshot == spec.ResourceSnapshotName && time.Now().Before(a.due)
}

// resyncAt is when an apply made now is due again: after interval, stretched by up to a tenth so
// that the bindings of a fleet, all applied at once after a restart, do not stay in step.
func resyncAt(interval time.Duration) time.Time {
	return time.Now().Add(interval + rand.N(interval/10+1))
}

// resyncInterval is how long an apply made now stays current: ResyncInterval, or longer when
// the kind has more bindings than MaxResyncRate lets resync that often. The bindings are counted
// in the cache, not among those applied so far: as a rollout reaches a fleet, the first bindings
// applied would otherwise be resynced every ResyncInterval, at up to MaxResyncRate, competing
// with the rollout itself, and after a restart the first ones restored would come back at once.
func (r *kindReconciler) resyncInterval(ctx context.Context) time.Duration {
	if r.maxResyncRate <= 0 {
		return r.resync
	}
	return max(r.resync, time.Duration(float64(max(r.memo.len(), r.known(ctx)))/r.maxResyncRate*float64(time.Second)))
}

// knownTTL is how long a count of the kind's bindings is used before it is taken again.
const knownTTL = 30 * time.Second

// known is how many bindings of the kind this shard applies, as the cache holds them, counted at
// most every knownTTL; 0 when they cannot be counted.
func (r *kindReconciler) known(ctx context.Context) int {
	r.countMu.Lock()
	defer r.countMu.Unlock()
	if r.informers == nil || time.Since(r.counted) < knownTTL {
		return r.count
	}
	if n, err := r.countApplied(ctx); err == nil {
		r.count, r.counted = n, time.Now()
	}
	return r.count
}

// countApplied counts, in place, the bindings of the kind that are applied (Bound or
// Unscheduled, not being deleted) to a member cluster of this replica's shard: the bindings of
// other shards are resynced by their own replicas, at their own pace.
func (r *kindReconciler) countApplied(ctx context.Context) (int, error) {
	members, err := inplace.Objects(ctx, r.informers, r.client, &clusterv1beta1.MemberCluster{}, &clusterv1beta1.MemberClusterList{}, "", nil)
	if err != nil {
		return 0, err
	}
	owned := make(map[string]bool, len(members))
	for _, mc := range members {
		if r.shard.Owns(mc) {
			owned[mc.GetName()] = true
		}
	}
	objs, err := inplace.Objects(ctx, r.informers, r.client, r.family.NewBinding(), r.family.NewBindingList(), "", nil)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, o := range objs {
		b, ok := o.(placementv1beta1.BindingObj)
		if ok && b.GetDeletionTimestamp().IsZero() && b.BindingSpec().State != placementv1beta1.BindingStateScheduled && owned[b.BindingSpec().TargetCluster] {
			n++
		}
	}
	return n, nil
}

// memo holds, per binding, its last apply and how many attempts in a row failed.
type memo struct {
	mu       sync.Mutex
	applies  map[types.NamespacedName]*applied
	failures map[types.NamespacedName]int
}

func newMemo() *memo {
	return &memo{applies: map[types.NamespacedName]*applied{}, failures: map[types.NamespacedName]int{}}
}

func (m *memo) get(key types.NamespacedName) *applied {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.applies[key]
}

// succeeded records an apply and clears the failure count.
func (m *memo) succeeded(key types.NamespacedName, a *applied) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.applies[key] = a
	delete(m.failures, key)
}

// failed forgets the last apply and returns how many attempts in a row have failed.
func (m *memo) failed(key types.NamespacedName) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.applies, key)
	m.failures[key]++
	return m.failures[key]
}

// len is the number of bindings with a successful apply on record.
func (m *memo) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.applies)
}

func (m *memo) forget(key types.NamespacedName) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.applies, key)
	delete(m.failures, key)
}
