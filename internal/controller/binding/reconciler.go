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

// Package binding applies what ClusterResourceBindings and ResourceBindings bind: a Bound
// binding's resource snapshot group is deployed to its member cluster with the shared deploy
// engine, its availability tracked with Kubefleet's rules and reported in the binding's Applied
// and Available conditions; a deleted binding's resources are withdrawn.
package binding

import (
	"cmp"
	"context"
	"sync"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/shard"
)

// Defaults of the Reconciler's intervals.
const (
	DefaultAvailabilityInterval = 2 * time.Second
	DefaultResyncInterval       = 30 * time.Second
	DefaultMaxResyncRate        = 20
	DefaultMaxBackoff           = 30 * time.Second
	DefaultMaxConcurrency       = 8
)

// Event reasons.
const (
	reasonApplyFailed = "ApplyFailed"
	// reasonDiffNotReported: with apply type ReportDiff, the differences could not be worked out.
	reasonDiffNotReported = "DiffNotReported"
	reasonAvailable       = "Available"
	reasonWithdrawn       = "Withdrawn"
	reasonWithdrawFailed  = "WithdrawFailed"
	reasonAbandoned       = "Abandoned"
)

// Options tune the binding controllers. Clusters is required; the zero value of every other
// field gives its default.
type Options struct {
	// Client reads and writes the management cluster; nil means the manager's client.
	Client client.Client
	// Clusters connects to member clusters.
	Clusters *fleet.Cache
	// Shard is the shard whose clusters this replica applies to.
	Shard shard.Key
	// AvailabilityInterval is how often a binding whose resources are applied but not all
	// available is checked again.
	AvailabilityInterval time.Duration
	// ResyncInterval is how often a Bound binding is applied again, which reverts changes made
	// on the member cluster (drift) and recreates what was deleted there.
	ResyncInterval time.Duration
	// MaxResyncRate caps those applies per second, for each binding kind: a fleet with more
	// bindings than ResyncInterval allows at this rate is resynced less often (20,000 bindings
	// at 20 per second: every 1,000 s), so that reverting drift never crowds out a rollout.
	// A negative rate sets no cap.
	MaxResyncRate float64
	// MaxBackoff caps the wait between failed attempts, which doubles from one second.
	MaxBackoff time.Duration
	// MaxConcurrentReconciles is per binding kind; applying is mostly waiting on member clusters.
	MaxConcurrentReconciles int
}

// Reconciler applies bindings of both kinds to their member clusters. Build it with
// NewReconciler; SetupWithManager registers one controller per kind.
type Reconciler struct {
	client   client.Client
	recorder events.EventRecorder
	clusters *fleet.Cache
	shard    shard.Key
	// informers hold the bindings, counted in place to pace resyncs; nil counts none.
	informers cache.Informers
	// availability, resync, maxResyncRate, maxBackoff and concurrency are the Options' intervals
	// and limits, defaults filled in.
	availability  time.Duration
	resync        time.Duration
	maxResyncRate float64
	maxBackoff    time.Duration
	concurrency   int
}

// NewReconciler returns a Reconciler; SetupWithManager completes it.
func NewReconciler(opts Options) *Reconciler {
	return &Reconciler{
		client:        opts.Client,
		clusters:      opts.Clusters,
		shard:         opts.Shard,
		availability:  cmp.Or(opts.AvailabilityInterval, DefaultAvailabilityInterval),
		resync:        cmp.Or(opts.ResyncInterval, DefaultResyncInterval),
		maxResyncRate: cmp.Or(opts.MaxResyncRate, DefaultMaxResyncRate),
		maxBackoff:    cmp.Or(opts.MaxBackoff, DefaultMaxBackoff),
		concurrency:   cmp.Or(opts.MaxConcurrentReconciles, DefaultMaxConcurrency),
	}
}

// kindReconciler reconciles the bindings of one kind.
type kindReconciler struct {
	*Reconciler
	family placementv1beta1.Family
	memo   *memo

	// restored holds the UIDs of the bindings taken over after a restart (restoredWait).
	restored sync.Map
	// count is how many bindings of the kind the cache held at counted (known).
	countMu sync.Mutex
	count   int
	counted time.Time
}

func (r *kindReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, retErr error) {
	b := r.family.NewBinding()
	if err := r.client.Get(ctx, req.NamespacedName, b); err != nil {
		if apierrors.IsNotFound(err) {
			r.memo.forget(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if owned, err := r.owns(ctx, b); err != nil || !owned {
		return ctrl.Result{}, err
	}
	spec := b.BindingSpec()
	ctx = logr.NewContext(ctx, logr.FromContextOrDiscard(ctx).WithValues(
		"cluster", spec.TargetCluster, "state", spec.State, "snapshot", spec.ResourceSnapshotName))
	// The optimistic lock keeps a concurrent write of the conditions other controllers own
	// (RolloutStarted) from being overwritten by this whole-list patch.
	sw, err := patch.NewStatusWriter(r.client, b, patch.WithOptimisticLock())
	if err != nil {
		return ctrl.Result{}, err
	}
	defer sw.Write(ctx, &result, &retErr)
	if !b.GetDeletionTimestamp().IsZero() {
		return r.reconcileDelete(ctx, b)
	}
	apply, err := r.applies(ctx, b)
	if err != nil {
		return ctrl.Result{}, err
	}
	switch {
	case apply:
		if !controllerutil.ContainsFinalizer(b, placementv1beta1.BindingFinalizer) {
			// Before anything is applied, so that whatever gets applied is withdrawn one day.
			if err := patch.AddFinalizer(ctx, r.client, b, placementv1beta1.BindingFinalizer); err != nil {
				return ctrl.Result{}, err
			}
		}
		return r.reconcileBound(ctx, b)
	case spec.State == placementv1beta1.BindingStateUnscheduled:
		return r.reconcileUnscheduled(ctx, b)
	}
	// Scheduled: the cluster is picked, nothing is bound to it yet. Whatever an earlier state
	// applied stays as it is.
	r.memo.forget(req.NamespacedName)
	return ctrl.Result{}, nil
}

// owns reports whether the binding's member cluster belongs to the shard this replica serves;
// the replicas of other shards leave the binding to that shard's.
func (r *kindReconciler) owns(ctx context.Context, b placementv1beta1.BindingObj) (bool, error) {
	mc := &clusterv1beta1.MemberCluster{}
	err := r.client.Get(ctx, client.ObjectKey{Name: b.BindingSpec().TargetCluster}, mc)
	if apierrors.IsNotFound(err) {
		return r.shard.Owns(nil), nil
	}
	return err == nil && r.shard.Owns(mc), err
}

// applies reports whether the binding's snapshot is to be applied: it is Bound, or it is
// Unscheduled while its placement lives. As in Kubefleet, a cluster keeps what an Unscheduled
// binding gave it until the binding is deleted — by the placement's rolling update, within
// maxUnavailable and maxSurge, or by an update run's deletion stage — so that dropping a cluster
// follows the same rollout rules as adding one.
func (r *kindReconciler) applies(ctx context.Context, b placementv1beta1.BindingObj) (bool, error) {
	spec := b.BindingSpec()
	switch {
	case spec.State == placementv1beta1.BindingStateBound:
		return true, nil
	case spec.State != placementv1beta1.BindingStateUnscheduled || spec.ResourceSnapshotName == "":
		return false, nil
	}
	return r.placementLive(ctx, b)
}

// backoff is how long to wait after n failed attempts in a row.
func (r *kindReconciler) backoff(n int) time.Duration {
	d := time.Second
	for i := 1; i < n && d < r.maxBackoff; i++ {
		d *= 2
	}
	return min(d, r.maxBackoff)
}

func memberRef(name string) fleet.ClusterRef {
	return fleet.ClusterRef{Kind: fleet.KindMemberCluster, Name: name}
}
