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

// Package placement reconciles Kubefleet placements: ClusterResourcePlacements and
// ResourcePlacements. One reconciler design serves both, reaching their kinds through their
// placementv1beta1.Family. A pass
// selects the hub resources and records them as a resource snapshot, records the scheduling
// policy as a policy snapshot, picks member clusters and keeps one binding per picked cluster,
// and, with strategy RollingUpdate, binds those bindings to the newest resource snapshot a few
// at a time. With strategy External it stops after scheduling: staged update runs bind.
//
// The binding controller applies what a binding names and reports back in the binding's status,
// which this controller aggregates into the placement's status.
package placement

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
	"github.com/stagecoach-dev/stagecoach/internal/override"
	"github.com/stagecoach-dev/stagecoach/internal/scheduling"
)

// Options tune the placement controllers. The zero value gives the defaults.
type Options struct {
	// Resync is how often a placement is reconciled without any event, which catches edits of
	// hub resources of kinds that are not watched. One minute when zero.
	Resync time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// MaxListedClusters is how many entries placementStatuses lists; zero means
	// DefaultMaxListedClusters.
	MaxListedClusters int
}

// Reconciler holds what the ClusterResourcePlacement and ResourcePlacement controllers share.
// SetupWithManager registers both.
type Reconciler struct {
	client    client.Client
	informers cache.Informers // the member clusters, read in place
	reader    client.Reader
	mapper    meta.RESTMapper
	discovery *discoveryCache
	recorder  events.EventRecorder
	now       func() time.Time
	resync    time.Duration
	maxListed int
}

// NewReconciler returns a Reconciler; SetupWithManager completes it.
func NewReconciler(opts Options) *Reconciler {
	r := &Reconciler{now: opts.Now, resync: opts.Resync, maxListed: opts.MaxListedClusters}
	if r.now == nil {
		r.now = time.Now
	}
	if r.resync <= 0 {
		r.resync = time.Minute
	}
	return r
}

// SetupWithManager registers two controllers with mgr, "clusterresourceplacement" and
// "resourceplacement".
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.client = mgr.GetClient()
	r.informers = mgr.GetCache()
	r.reader = mgr.GetAPIReader()
	r.mapper = mgr.GetRESTMapper()
	r.recorder = mgr.GetEventRecorder("stagecoach.dev/placement-controller")
	dc, err := discovery.NewDiscoveryClientForConfig(mgr.GetConfig())
	if err != nil {
		return err
	}
	r.discovery = &discoveryCache{client: dc, ttl: time.Minute}
	for _, f := range placementv1beta1.Families() {
		if err := newKindReconciler(r, f).setup(mgr); err != nil {
			return fmt.Errorf("setting up the %s controller: %w", f.PlacementKind(), err)
		}
	}
	return nil
}

// Event reasons.
const (
	reasonResourceSnapshotCreated = "ResourceSnapshotCreated"
	reasonPolicySnapshotCreated   = "PolicySnapshotCreated"
	reasonClustersScheduled       = "ClustersScheduled"
	reasonClustersUnscheduled     = "ClustersUnscheduled"
	reasonSchedulingFailed        = "SchedulingFailed"
	reasonInvalidSelectors        = placementv1beta1.InvalidResourceSelectorsReason
	reasonRolloutStarted          = "RolloutStarted"
	reasonBindingDeleted          = "BindingDeleted"
	reasonRolloutCompleted        = "RolloutCompleted"
	reasonReconcileFailed         = "ReconcileFailed"
)

// errHalt ends a pass early without an error: the status says why, and only a change of the
// placement, a member or a selected resource can help.
var errHalt = errors.New("halted")

// pass is what one reconcile of one placement learns, phase by phase.
type pass struct {
	p placementv1beta1.PlacementObj
	// spec is the placement's spec with the API defaults filled in.
	spec placementv1beta1.PlacementSpec

	selection *selection
	// snapshots are the placement's resource snapshots, master (the newest) its latest group's
	// first snapshot and index that group's index.
	snapshots []placementv1beta1.ResourceSnapshotObj
	master    placementv1beta1.ResourceSnapshotObj
	index     int

	policy   placementv1beta1.PolicySnapshotObj
	schedule scheduling.Result
	// bindings are the placement's bindings as written by this pass, by cluster name.
	bindings []placementv1beta1.BindingObj
	// overrides are, for a RollingUpdate, the override snapshots each cluster is to get.
	overrides map[string]override.Names
	// waiting explains, per cluster, why a RollingUpdate holds its binding back.
	waiting map[string]string
	// requeue, when positive, is when the pass must run again even without an event.
	requeue time.Duration
}

func (ps *pass) requeueAt(d time.Duration) {
	if d > 0 && (ps.requeue == 0 || d < ps.requeue) {
		ps.requeue = d
	}
}

// Reconcile runs one pass for one placement and writes its status.
func (r *kindReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, retErr error) {
	p := r.family.NewPlacement()
	if err := r.client.Get(ctx, req.NamespacedName, p); err != nil {
		if apierrors.IsNotFound(err) {
			r.forgetNamespaces(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	before := p.DeepCopyObject().(placementv1beta1.PlacementObj)
	sw, err := patch.NewStatusWriter(r.client, p, patch.WithOptimisticLock())
	if err != nil {
		return ctrl.Result{}, err
	}
	defer func() {
		if crp := namespaceAccessible(p); crp != nil && retErr == nil && p.GetDeletionTimestamp().IsZero() && statusNamespaceProblem(crp) == "" {
			retErr = r.syncNamespaceStatus(ctx, crp)
		}
		sw.Write(ctx, &result, &retErr)
		if retErr != nil && ctx.Err() == nil {
			// Retried with backoff; the event tells whoever looks at the placement why nothing
			// moves.
			r.recorder.Eventf(p, nil, corev1.EventTypeWarning, reasonReconcileFailed, "Reconcile", "%s", retErr.Error())
		}
	}()

	if !p.GetDeletionTimestamp().IsZero() {
		return r.finalize(ctx, p)
	}
	if err := patch.AddFinalizer(ctx, r.client, p, r.family.PlacementFinalizer()); err != nil {
		return ctrl.Result{}, err
	}

	ps := &pass{p: p, spec: withDefaults(p.PlacementSpec())}
	for _, phase := range []func(context.Context, *pass) error{
		r.supportedPhase, r.namespacePhase, r.selectPhase, r.snapshotPhase, r.policyPhase, r.schedulePhase, r.overridePhase, r.rolloutPhase,
	} {
		if err := phase(ctx, ps); errors.Is(err, errHalt) {
			return ctrl.Result{RequeueAfter: r.resync}, nil
		} else if err != nil {
			return ctrl.Result{}, err
		}
	}
	r.setStatus(ps)
	available := r.family.PlacementConditions().Available
	if c := meta.FindStatusCondition(p.PlacementStatus().Conditions, available); c != nil && c.Status == metav1.ConditionTrue &&
		!meta.IsStatusConditionTrue(before.PlacementStatus().Conditions, available) {
		r.recorder.Eventf(p, nil, corev1.EventTypeNormal, reasonRolloutCompleted, "Rollout", "%s", c.Message)
	}
	ps.requeueAt(r.resync)
	return ctrl.Result{RequeueAfter: ps.requeue}, nil
}

// setCondition sets a placement condition for the current generation.
func setCondition(p placementv1beta1.PlacementObj, condType string, status metav1.ConditionStatus, reason, message string) {
	patch.SetCondition(&p.PlacementStatus().Conditions, p.GetGeneration(), condType, status, reason, message)
}
