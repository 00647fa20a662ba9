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

// Package clustersummary reconciles ClusterSummaries: it deploys one profile's Helm charts and
// manifests to one cluster, reports each feature's state, and withdraws the content when the
// summary goes away.
package clustersummary

import (
	"cmp"
	"context"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/helm"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/shard"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

// Options tune the ClusterSummary controller. Clusters and Helm are required.
type Options struct {
	// Client reads and writes the management cluster; nil means the manager's client.
	Client client.Client
	// Clusters connects to managed clusters.
	Clusters *fleet.Cache
	// Shard is the shard whose clusters this replica deploys to.
	Shard shard.Key
	// Helm deploys charts; its chart cache is shared by every cluster.
	Helm *helm.Deployer
	// Management is a connection to the management cluster itself, where policyRefs with
	// deploymentType Local deploy.
	Management *fleet.Remote
	// LocalAsController lets deploymentType Local content of a profile that names no
	// ServiceAccount be deployed with the controller's own identity.
	LocalAsController bool
	// Tenants reads what a tenant's profile references as its ServiceAccount; nil means one
	// made from Client and Management.
	Tenants *tenancy.Tenants
	// DriftInterval is how often ContinuousWithDriftDetection compares the cluster with what
	// was deployed.
	DriftInterval time.Duration
	// HealthInterval is how often a deployed feature whose health checks do not pass yet is
	// checked again, and how often the checks of a promotion stage's features run again.
	HealthInterval time.Duration
	// MaxRecheckRate caps how many summaries whose checks pass have them run again each
	// second: with more promotion stage summaries than that rate checks every HealthInterval,
	// each is checked less often. Zero means DefaultMaxRecheckRate; negative, no cap.
	MaxRecheckRate float64
	// NotReadyInterval is how often a summary whose cluster is unreachable looks again, on top
	// of the cluster's own status changes, which wake it at once.
	NotReadyInterval time.Duration
	// MaxConcurrentReconciles is how many summaries are reconciled at once. Deploying is mostly
	// waiting on managed clusters, so this bounds how many clusters are deployed to at a time;
	// zero means DefaultMaxConcurrency.
	MaxConcurrentReconciles int
}

// Reconciler reconciles ClusterSummaries.
type Reconciler struct {
	client            client.Client
	recorder          events.EventRecorder
	fleet             *fleet.Cache
	shard             shard.Key
	helm              *helm.Deployer
	management        *fleet.Remote
	localAsController bool
	tenants           *tenancy.Tenants
	clusters          clusterLocks
	// driftInterval, healthInterval, notReadyInterval and concurrency are the Options'.
	driftInterval    time.Duration
	healthInterval   time.Duration
	notReadyInterval time.Duration
	concurrency      int
	recheck          recheckPace
}

// NewReconciler returns a Reconciler; SetupWithManager completes it.
func NewReconciler(opts Options) *Reconciler {
	return &Reconciler{
		client:            opts.Client,
		fleet:             opts.Clusters,
		shard:             opts.Shard,
		helm:              opts.Helm,
		management:        opts.Management,
		localAsController: opts.LocalAsController,
		tenants:           opts.Tenants,
		driftInterval:     opts.DriftInterval,
		healthInterval:    opts.HealthInterval,
		notReadyInterval:  opts.NotReadyInterval,
		concurrency:       cmp.Or(opts.MaxConcurrentReconciles, DefaultMaxConcurrency),
		recheck:           recheckPace{rate: cmp.Or(opts.MaxRecheckRate, DefaultMaxRecheckRate)},
	}
}

// DefaultMaxConcurrency is how many summaries are reconciled at once by default.
const DefaultMaxConcurrency = 32

// Reconcile deploys one summary's features to its cluster, or withdraws them when it is being
// deleted, and writes the outcome of each feature to its status.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, retErr error) {
	cs := &configv1beta1.ClusterSummary{}
	if err := r.client.Get(ctx, req.NamespacedName, cs); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if owned, err := r.owns(ctx, cs); err != nil || !owned {
		return ctrl.Result{}, err
	}
	unlock, err := r.clusters.lock(ctx, clusterRef(cs).String())
	if err != nil {
		return ctrl.Result{}, err
	}
	defer unlock()
	sw, err := patch.NewStatusWriter(r.client, cs, patch.WithOptimisticLock())
	if err != nil {
		return ctrl.Result{}, err
	}
	defer sw.Write(ctx, &result, &retErr)

	if !cs.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, cs)
	}
	if err := patch.AddFinalizer(ctx, r.client, cs, configv1beta1.ClusterSummaryFinalizer); err != nil {
		return ctrl.Result{}, err
	}
	// Until the features are deployed, observedGeneration keeps saying which spec the status
	// describes: Provisioned reads it.
	res, deployed, err := r.reconcileNormal(ctx, cs, sw.Flush)
	if !deployed {
		sw.NotObserved()
	}
	return res, err
}

// reconcileNormal deploys the summary's features unless something holds them back (a pause, the
// cluster, a dependency), and reports whether it deployed.
func (r *Reconciler) reconcileNormal(ctx context.Context, cs *configv1beta1.ClusterSummary, flush func(context.Context) error) (ctrl.Result, bool, error) {
	if _, paused := cs.Annotations[configv1beta1.ProfilePausedAnnotation]; paused {
		suspend(&cs.Status, "the profile is paused")
		return ctrl.Result{}, false, nil
	}
	gate, err := checkCluster(ctx, r.client, cs)
	if err != nil {
		return ctrl.Result{}, false, err
	}
	if gate.paused {
		suspend(&cs.Status, gate.reason)
		return ctrl.Result{}, false, nil
	}
	cs.Status.ReconciliationSuspended, cs.Status.SuspensionReason = false, nil
	if !gate.ok {
		cs.Status.FailureMessage = &gate.reason
		return ctrl.Result{RequeueAfter: r.notReadyInterval}, false, nil
	}
	ok, deps, err := checkDependencies(ctx, r.client, cs)
	if err != nil {
		return ctrl.Result{}, false, err
	}
	cs.Status.Dependencies = &deps
	if !ok {
		cs.Status.FailureMessage = nil
		return ctrl.Result{}, false, nil // a dependency's summary changing wakes this one
	}
	rd, err := r.readers(ctx, cs)
	if err != nil {
		// Tenant labels that name nobody valid: nothing is deployed until they are fixed.
		msg := err.Error()
		cs.Status.FailureMessage = &msg
		r.recorder.Eventf(cs, nil, corev1.EventTypeWarning, "TenantRefused", "Deploy", "%s", msg)
		if tenancy.IsRefused(err) {
			return ctrl.Result{}, false, nil
		}
		return ctrl.Result{RequeueAfter: r.notReadyInterval}, false, nil
	}
	remote, err := r.fleet.Get(ctx, clusterRef(cs))
	if err != nil {
		msg := err.Error()
		cs.Status.FailureMessage = &msg
		return ctrl.Result{RequeueAfter: r.notReadyInterval}, false, nil
	}
	cs.Status.FailureMessage = nil
	res, err := r.deploy(ctx, cs, remote, rd, flush)
	return res, true, err
}

// deploy brings every feature in line with the spec and says when to look again. flush writes
// the status at once, before a feature's content changes (begin).
func (r *Reconciler) deploy(ctx context.Context, cs *configv1beta1.ClusterSummary, remote *fleet.Remote, rd tenancy.Readers,
	flush func(context.Context) error) (ctrl.Result, error) {
	if takeRetry(cs) {
		r.recorder.Eventf(cs, nil, corev1.EventTypeNormal, "Retrying", "Deploy", "retrying the failed features on the same spec (%s)", configv1beta1.RetryAnnotation)
	}
	d := &deployment{r: r, cs: cs, remote: remote, rd: rd, previous: slices.Clone(cs.Status.HelmReleaseSummaries), flush: flush}
	if _, tenant, err := configv1beta1.SummaryTenant(cs); tenant || err != nil {
		// A tenant's charts come only from where the tenant source policy allows.
		ctx = helm.ForTenant(ctx)
	}
	d.helm(ctx)
	d.resources(ctx)
	d.kustomize(ctx)
	if d.flushErr != nil {
		return ctrl.Result{}, d.flushErr
	}

	var next time.Duration
	for _, f := range cs.Status.FeatureSummaries {
		switch {
		case f.Status != libv1beta1.FeatureStatusFailed:
		case f.FailureReason != nil && *f.FailureReason == reasonHealthCheck:
			next = shortest(next, r.healthInterval)
		default:
			next = shortest(next, backoff(f.ConsecutiveFailures))
		}
	}
	if cs.Spec.ClusterProfileSpec.SyncMode == configv1beta1.SyncModeContinuousWithDriftDetection {
		next = shortest(next, r.driftInterval)
	}
	if d.rechecked() {
		next = shortest(next, r.recheckInterval(ctx))
	}
	if d.unanswered {
		next = shortest(next, r.healthInterval)
	}
	if readsUnwatched(cs) {
		next = shortest(next, r.driftInterval)
	}
	return ctrl.Result{RequeueAfter: next}, nil
}

// reconcileDelete withdraws the content (or leaves it, with LeavePolicies) and releases the
// finalizer. A cluster that no longer exists has nothing left to clean.
func (r *Reconciler) reconcileDelete(ctx context.Context, cs *configv1beta1.ClusterSummary) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(cs, configv1beta1.ClusterSummaryFinalizer) {
		return ctrl.Result{}, nil
	}
	gate, err := checkCluster(ctx, r.client, cs)
	if err != nil {
		return ctrl.Result{}, err
	}
	if gate.cluster != nil {
		remote, err := r.fleet.Get(ctx, clusterRef(cs))
		if err == nil {
			d := &deployment{r: r, cs: cs, remote: remote}
			err = d.withdraw(ctx)
		}
		if err != nil {
			msg := "withdrawing: " + err.Error()
			cs.Status.FailureMessage = &msg
			r.recorder.Eventf(cs, nil, corev1.EventTypeWarning, "WithdrawFailed", "Withdraw", "%s", msg)
			return ctrl.Result{RequeueAfter: r.notReadyInterval}, nil
		}
	}
	r.recheck.forget(cs.UID)
	return ctrl.Result{}, patch.RemoveFinalizer(ctx, r.client, cs, configv1beta1.ClusterSummaryFinalizer)
}

func clusterRef(cs *configv1beta1.ClusterSummary) fleet.ClusterRef {
	return fleet.ClusterRef{Kind: fleet.KindSveltosCluster, Namespace: cs.Spec.ClusterNamespace, Name: cs.Spec.ClusterName}
}

func suspend(st *configv1beta1.ClusterSummaryStatus, reason string) {
	st.ReconciliationSuspended = true
	st.SuspensionReason = &reason
}
