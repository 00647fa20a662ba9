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

// Package updaterun reconciles ClusterStagedUpdateRuns and StagedUpdateRuns: it freezes the
// run's stages and clusters from the strategy and the placement's bindings, then binds the
// clusters to the run's resource snapshot stage by stage, a few at a time, with the stages'
// waits and approvals in between, and finally removes the resources from clusters the placement
// no longer picks. The decisions come from internal/rollout.
package updaterun

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/enqueue"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
)

// Options tune the update run controllers. The zero value gives the defaults.
type Options struct {
	// Client reads and writes the management cluster; nil means the manager's client.
	Client client.Client
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// RecheckInterval is how often clusters that are updating are looked at again when no event
	// arrives first; zero means 15 seconds.
	RecheckInterval time.Duration
	// MaxListedClusters is how many clusters a stage lists with their conditions; zero means
	// DefaultMaxListedClusters.
	MaxListedClusters int
}

// Reconciler holds what the ClusterStagedUpdateRun and StagedUpdateRun controllers share.
// SetupWithManager registers both.
type Reconciler struct {
	client client.Client
	// reader reads around the cache: see liveBinding.
	reader client.Reader
	// informers hold the member clusters and bindings, read in place.
	informers cache.Informers
	now       func() time.Time
	recheck   time.Duration
	maxListed int
}

// NewReconciler returns a Reconciler; SetupWithManager completes it.
func NewReconciler(opts Options) *Reconciler {
	r := &Reconciler{client: opts.Client, now: opts.Now, recheck: opts.RecheckInterval, maxListed: opts.MaxListedClusters}
	if r.now == nil {
		r.now = time.Now
	}
	if r.recheck <= 0 {
		r.recheck = 15 * time.Second
	}
	return r
}

// kindReconciler is the controller of the update runs of one family.
type kindReconciler struct {
	*Reconciler
	family   placementv1beta1.Family
	recorder events.EventRecorder
}

func newKindReconciler(r *Reconciler, f placementv1beta1.Family) *kindReconciler {
	return &kindReconciler{Reconciler: r, family: f}
}

// run is a ClusterStagedUpdateRun or StagedUpdateRun being reconciled, with what it reads.
type run struct {
	placementv1beta1.UpdateRunObj
	spec   *placementv1beta1.UpdateRunSpec
	status *placementv1beta1.UpdateRunStatus
	inputs inputs
	now    metav1.Time
	// maxListed is how many clusters a stage lists with their conditions.
	maxListed int
}

// abortError is a failure that no retry can fix: the run stops for good and says why.
type abortError struct{ msg string }

func (e *abortError) Error() string { return e.msg }

func abort(msg string) error { return &abortError{msg} }

func isAbort(err error) (string, bool) {
	var a *abortError
	if errors.As(err, &a) {
		return a.msg, true
	}
	return "", false
}

// Reconcile initializes one update run, or moves it on through its stages, and writes its status.
func (r *kindReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, retErr error) {
	obj := r.family.NewUpdateRun()
	if err := r.client.Get(ctx, req.NamespacedName, obj); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !obj.GetDeletionTimestamp().IsZero() {
		// Approval requests are owned by the run and go with it; what it deployed stays.
		return ctrl.Result{}, nil
	}
	// The lock: a reconcile that read a stale run (the cache behind this controller's own last
	// write) starts over instead of writing its stale view of the stages over the newer one.
	sw, err := patch.NewStatusWriter(r.client, obj, patch.WithOptimisticLock())
	if err != nil {
		return ctrl.Result{}, err
	}
	defer sw.Write(ctx, &result, &retErr)
	ru := &run{UpdateRunObj: obj, spec: obj.UpdateRunSpec(), status: obj.UpdateRunStatus(), now: metav1.NewTime(r.now()),
		inputs: inputs{Client: r.client, informers: r.informers, family: r.family, namespace: obj.GetNamespace()}, maxListed: r.maxListedClusters()}
	ru.refreshGenerations()

	res, err := r.reconcileRun(ctx, ru)
	ru.countStages()
	if msg, ok := isAbort(err); ok {
		r.fail(ru, msg)
		return ctrl.Result{}, nil
	}
	return res, err
}

func (r *kindReconciler) reconcileRun(ctx context.Context, ru *run) (ctrl.Result, error) {
	switch c := meta.FindStatusCondition(ru.status.Conditions, string(placementv1beta1.StagedUpdateRunConditionInitialized)); {
	case c == nil || c.Status == metav1.ConditionUnknown:
		if err := r.initialize(ctx, ru); err != nil {
			var wait *waitError
			if errors.As(err, &wait) {
				ru.setCondition(placementv1beta1.StagedUpdateRunConditionInitialized, metav1.ConditionUnknown, wait.reason, wait.msg)
				return ctrl.Result{RequeueAfter: time.Second}, nil
			}
			if msg, ok := isAbort(err); ok {
				ru.setCondition(placementv1beta1.StagedUpdateRunConditionInitialized, metav1.ConditionFalse,
					placementv1beta1.UpdateRunInitializeFailedReason, msg)
				r.event(ru, corev1.EventTypeWarning, placementv1beta1.UpdateRunInitializeFailedReason, msg)
				return ctrl.Result{}, nil
			}
			return ctrl.Result{}, err
		}
		msg := r.family.UpdateRunKind() + " initialized successfully"
		if ru.bounded() {
			msg += fmt.Sprintf("; a stage of more than %d clusters lists only its started clusters in clusters, "+
				"up to %d, and counts them all in clusterCounts", ru.maxListed, ru.maxListed)
		}
		ru.setCondition(placementv1beta1.StagedUpdateRunConditionInitialized, metav1.ConditionTrue,
			placementv1beta1.UpdateRunInitializeSucceededReason, msg)
		r.event(ru, corev1.EventTypeNormal, placementv1beta1.UpdateRunInitializeSucceededReason, msg)
	case c.Status == metav1.ConditionFalse:
		return ctrl.Result{}, nil // failed to initialize, for good
	}
	if meta.FindStatusCondition(ru.status.Conditions, string(placementv1beta1.StagedUpdateRunConditionSucceeded)) != nil {
		return ctrl.Result{}, nil // finished
	}
	switch ru.spec.State {
	case placementv1beta1.StateInitialize:
		return ctrl.Result{}, nil
	case placementv1beta1.StateStop:
		return r.execute(ctx, ru, true)
	default: // Run, or unset: a run created without a state runs, as in Kubefleet's walkthrough
		return r.execute(ctx, ru, false)
	}
}

// fail ends the run: Succeeded and Progressing False with the reason.
func (r *kindReconciler) fail(ru *run, msg string) {
	ru.setCondition(placementv1beta1.StagedUpdateRunConditionProgressing, metav1.ConditionFalse, placementv1beta1.UpdateRunFailedReason, msg)
	ru.setCondition(placementv1beta1.StagedUpdateRunConditionSucceeded, metav1.ConditionFalse, placementv1beta1.UpdateRunFailedReason, msg)
	r.event(ru, corev1.EventTypeWarning, placementv1beta1.UpdateRunFailedReason, msg)
}

func (r *kindReconciler) event(ru *run, eventType, reason, msg string) {
	if r.recorder != nil {
		r.recorder.Eventf(ru.UpdateRunObj, nil, eventType, reason, "UpdateRun", "%s", msg)
	}
}

// SetupWithManager completes the reconciler from mgr and registers two controllers with it,
// "clusterstagedupdaterun" and "stagedupdaterun".
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.client == nil {
		r.client = mgr.GetClient()
	}
	r.reader = mgr.GetAPIReader()
	r.informers = mgr.GetCache()
	for _, f := range placementv1beta1.Families() {
		if err := newKindReconciler(r, f).setup(mgr); err != nil {
			return fmt.Errorf("setting up the %s controller: %w", f.UpdateRunKind(), err)
		}
	}
	return nil
}

// setup registers the controller of one family. It runs on changes of its runs, of their
// approval requests (an approval moves the run on at once), of the bindings of their placements
// (a cluster that becomes available frees its slot at once) and of their strategies (deny
// windows).
func (r *kindReconciler) setup(mgr ctrl.Manager) error {
	name := strings.ToLower(r.family.UpdateRunKind())
	r.recorder = mgr.GetEventRecorder("stagecoach.dev/" + name + "-controller")
	return ctrl.NewControllerManagedBy(mgr).
		For(r.family.NewUpdateRun()).
		Watches(r.family.NewApprovalRequest(), handler.EnqueueRequestsFromMapFunc(r.runOfApproval)).
		Watches(r.family.NewBinding(), enqueue.Paced(handler.EnqueueRequestsFromMapFunc(r.runsOfBinding), enqueue.FleetPace)).
		Watches(r.family.NewUpdateStrategy(), handler.EnqueueRequestsFromMapFunc(r.runsOfStrategy)).
		Named(name).
		Complete(r)
}

func (r *kindReconciler) runOfApproval(_ context.Context, obj client.Object) []reconcile.Request {
	a, ok := obj.(placementv1beta1.ApprovalRequestObj)
	if !ok {
		return nil
	}
	parent := a.ApprovalRequestSpec().TargetUpdateRun
	if parent == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: obj.GetNamespace(), Name: parent}}}
}

// runsOfBinding maps a binding to the unfinished runs of its placement.
func (r *kindReconciler) runsOfBinding(ctx context.Context, obj client.Object) []reconcile.Request {
	placement := obj.GetLabels()[placementv1beta1.PlacementTrackingLabel]
	if placement == "" {
		return nil
	}
	return r.unfinishedRuns(ctx, obj.GetNamespace(), func(spec *placementv1beta1.UpdateRunSpec) bool { return spec.PlacementName == placement })
}

// runsOfStrategy maps a strategy to the unfinished runs that follow it: its deny windows apply
// to them as they change.
func (r *kindReconciler) runsOfStrategy(ctx context.Context, obj client.Object) []reconcile.Request {
	return r.unfinishedRuns(ctx, obj.GetNamespace(), func(spec *placementv1beta1.UpdateRunSpec) bool {
		return spec.StagedUpdateStrategyName == obj.GetName()
	})
}

// unfinishedRuns lists the runs in namespace that have not finished and whose spec matches.
func (r *kindReconciler) unfinishedRuns(ctx context.Context, namespace string, match func(*placementv1beta1.UpdateRunSpec) bool) []reconcile.Request {
	list := r.family.NewUpdateRunList()
	// Called for every binding's event: the runs, whose status lists thousands of clusters, are
	// read from the cache, not copied.
	if err := r.client.List(ctx, list, client.InNamespace(namespace), client.UnsafeDisableDeepCopy); err != nil {
		return nil
	}
	var reqs []reconcile.Request
	for _, o := range list.UpdateRunObjs() {
		if match(o.UpdateRunSpec()) &&
			meta.FindStatusCondition(o.UpdateRunStatus().Conditions, string(placementv1beta1.StagedUpdateRunConditionSucceeded)) == nil {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(o)})
		}
	}
	return reqs
}
