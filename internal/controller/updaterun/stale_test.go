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

package updaterun

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// staleCache serves one run as it was read earlier, as an informer cache that has not seen the
// controller's own last writes yet does; everything else is read live.
type staleCache struct {
	client.Client
	run *placementv1beta1.ClusterStagedUpdateRun
}

func (s staleCache) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if r, ok := obj.(*placementv1beta1.ClusterStagedUpdateRun); ok && key.Name == s.run.Name {
		s.run.DeepCopyInto(r)
		return nil
	}
	return s.Client.Get(ctx, key, obj, opts...)
}

// TestStaleReadNeverOverwrites: a reconcile that reads a run from before the controller's last
// status write must not write its view of the stages over the newer one. It starts over instead,
// without an error, and the stored status stays as the newer write left it. The run reconciler
// is driven by hand here, on live reads, so that the test decides which version is stale.
func TestStaleReadNeverOverwrites(t *testing.T) {
	testenv.StartManager(t, func(mgr ctrl.Manager) error {
		return ctrl.NewControllerManagedBy(mgr).For(&placementv1beta1.ClusterResourceBinding{}).Named("available-bindings").
			Complete(availableBindings{mgr.GetClient()})
	})
	c := testenv.Client(t)
	fleet(t, c, "stale-placement")
	// Staging's wait outlasts the test: the run settles there.
	strategy(t, c, "stale-strategy", time.Hour)
	create(t, c, newRun("stale-run", "stale-placement", "stale-strategy", "1"))
	r := runReconciler(c, nil, Options{})
	req := ctrl.Request{NamespacedName: client.ObjectKey{Name: "stale-run"}}
	reconcileUntil := func(cond func(*placementv1beta1.ClusterStagedUpdateRun) error) *placementv1beta1.ClusterStagedUpdateRun {
		t.Helper()
		run := &placementv1beta1.ClusterStagedUpdateRun{}
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			if _, err := r.Reconcile(ctx, req); err != nil {
				return err
			}
			if err := c.Get(ctx, req.NamespacedName, run); err != nil {
				return err
			}
			return cond(run)
		})
		return run
	}
	staging := func(run *placementv1beta1.ClusterStagedUpdateRun) *placementv1beta1.ClusterUpdatingStatus {
		if len(run.Status.StagesStatus) == 0 || len(run.Status.StagesStatus[0].Clusters) == 0 {
			return &placementv1beta1.ClusterUpdatingStatus{}
		}
		return &run.Status.StagesStatus[0].Clusters[0]
	}
	stale := reconcileUntil(func(run *placementv1beta1.ClusterStagedUpdateRun) error {
		if !clusterStarted(staging(run)) {
			return errors.New("staging not started yet")
		}
		return nil
	})
	if clusterSucceeded(staging(stale)) {
		t.Fatal("staging was updated in the same pass that started it; nothing to be stale about")
	}
	settled := reconcileUntil(func(run *placementv1beta1.ClusterStagedUpdateRun) error {
		if !clusterSucceeded(staging(run)) {
			return errors.New("staging not updated yet")
		}
		return conditionIs(run.Status.Conditions, "Progressing", metav1.ConditionFalse, placementv1beta1.UpdateRunWaitingReason)
	})

	r.client = staleCache{Client: c, run: stale}
	result, err := r.Reconcile(t.Context(), req)
	if err != nil || result.RequeueAfter != patch.RetryAfterRace {
		t.Errorf("stale reconcile returned %+v, %v; want a retry after %s and no error", result, err, patch.RetryAfterRace)
	}
	now := &placementv1beta1.ClusterStagedUpdateRun{}
	if err := c.Get(t.Context(), req.NamespacedName, now); err != nil {
		t.Fatal(err)
	}
	if now.ResourceVersion != settled.ResourceVersion || !clusterSucceeded(staging(now)) {
		t.Errorf("the stale reconcile wrote the run (resourceVersion %s, was %s): stages %+v",
			now.ResourceVersion, settled.ResourceVersion, now.Status.StagesStatus)
	}
}

// laggingBindings serves bindings as they were before a run bound them, as a binding informer
// that has not seen the run's patch yet (while the run informer has its status) does.
type laggingBindings struct {
	client.Client
	before []placementv1beta1.ClusterResourceBinding
}

func (l laggingBindings) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if bl, ok := list.(*placementv1beta1.ClusterResourceBindingList); ok {
		bl.Items = nil
		for _, b := range l.before {
			bl.Items = append(bl.Items, *b.DeepCopy())
		}
		return nil
	}
	return l.Client.List(ctx, list, opts...)
}

// TestLaggingBindingCacheIsNoConflict: a run whose cache shows a started cluster's binding as it
// was before the run bound it asks the API server before it concludes another run took the
// binding over. (Seen in the crash trial: right after a restart, the run's status event beat the
// binding's, and the run failed.)
func TestLaggingBindingCacheIsNoConflict(t *testing.T) {
	testenv.StartManager(t, func(mgr ctrl.Manager) error {
		return ctrl.NewControllerManagedBy(mgr).For(&placementv1beta1.ClusterResourceBinding{}).Named("available-bindings-lag").
			Complete(availableBindings{mgr.GetClient()})
	})
	c := testenv.Client(t)
	fleet(t, c, "lag-placement")
	strategy(t, c, "lag-strategy", time.Hour)
	before := &placementv1beta1.ClusterResourceBindingList{}
	if err := c.List(t.Context(), before, client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: "lag-placement"}); err != nil || len(before.Items) == 0 {
		t.Fatalf("bindings of lag-placement: %v %v", before.Items, err)
	}
	create(t, c, newRun("lag-run", "lag-placement", "lag-strategy", "1"))
	r := runReconciler(c, nil, Options{})
	req := ctrl.Request{NamespacedName: client.ObjectKey{Name: "lag-run"}}
	run := &placementv1beta1.ClusterStagedUpdateRun{}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if _, err := r.Reconcile(ctx, req); err != nil {
			return err
		}
		if err := c.Get(ctx, req.NamespacedName, run); err != nil {
			return err
		}
		if len(run.Status.StagesStatus) == 0 || len(run.Status.StagesStatus[0].Clusters) == 0 || !clusterStarted(&run.Status.StagesStatus[0].Clusters[0]) {
			return errors.New("staging not started yet")
		}
		return nil
	})

	r.client, r.reader = laggingBindings{Client: c, before: before.Items}, c
	if _, err := r.Reconcile(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(t.Context(), req.NamespacedName, run); err != nil {
		t.Fatal(err)
	}
	if err := conditionIs(run.Status.Conditions, "Succeeded", metav1.ConditionFalse, placementv1beta1.UpdateRunFailedReason); err == nil {
		t.Errorf("the run failed on a lagging cache: %+v", run.Status.Conditions)
	}
}

// laggingCache has not seen the run's placement yet, as a cache reading a placement created a
// moment before the run.
type laggingCache struct {
	client.Client
	placement string
}

func (l laggingCache) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if _, ok := obj.(*placementv1beta1.ClusterResourcePlacement); ok && key.Name == l.placement {
		return apierrors.NewNotFound(placementv1beta1.GroupVersion.WithResource("clusterresourceplacements").GroupResource(), key.Name)
	}
	return l.Client.Get(ctx, key, obj, opts...)
}

// TestPlacementNotCachedYet: a run whose placement its cache does not show yet, but the API
// server does, waits for it instead of failing for good; once the cache has it, it initializes.
func TestPlacementNotCachedYet(t *testing.T) {
	c := testenv.Client(t)
	fleet(t, c, "lagging-placement")
	strategy(t, c, "lagging-strategy", time.Hour)
	create(t, c, newRun("lagging-run", "lagging-placement", "lagging-strategy", "1"))
	req := ctrl.Request{NamespacedName: client.ObjectKey{Name: "lagging-run"}}
	initialized := func(r *kindReconciler) *metav1.Condition {
		t.Helper()
		if _, err := r.Reconcile(t.Context(), req); err != nil {
			t.Fatal(err)
		}
		run := &placementv1beta1.ClusterStagedUpdateRun{}
		if err := c.Get(t.Context(), req.NamespacedName, run); err != nil {
			t.Fatal(err)
		}
		return meta.FindStatusCondition(run.Status.Conditions, "Initialized")
	}
	lagging := runReconciler(laggingCache{Client: c, placement: "lagging-placement"}, c, Options{})
	if got := initialized(lagging); got == nil || got.Status != metav1.ConditionUnknown || got.Reason != "WaitingForCache" {
		t.Fatalf("Initialized %+v, want Unknown WaitingForCache", got)
	}
	if got := initialized(runReconciler(c, c, Options{})); got == nil || got.Status != metav1.ConditionTrue {
		t.Fatalf("Initialized %+v once the cache has the placement", got)
	}
}

// TestSnapshotNotCachedYet: a run naming a snapshot index its cache does not show yet (written
// by the placement a moment before), but the API server does, waits instead of failing.
func TestSnapshotNotCachedYet(t *testing.T) {
	c := testenv.Client(t)
	fleet(t, c, "lagging-snapshots")
	strategy(t, c, "lagging-snapshots", time.Hour)
	create(t, c, newRun("lagging-snapshots", "lagging-snapshots", "lagging-snapshots", "1"))
	req := ctrl.Request{NamespacedName: client.ObjectKey{Name: "lagging-snapshots"}}
	r := runReconciler(laggingSnapshots{Client: c}, c, Options{})
	if _, err := r.Reconcile(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	run := &placementv1beta1.ClusterStagedUpdateRun{}
	if err := c.Get(t.Context(), req.NamespacedName, run); err != nil {
		t.Fatal(err)
	}
	if got := meta.FindStatusCondition(run.Status.Conditions, "Initialized"); got == nil || got.Status != metav1.ConditionUnknown || got.Reason != "WaitingForCache" {
		t.Fatalf("Initialized %+v, want Unknown WaitingForCache", got)
	}
}

// laggingSnapshots has seen only the first resource snapshot of every placement.
type laggingSnapshots struct{ client.Client }

func (l laggingSnapshots) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if err := l.Client.List(ctx, list, opts...); err != nil {
		return err
	}
	if snaps, ok := list.(*placementv1beta1.ClusterResourceSnapshotList); ok {
		snaps.Items = slices.DeleteFunc(snaps.Items, func(s placementv1beta1.ClusterResourceSnapshot) bool {
			return s.Labels[placementv1beta1.ResourceIndexLabel] != "0"
		})
	}
	return nil
}
