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
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

func restoredBinding(name, cluster string, gen int64, applied, available metav1.ConditionStatus) *placementv1beta1.ClusterResourceBinding {
	b := &placementv1beta1.ClusterResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Generation: gen},
		Spec:       placementv1beta1.ResourceBindingSpec{State: placementv1beta1.BindingStateBound, TargetCluster: cluster, ResourceSnapshotName: "p-0-snapshot"},
	}
	b.Status.ObservedResourceSnapshotName = "p-0-snapshot"
	setCondition(&b.Status, 2, placementv1beta1.BindingAppliedCondition, applied, placementv1beta1.AllWorkAppliedReason, "")
	setCondition(&b.Status, 2, placementv1beta1.BindingAvailableCondition, available, placementv1beta1.AllWorkAvailableReason, "")
	return b
}

// TestRestoredWait: after a restart, a binding whose status shows its generation applied and
// available waits for its resync, spread over the resync interval; any other is applied now.
func TestRestoredWait(t *testing.T) {
	gone := &clusterv1beta1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: "left"}}
	gone.Status.Conditions = []metav1.Condition{{Type: string(clusterv1beta1.ConditionTypeMemberClusterJoined), Status: metav1.ConditionFalse,
		Reason: "Unreachable", LastTransitionTime: metav1.Now()}}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(
		&clusterv1beta1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: "member"}}, gone).WithStatusSubresource(gone).Build()
	if err := c.Status().Update(t.Context(), gone); err != nil {
		t.Fatal(err)
	}
	r := &kindReconciler{
		Reconciler: &Reconciler{client: c, resync: 30 * time.Second, maxResyncRate: 20},
		family:     placementv1beta1.ClusterFamily, memo: newMemo(),
	}
	for _, tc := range []struct {
		name string
		b    *placementv1beta1.ClusterResourceBinding
		wait bool
	}{
		{"applied and available", restoredBinding("ok", "member", 2, "True", "True"), true},
		{"not available", restoredBinding("waiting", "member", 2, "True", "False"), false},
		{"an older generation applied", restoredBinding("older", "member", 3, "True", "True"), false},
		{"its cluster left", restoredBinding("left", "left", 2, "True", "True"), false},
	} {
		wait, ok := r.restoredWait(t.Context(), tc.b)
		if ok != tc.wait || wait > r.resync {
			t.Errorf("%s: waits %v (%v), want waiting %v within %v", tc.name, wait, ok, tc.wait, r.resync)
		}
		if ok {
			continue
		}
		if last := r.memo.get(client.ObjectKeyFromObject(tc.b)); last != nil {
			t.Errorf("%s: a restored apply is on record: the next reconcile would not apply", tc.name)
		}
	}
	// Once its generation changes, the binding is applied at once.
	b := restoredBinding("ok", "member", 2, "True", "True")
	b.Generation = 3
	if _, ok := r.restoredWait(t.Context(), b); ok {
		t.Error("a binding whose generation changed waits for its resync")
	}
	// Taken over once per process: after its resync was due (and forgotten), a binding whose
	// status still says applied is applied, not taken over again.
	again := restoredBinding("ok", "member", 2, "True", "True")
	if _, ok := r.restoredWait(t.Context(), again); ok {
		t.Error("a binding was taken over a second time")
	}
	// One that this replica applied itself is no concern of restoredWait.
	r.memo.succeeded(client.ObjectKeyFromObject(b), &applied{uid: b.UID, generation: 3, snapshot: "p-0-snapshot", due: time.Now().Add(time.Hour)})
	if _, ok := r.restoredWait(t.Context(), b); ok {
		t.Error("a binding applied by this replica was taken for a restored one")
	}
}
