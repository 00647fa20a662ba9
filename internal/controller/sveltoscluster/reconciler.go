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

// Package sveltoscluster keeps the status of SveltosClusters current: it probes each cluster's
// API server at a regular interval, and at once when the SveltosCluster or its kubeconfig Secret
// changes, and reports ready, connectionStatus, version and failureMessage.
package sveltoscluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/shard"
)

// Options tune the controller, as every controller that probes clusters is tuned.
type Options = fleet.ProberOptions

// Event reasons, on Healthy↔Down transitions of status.connectionStatus.
const (
	reasonConnectionHealthy = "ConnectionHealthy"
	reasonConnectionDown    = "ConnectionDown"
	// reasonReadinessCheckFailed: the API server answers, but a readiness check does not pass.
	reasonReadinessCheckFailed = "ReadinessCheckFailed"
)

// Reconciler probes SveltosClusters.
type Reconciler struct {
	// shard is the shard whose clusters this replica probes.
	shard  shard.Key
	fleet  *fleet.Cache
	census *shard.Census
	client client.Client
	// reader reads kubeconfig Secrets past the cache, for token renewal.
	reader   client.Reader
	recorder recorder.EventRecorder
	probe    fleet.ProbeOptions
	warned   patch.Warnings
	now      func() time.Time
}

// NewReconciler returns a Reconciler; SetupWithManager completes it.
func NewReconciler(opts Options) *Reconciler {
	return &Reconciler{fleet: opts.Clusters, shard: opts.Shard, probe: opts.Probe.WithDefaults(), now: time.Now}
}

// SetupWithManager completes the reconciler from mgr and registers it: it reconciles
// SveltosClusters when their spec changes, when their kubeconfig Secret changes, and every
// probe interval.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.client = mgr.GetClient()
	r.reader = mgr.GetAPIReader()
	r.recorder = mgr.GetEventRecorder("stagecoach.dev/sveltoscluster-controller")
	err := mgr.GetFieldIndexer().IndexField(context.Background(), &libv1beta1.SveltosCluster{},
		fleet.KubeconfigSecretField, fleet.KubeconfigSecretIndexKeys)
	if err != nil {
		return fmt.Errorf("indexing SveltosClusters by kubeconfig Secret: %w", err)
	}
	if r.census, err = shard.NewCensus(context.Background(), mgr.GetCache(), &libv1beta1.SveltosCluster{}, r.shard); err != nil {
		return fmt.Errorf("counting SveltosClusters: %w", err)
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("sveltoscluster").
		// Status updates, our own included, need no probe: the interval brings the next one.
		For(&libv1beta1.SveltosCluster{}, builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{}, shard.Moved))).
		WatchesMetadata(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.clustersOfSecret)).
		WithOptions(controller.Options{MaxConcurrentReconciles: r.probe.MaxConcurrentProbes}).
		Complete(r)
}

// Reconcile probes one SveltosCluster and records the outcome in its status.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, retErr error) {
	ref := fleet.ClusterRef{Kind: fleet.KindSveltosCluster, Namespace: req.Namespace, Name: req.Name}
	cluster := &libv1beta1.SveltosCluster{}
	err := r.client.Get(ctx, req.NamespacedName, cluster)
	if err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	// A cluster that is gone, or that another replica's shard serves, is let go.
	if err != nil || !r.shard.Owns(cluster) {
		r.fleet.Forget(ref)
		if err != nil {
			return ctrl.Result{}, r.forgetRenewed(ctx, ref)
		}
		return ctrl.Result{}, nil
	}
	// A cluster being deleted is no longer offered to deployments; its connection stays cached
	// until it is gone, for whoever cleans up after it.
	if !cluster.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}

	was := cluster.Status.ConnectionStatus
	sw, err := patch.NewStatusWriter(r.client, cluster)
	if err != nil {
		return ctrl.Result{}, err
	}
	defer func() {
		if sw.Write(ctx, &result, &retErr) {
			r.reportTransition(ctx, was, cluster)
		}
	}()

	wasReady := cluster.Status.Ready
	// A cluster probed minutes apart keeps no connection open in between.
	release := r.probe.Interval(r.census.Len(), false) > fleet.KeepIdleFor
	// The same cluster registered as a MemberCluster shares its answers (ProbeShared).
	version, err := r.fleet.ProbeShared(ctx, ref, r.probe.ProbeTimeout, release, r.probe.ProbeInterval)
	answered := err == nil
	if _, ok := fleet.AsClusterError(err); err != nil && !ok {
		// The management cluster could not be read, or we are shutting down: nothing was learnt
		// about the managed cluster.
		return ctrl.Result{}, err
	}
	notReady, outcome, err := r.check(ctx, ref, cluster, wasReady, err)
	if err != nil {
		return ctrl.Result{}, err
	}
	observe(&cluster.Status, failureThreshold(cluster), version, outcome)
	if notReady != "" {
		cluster.Status.Ready, cluster.Status.FailureMessage = false, &notReady
	}
	r.warn(cluster, reasonReadinessCheckFailed, notReady)
	next, problem, err := r.followWindow(ctx, cluster)
	if err != nil {
		return ctrl.Result{}, err
	}
	if problem != "" {
		cluster.Status.FailureMessage = &problem
	}
	r.warn(cluster, reasonInvalidActiveWindow, problem)
	var renewIn time.Duration
	if answered {
		var renewal string
		renewIn, renewal = r.renewToken(ctx, ref, cluster)
		if renewal != "" {
			cluster.Status.FailureMessage = &renewal
		}
		r.warn(cluster, reasonTokenRenewalFailed, renewal)
	}
	requeue := wait.Jitter(r.probe.Interval(r.census.Len(), outcome != nil), 0.1)
	if !next.IsZero() {
		requeue = min(requeue, max(next.Sub(r.now()), 0)+time.Second)
	}
	if renewIn > 0 {
		requeue = min(requeue, renewIn)
	}
	return ctrl.Result{RequeueAfter: requeue}, nil
}

// check runs the cluster's checks once its API server answered (probeErr nil): readiness checks
// until the cluster is ready, then liveness checks. It returns why a cluster that answers is not
// ready yet, and the probe's outcome with a failing liveness check counted as a failed probe.
// The error is for a context that ended.
func (r *Reconciler) check(ctx context.Context, ref fleet.ClusterRef, c *libv1beta1.SveltosCluster, wasReady bool, probeErr error) (notReady string, outcome, err error) {
	if probeErr != nil {
		return "", probeErr, nil
	}
	if !wasReady {
		msg, err := r.failedCheck(ctx, ref, readiness, c.Spec.ReadinessChecks)
		if msg != "" || err != nil {
			return msg, nil, err
		}
	}
	msg, err := r.failedCheck(ctx, ref, liveness, c.Spec.LivenessChecks)
	if err != nil || msg == "" {
		return "", nil, err
	}
	return "", errors.New(msg), nil
}

// warn records a Warning Event once per new message of reason; an empty message clears it.
func (r *Reconciler) warn(c *libv1beta1.SveltosCluster, reason, msg string) {
	if msg == "" {
		r.warned.Clear(c.UID, reason)
		return
	}
	if r.warned.New(c.UID, reason, msg) {
		r.recorder.Eventf(c, nil, corev1.EventTypeWarning, reason, "Check", "%s", msg)
	}
}

// reportTransition logs and records an Event when the connection changed between Healthy and
// Down.
func (r *Reconciler) reportTransition(ctx context.Context, was libv1beta1.ConnectionStatus, cluster *libv1beta1.SveltosCluster) {
	now := cluster.Status.ConnectionStatus
	if now == was {
		return
	}
	log := ctrl.LoggerFrom(ctx)
	switch now {
	case libv1beta1.ConnectionHealthy:
		log.Info("cluster is reachable", "version", cluster.Status.Version)
		r.recorder.Eventf(cluster, nil, corev1.EventTypeNormal, reasonConnectionHealthy, "Probe",
			"The API server answers (Kubernetes %s)", cluster.Status.Version)
	case libv1beta1.ConnectionDown:
		msg := failureMessage(cluster.Status)
		log.Info("cluster is down", "failures", cluster.Status.ConnectionFailures, "reason", msg)
		r.recorder.Eventf(cluster, nil, corev1.EventTypeWarning, reasonConnectionDown, "Probe",
			"%d probes in a row failed: %s", cluster.Status.ConnectionFailures, msg)
	}
}

// clustersOfSecret maps a Secret to the SveltosClusters whose kubeconfig it holds.
func (r *Reconciler) clustersOfSecret(ctx context.Context, secret client.Object) []reconcile.Request {
	list := &libv1beta1.SveltosClusterList{}
	err := r.client.List(ctx, list, client.InNamespace(secret.GetNamespace()),
		client.MatchingFields{fleet.KubeconfigSecretField: secret.GetNamespace() + "/" + secret.GetName()})
	if err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "listing the SveltosClusters of a Secret", "secret", client.ObjectKeyFromObject(secret))
		return nil
	}
	requests := make([]reconcile.Request, 0, len(list.Items))
	for _, c := range list.Items {
		requests = append(requests, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&c)})
	}
	return requests
}
