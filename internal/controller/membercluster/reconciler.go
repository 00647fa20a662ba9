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

// Package membercluster keeps the status of MemberClusters current. Kubefleet's member agents
// report from inside each cluster; Stagecoach pushes instead, so it probes each member's API
// server itself, with the kubeconfig named by the stagecoach.dev/kubeconfig-secret annotation,
// and reports the outcome as the Joined and Healthy conditions.
package membercluster

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/shard"
)

// Options tune the controller, as every controller that probes clusters is tuned.
type Options = fleet.ProberOptions

// Event reasons, on transitions of the Joined condition to True or False.
const (
	reasonConnectionHealthy = "ConnectionHealthy"
	reasonConnectionDown    = "ConnectionDown"
)

// Reconciler probes MemberClusters.
type Reconciler struct {
	// shard is the shard whose clusters this replica probes.
	shard    shard.Key
	fleet    *fleet.Cache
	census   *shard.Census
	client   client.Client
	recorder recorder.EventRecorder
	probe    fleet.ProbeOptions

	// failures counts, per MemberCluster name, the probes in a row that failed. MemberCluster
	// status has no field for it, so it lives here; after a restart the count starts again,
	// which at worst delays Joined=False by a few probes.
	mu       sync.Mutex
	failures map[string]int
	// leavingMsgs holds, per MemberCluster being deleted, the last Event about its wait.
	leavingMsgs map[string]string
}

// NewReconciler returns a Reconciler; SetupWithManager completes it.
func NewReconciler(opts Options) *Reconciler {
	return &Reconciler{fleet: opts.Clusters, shard: opts.Shard, probe: opts.Probe.WithDefaults(),
		failures: map[string]int{}, leavingMsgs: map[string]string{}}
}

// SetupWithManager completes the reconciler from mgr and registers it: it reconciles
// MemberClusters when their spec or annotations change, when their kubeconfig Secret changes,
// and every probe interval.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.client = mgr.GetClient()
	r.recorder = mgr.GetEventRecorder("stagecoach.dev/membercluster-controller")
	err := mgr.GetFieldIndexer().IndexField(context.Background(), &clusterv1beta1.MemberCluster{},
		fleet.KubeconfigSecretField, fleet.KubeconfigSecretIndexKeys)
	if err != nil {
		return fmt.Errorf("indexing MemberClusters by kubeconfig Secret: %w", err)
	}
	if r.census, err = shard.NewCensus(context.Background(), mgr.GetCache(), &clusterv1beta1.MemberCluster{}, r.shard); err != nil {
		return fmt.Errorf("counting MemberClusters: %w", err)
	}
	// The kubeconfig Secret is named by an annotation, which changes no generation.
	specOrAnnotations := predicate.Or(predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{})
	return ctrl.NewControllerManagedBy(mgr).
		Named("membercluster").
		For(&clusterv1beta1.MemberCluster{}, builder.WithPredicates(specOrAnnotations)).
		WatchesMetadata(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.clustersOfSecret)).
		WithOptions(controller.Options{MaxConcurrentReconciles: r.probe.MaxConcurrentProbes}).
		Complete(r)
}

// Reconcile probes one MemberCluster and records the outcome in its conditions.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, retErr error) {
	ref := fleet.ClusterRef{Kind: fleet.KindMemberCluster, Name: req.Name}
	cluster := &clusterv1beta1.MemberCluster{}
	err := r.client.Get(ctx, req.NamespacedName, cluster)
	if err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	// A cluster that is gone, or that another replica's shard serves, is let go.
	if err != nil || !r.shard.Owns(cluster) {
		r.fleet.Forget(ref)
		r.setFailures(req.Name, 0)
		return ctrl.Result{}, nil
	}
	// A cluster being deleted is no longer offered to placements; its connection stays cached
	// until it is gone, for whoever cleans up after it.
	if !cluster.DeletionTimestamp.IsZero() {
		return r.leave(ctx, cluster)
	}
	if err := patch.AddFinalizer(ctx, r.client, cluster, clusterv1beta1.MemberClusterFinalizer); err != nil {
		return ctrl.Result{}, err
	}

	before := cluster.DeepCopy()
	failures := 0
	// The lock: the status is a whole condition list, which others may write too.
	sw, err := patch.NewStatusWriter(r.client, cluster, patch.WithOptimisticLock())
	if err != nil {
		return ctrl.Result{}, err
	}
	defer func() {
		// Counted only once written, so that a conflict's retry does not count this probe twice.
		if sw.Write(ctx, &result, &retErr) && retErr == nil {
			r.setFailures(cluster.Name, failures)
			r.reportTransition(ctx, before, cluster)
		}
	}()

	// A cluster probed minutes apart keeps no connection open in between; the same cluster
	// registered as a SveltosCluster shares its answers (ProbeShared).
	version, err := r.fleet.ProbeShared(ctx, ref, r.probe.ProbeTimeout, r.probeInterval(cluster, false) > fleet.KeepIdleFor,
		r.probe.ProbeInterval)
	clusterErr, ok := fleet.AsClusterError(err)
	if err != nil && !ok {
		// The management cluster could not be read, or we are shutting down: nothing was learnt
		// about the member cluster.
		return ctrl.Result{}, err
	}
	if clusterErr != nil {
		failures = min(r.failuresOf(cluster.Name)+1, r.probe.FailureThreshold)
	}
	observe(cluster, r.probe.FailureThreshold, failures, version, clusterErr)
	return ctrl.Result{RequeueAfter: wait.Jitter(r.probeInterval(cluster, clusterErr != nil), 0.1)}, nil
}

// probeInterval is how often a member is probed: as fleet.ProbeOptions.Interval says, or more
// often if its heartbeatPeriodSeconds asks for it. Kubefleet's member agents report that often;
// Stagecoach, which has no agent, looks at least that often instead.
func (r *Reconciler) probeInterval(c *clusterv1beta1.MemberCluster, lastFailed bool) time.Duration {
	interval := r.probe.Interval(r.census.Len(), lastFailed)
	if hb := time.Duration(c.Spec.HeartbeatPeriodSeconds) * time.Second; hb > 0 && hb < interval {
		return hb
	}
	return interval
}

func (r *Reconciler) failuresOf(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failures[name]
}

func (r *Reconciler) setFailures(name string, n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n == 0 {
		delete(r.failures, name)
		return
	}
	r.failures[name] = n
}

// reportTransition logs and records an Event when Joined changed.
func (r *Reconciler) reportTransition(ctx context.Context, before, cluster *clusterv1beta1.MemberCluster) {
	joined := string(clusterv1beta1.ConditionTypeMemberClusterJoined)
	was, now := meta.FindStatusCondition(before.Status.Conditions, joined), meta.FindStatusCondition(cluster.Status.Conditions, joined)
	if now == nil || (was != nil && was.Status == now.Status) {
		return
	}
	log := ctrl.LoggerFrom(ctx)
	switch now.Status {
	case metav1.ConditionTrue:
		log.Info("cluster is reachable", "message", now.Message)
		r.recorder.Eventf(cluster, nil, corev1.EventTypeNormal, reasonConnectionHealthy, "Probe", "%s", now.Message)
	case metav1.ConditionFalse:
		log.Info("cluster is down", "reason", now.Reason, "message", now.Message)
		r.recorder.Eventf(cluster, nil, corev1.EventTypeWarning, reasonConnectionDown, "Probe", "%s", now.Message)
	}
}

// clustersOfSecret maps a Secret to the MemberClusters whose kubeconfig it holds.
func (r *Reconciler) clustersOfSecret(ctx context.Context, secret client.Object) []reconcile.Request {
	list := &clusterv1beta1.MemberClusterList{}
	err := r.client.List(ctx, list,
		client.MatchingFields{fleet.KubeconfigSecretField: secret.GetNamespace() + "/" + secret.GetName()})
	if err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "listing the MemberClusters of a Secret", "secret", client.ObjectKeyFromObject(secret))
		return nil
	}
	requests := make([]reconcile.Request, 0, len(list.Items))
	for _, c := range list.Items {
		requests = append(requests, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&c)})
	}
	return requests
}
