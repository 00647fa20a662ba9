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

// Package clusterprofile reconciles ClusterProfiles: it finds the clusters a profile targets and
// keeps one ClusterSummary per cluster, which the clustersummary controller deploys.
package clusterprofile

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/enqueue"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
	"github.com/stagecoach-dev/stagecoach/internal/freeze"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
	"github.com/stagecoach-dev/stagecoach/internal/targets"
)

// Reconciler reconciles ClusterProfiles.
type Reconciler struct {
	client.Client
	Recorder events.EventRecorder
	// MaxListedClusters is how many clusters each list of a profile's status names; zero means
	// DefaultMaxListedClusters.
	MaxListedClusters int

	// informers hold the fleet's clusters and summaries, read in place; set up with the manager.
	informers cache.Informers
	warned    patch.Warnings
}

// retryAfter is how soon a profile whose summaries could not all be written is retried.
const retryAfter = 5 * time.Second

// Reconcile keeps one ClusterSummary per matching cluster for a profile, rolling a change out to
// them as the profile's strategy allows, and writes the profile's status.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, retErr error) {
	profile := &configv1beta1.ClusterProfile{}
	if err := r.Get(ctx, req.NamespacedName, profile); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	sw, err := patch.NewStatusWriter(r.Client, profile, patch.WithOptimisticLock())
	if err != nil {
		return ctrl.Result{}, err
	}
	defer sw.Write(ctx, &result, &retErr)

	if !profile.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, profile)
	}
	if err := patch.AddFinalizer(ctx, r.Client, profile, configv1beta1.ClusterProfileFinalizer); err != nil {
		return ctrl.Result{}, err
	}
	if _, paused := profile.Annotations[configv1beta1.ProfilePausedAnnotation]; paused {
		profile.Status.ReconciliationSuspended = true
		profile.Status.SuspensionReason = ptrTo("the profile carries the " + configv1beta1.ProfilePausedAnnotation + " annotation")
		sw.NotObserved()
		return ctrl.Result{}, nil
	}
	profile.Status.ReconciliationSuspended, profile.Status.SuspensionReason = false, nil
	return r.reconcileNormal(ctx, profile)
}

// reconcileNormal rolls the profile out: it writes the current spec into the ClusterSummaries of
// as many matching clusters as maxUpdate allows, in namespace/name order, and deletes the
// summaries of clusters that no longer match.
func (r *Reconciler) reconcileNormal(ctx context.Context, profile *configv1beta1.ClusterProfile) (ctrl.Result, error) {
	matching, unavailable, err := targets.ProfileClusters(ctx, r.Client, r.informers, profile)
	if err != nil {
		return ctrl.Result{}, err
	}
	// The lists are computed whole, and cut once the pass is over; a list the pass leaves as it
	// was keeps its count.
	counts := listedCounts(&profile.Status)
	defer func() { boundLists(&profile.Status, counts, r.maxListed()) }()
	counts.Matching = int32(len(matching))
	profile.Status.MatchingClusterRefs = nil
	for _, k := range matching {
		profile.Status.MatchingClusterRefs = append(profile.Status.MatchingClusterRefs, k.Ref())
	}
	existing, err := r.summaries(ctx, profile.Name)
	if err != nil {
		return ctrl.Result{}, err
	}
	byCluster := map[clusterKey]*configv1beta1.ClusterSummary{}
	for _, cs := range existing {
		byCluster[clusterKey{Namespace: cs.Spec.ClusterNamespace, Name: cs.Spec.ClusterName}] = cs
	}

	if msg := refused(&profile.Spec); msg != "" {
		r.invalidSpec(profile, msg)
		return ctrl.Result{}, nil
	}
	limit, err := rollout.MaxUpdate(profile.Spec.MaxUpdate, len(matching))
	if err != nil {
		r.invalidSpec(profile, "spec.maxUpdate: "+err.Error())
		return ctrl.Result{}, nil
	}
	// Summaries deploy frozen copies of the content, so that a content edit is a change of
	// their spec, rolled out as maxUpdate allows.
	frozen, err := r.freezeContent(ctx, profile)
	if err != nil {
		return ctrl.Result{}, err
	}
	content := freeze.Encode(frozen)
	wave := rollout.PlanWave(rolloutTargets(profile, content, matching, unavailable, byCluster), limit)
	_, held := profile.Annotations[configv1beta1.HoldRolloutAnnotation]
	if held {
		// Clusters that have the current spec finish with it; no other cluster starts.
		wave.Waiting, wave.Start = append(wave.Start, wave.Waiting...), nil
	}
	recordWave(&profile.Status, versionHash(profile, content), wave)
	counts.Updating, counts.Updated = int32(len(profile.Status.UpdatingClusters.Clusters)), int32(len(profile.Status.UpdatedClusters.Clusters))
	write := map[string]bool{}
	for _, names := range [][]string{wave.Start, wave.Updating, wave.Updated} {
		for _, n := range names {
			write[n] = true
		}
	}

	var failed []configv1beta1.FailedCluster
	pending, retry := false, false
	for _, cluster := range matching {
		name := cluster.Namespace + "/" + cluster.Name
		// Without maxUpdate, paused and unreachable clusters get the new spec too: they deploy it
		// when they can. With maxUpdate they wait, so that they never take a slot.
		if !write[name] && (held || limit > 0 || unavailable[cluster] == "") {
			continue
		}
		res, err := r.ensureSummary(ctx, profile, content, cluster, byCluster[cluster])
		switch {
		case err != nil:
			failed = append(failed, failedCluster(profile.Status.FailedClusters, cluster, err))
			retry = true
		case res == summaryCreated:
			r.Recorder.Eventf(profile, nil, corev1.EventTypeNormal, "ClusterSummaryCreated", "Create", "deploying to cluster %s", name)
		case res == summaryDeleting:
			pending = true
		}
		// A cluster that keeps failing holds its update slot; the status says why.
		if cs := byCluster[cluster]; cs != nil && err == nil {
			if msg := cs.Failure(); msg != "" {
				failed = append(failed, failedCluster(profile.Status.FailedClusters, cluster, errors.New(msg)))
			}
		}
	}
	// Paused and unreachable clusters take no slot, but keep the one they hold; say which.
	for _, skipped := range wave.Skipped {
		name, reason, _ := strings.Cut(skipped, ": ")
		ns, cl, _ := strings.Cut(name, "/")
		failed = append(failed, failedCluster(profile.Status.FailedClusters, clusterKey{Namespace: ns, Name: cl},
			errors.New("not updated yet: the cluster is "+reason)))
	}
	for _, held := range wave.Held {
		name, reason, _ := strings.Cut(held, ": ")
		ns, cl, _ := strings.Cut(name, "/")
		if !slices.ContainsFunc(failed, func(f configv1beta1.FailedCluster) bool {
			return f.ClusterRef.Namespace == ns && f.ClusterRef.Name == cl
		}) {
			failed = append(failed, failedCluster(profile.Status.FailedClusters, clusterKey{Namespace: ns, Name: cl},
				errors.New("the cluster became "+reason+" while updating: it keeps its update slot until it is updated")))
		}
	}
	profile.Status.FailedClusters = failed
	counts.Failed = int32(len(failed))
	note := listingNote(profile, counts, r.maxListed())
	if held && !wave.Done() {
		note += "; the rollout is held (" + configv1beta1.HoldRolloutAnnotation + "): no other cluster starts"
	}
	setReady(profile, wave, failed, len(matching), note)
	r.warned.Clear(profile.UID, ReasonInvalidSpec)

	stale, err := r.deleteStaleSummaries(ctx, profile, matching)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.collectCopies(ctx, profile, frozen, existing); err != nil {
		return ctrl.Result{}, err
	}
	if pending || stale || retry {
		// Summaries being deleted and failed writes are retried on a timer; a summary's own
		// progress wakes the profile through the watch on summaries.
		return ctrl.Result{RequeueAfter: retryAfter}, nil
	}
	return ctrl.Result{}, nil
}

// deleteStaleSummaries deletes the summaries of clusters that no longer match; their finalizer
// withdraws or leaves the content as stopMatchingBehavior says. It reports whether any remain.
func (r *Reconciler) deleteStaleSummaries(ctx context.Context, profile *configv1beta1.ClusterProfile, matching []clusterKey) (bool, error) {
	keep := map[clusterKey]bool{}
	for _, k := range matching {
		keep[k] = true
	}
	summaries, err := r.summaries(ctx, profile.Name)
	if err != nil {
		return false, err
	}
	remaining := false
	for _, cs := range summaries {
		if keep[clusterKey{Namespace: cs.Spec.ClusterNamespace, Name: cs.Spec.ClusterName}] {
			continue
		}
		remaining = true
		if !cs.DeletionTimestamp.IsZero() {
			continue
		}
		gone := &configv1beta1.ClusterSummary{ObjectMeta: metav1.ObjectMeta{Namespace: cs.Namespace, Name: cs.Name}}
		if err := r.Delete(ctx, gone); client.IgnoreNotFound(err) != nil {
			return false, err
		}
		r.Recorder.Eventf(profile, nil, corev1.EventTypeNormal, "ClusterSummaryDeleted", "Delete",
			"cluster %s/%s no longer matches", cs.Spec.ClusterNamespace, cs.Spec.ClusterName)
	}
	return remaining, nil
}

// reconcileDelete deletes every summary and lets the finalizer go once they are all gone.
func (r *Reconciler) reconcileDelete(ctx context.Context, profile *configv1beta1.ClusterProfile) (ctrl.Result, error) {
	r.warned.Forget(profile.UID)
	remaining, err := r.deleteStaleSummaries(ctx, profile, nil)
	if err != nil || remaining {
		return ctrl.Result{RequeueAfter: retryAfter}, err
	}
	return ctrl.Result{}, patch.RemoveFinalizer(ctx, r.Client, profile, configv1beta1.ClusterProfileFinalizer)
}

// failedCluster records a failure, keeping the time of an identical earlier one so that a
// failure that persists doesn't rewrite the status on every retry.
func failedCluster(previous []configv1beta1.FailedCluster, k clusterKey, err error) configv1beta1.FailedCluster {
	f := configv1beta1.FailedCluster{ClusterRef: k.Ref(), FailureMessage: err.Error()}
	for _, p := range previous {
		if p.ClusterRef == f.ClusterRef && p.FailureMessage == f.FailureMessage {
			f.LastFailureTime = p.LastFailureTime
			return f
		}
	}
	now := metav1.Now()
	f.LastFailureTime = &now
	return f
}

func ptrTo[T any](v T) *T { return &v }

// SetupWithManager registers the reconciler: it runs on profile changes, on changes to the
// profile's summaries, and on any cluster change, since a label edit can change what matches.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.informers = mgr.GetCache()
	return ctrl.NewControllerManagedBy(mgr).
		For(&configv1beta1.ClusterProfile{}, builder.WithPredicates(predicate.Or(
			predicate.GenerationChangedPredicate{}, predicate.LabelChangedPredicate{}, predicate.AnnotationChangedPredicate{}))).
		Watches(&configv1beta1.ClusterSummary{}, enqueue.Paced(
			handler.EnqueueRequestForOwner(mgr.GetScheme(), mgr.GetRESTMapper(), &configv1beta1.ClusterProfile{}, handler.OnlyControllerOwner()), enqueue.FleetPace)).
		Watches(&libv1beta1.SveltosCluster{}, handler.EnqueueRequestsFromMapFunc(r.allProfiles),
			builder.WithPredicates(predicate.Funcs{UpdateFunc: matchingMayChange})).
		// A profile's dependencies are deployed wherever it is: tell them when it changes.
		Watches(&configv1beta1.ClusterProfile{}, handler.EnqueueRequestsFromMapFunc(r.dependencies),
			builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(r.profilesReading("ConfigMap"))).
		WatchesMetadata(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.profilesReading("Secret"))).
		Named("clusterprofile").
		Complete(r)
}

// matchingMayChange: what a profile reads of a cluster is its labels (selectors), whether it is
// available (status) and whether it is being deleted; a fleet's clusters write their status
// often, and each write must not wake every profile.
func matchingMayChange(e event.UpdateEvent) bool {
	before, ok1 := e.ObjectOld.(*libv1beta1.SveltosCluster)
	after, ok2 := e.ObjectNew.(*libv1beta1.SveltosCluster)
	return !ok1 || !ok2 || !maps.Equal(before.Labels, after.Labels) || before.Unavailable() != after.Unavailable() ||
		before.DeletionTimestamp.IsZero() != after.DeletionTimestamp.IsZero()
}

func (r *Reconciler) allProfiles(ctx context.Context, _ client.Object) []reconcile.Request {
	var profiles configv1beta1.ClusterProfileList
	// Called for every cluster's event (20,000 of them as the cache starts): the profiles, whose
	// status lists clusters, are read from the cache, not copied.
	if err := r.List(ctx, &profiles, client.UnsafeDisableDeepCopy); err != nil {
		log.FromContext(ctx).Error(err, "listing ClusterProfiles")
		return nil
	}
	reqs := make([]reconcile.Request, 0, len(profiles.Items))
	for _, p := range profiles.Items {
		reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&p)})
	}
	return reqs
}

func (r *Reconciler) dependencies(ctx context.Context, obj client.Object) []reconcile.Request {
	var profiles configv1beta1.ClusterProfileList
	if err := r.List(ctx, &profiles, client.UnsafeDisableDeepCopy); err != nil {
		log.FromContext(ctx).Error(err, "listing ClusterProfiles")
		return nil
	}
	byName := map[string]*configv1beta1.ClusterProfile{}
	for i := range profiles.Items {
		byName[profiles.Items[i].Name] = &profiles.Items[i]
	}
	var reqs []reconcile.Request
	seen := map[string]bool{obj.GetName(): true}
	for queue := []string{obj.GetName()}; len(queue) > 0; queue = queue[1:] {
		p := byName[queue[0]]
		if p == nil {
			continue
		}
		for _, d := range p.Spec.DependsOn {
			if !seen[d] {
				seen[d] = true
				queue = append(queue, d)
				reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKey{Name: d}})
			}
		}
	}
	return reqs
}
