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

package clusterprofile

import (
	"context"
	"fmt"
	"maps"
	"strings"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/enqueue"
	"github.com/stagecoach-dev/stagecoach/internal/fluxsource"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

// SetupWithManager completes the reconciler from mgr and registers two controllers,
// "clusterprofile" and "profile". Each runs on changes to its profiles and their summaries, and
// on any change of a cluster its profiles can see, since a label edit can change what matches.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.client == nil {
		r.client = mgr.GetClient()
	}
	if r.tenants == nil {
		r.tenants = tenancy.New(r.client, nil)
	}
	r.recorder = mgr.GetEventRecorder("stagecoach.dev/clusterprofile-controller")
	r.informers = mgr.GetCache()
	for _, f := range configv1beta1.ProfileFamilies() {
		if err := (&kindReconciler{Reconciler: r, family: f}).setup(mgr); err != nil {
			return fmt.Errorf("setting up the %s controller: %w", f.Kind(), err)
		}
	}
	return nil
}

func (r *kindReconciler) setup(mgr ctrl.Manager) error {
	b := ctrl.NewControllerManagedBy(mgr).
		For(r.family.NewProfile(), builder.WithPredicates(predicate.Or(
			predicate.GenerationChangedPredicate{}, predicate.LabelChangedPredicate{}, predicate.AnnotationChangedPredicate{}))).
		Watches(&configv1beta1.ClusterSummary{}, enqueue.Paced(
			handler.EnqueueRequestForOwner(mgr.GetScheme(), mgr.GetRESTMapper(), r.family.NewProfile(), handler.OnlyControllerOwner()), enqueue.FleetPace)).
		Watches(&libv1beta1.SveltosCluster{}, handler.EnqueueRequestsFromMapFunc(r.allProfiles),
			builder.WithPredicates(predicate.Funcs{UpdateFunc: matchingMayChange})).
		// A profile's dependencies are deployed wherever it is: tell them when it changes.
		Watches(r.family.NewProfile(), handler.EnqueueRequestsFromMapFunc(r.dependencies),
			builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(r.profilesReading("ConfigMap"))).
		WatchesMetadata(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.profilesReading("Secret")))
	// A new artifact of a Flux source the profile reads is rolled out like a content edit.
	for kind, obj := range fluxsource.Served(mgr.GetRESTMapper()) {
		b = b.Watches(obj, handler.EnqueueRequestsFromMapFunc(r.profilesReading(kind)), builder.WithPredicates(fluxsource.ArtifactChanged))
	}
	return b.Named(strings.ToLower(r.family.Kind())).Complete(r)
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

// allProfiles wakes every profile that can see the cluster obj: every ClusterProfile, or the
// Profiles of the cluster's namespace.
func (r *kindReconciler) allProfiles(ctx context.Context, obj client.Object) []reconcile.Request {
	profiles := r.family.NewProfileList()
	// Called for every cluster's event (20,000 of them as the cache starts): the profiles, whose
	// status lists clusters, are read from the cache, not copied.
	if err := r.client.List(ctx, profiles, client.InNamespace(r.family.Namespace(obj.GetNamespace())), client.UnsafeDisableDeepCopy); err != nil {
		log.FromContext(ctx).Error(err, "listing profiles", "kind", r.family.Kind())
		return nil
	}
	items := profiles.ProfileObjs()
	reqs := make([]reconcile.Request, 0, len(items))
	for _, p := range items {
		reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(p)})
	}
	return reqs
}

// dependencies wakes the profiles obj depends on, directly or not: profiles of its kind, and of
// its namespace for a Profile.
func (r *kindReconciler) dependencies(ctx context.Context, obj client.Object) []reconcile.Request {
	ns := r.family.Namespace(obj.GetNamespace())
	profiles := r.family.NewProfileList()
	if err := r.client.List(ctx, profiles, client.InNamespace(ns), client.UnsafeDisableDeepCopy); err != nil {
		log.FromContext(ctx).Error(err, "listing profiles", "kind", r.family.Kind())
		return nil
	}
	byName := map[string]configv1beta1.ProfileObj{}
	for _, p := range profiles.ProfileObjs() {
		byName[p.GetName()] = p
	}
	var reqs []reconcile.Request
	seen := map[string]bool{obj.GetName(): true}
	for queue := []string{obj.GetName()}; len(queue) > 0; queue = queue[1:] {
		p := byName[queue[0]]
		if p == nil {
			continue
		}
		for _, d := range p.ProfileSpec().DependsOn {
			if !seen[d] {
				seen[d] = true
				queue = append(queue, d)
				reqs = append(reqs, reconcile.Request{NamespacedName: r.family.Key(ns, d)})
			}
		}
	}
	return reqs
}
