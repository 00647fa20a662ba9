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

package placement

import (
	"context"
	"reflect"
	"strings"
	"sync"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/enqueue"
	"github.com/stagecoach-dev/stagecoach/internal/scheduling"
)

// kindReconciler is the controller of one placement kind.
type kindReconciler struct {
	*Reconciler
	family placementv1beta1.Family

	controller controller.Controller
	cache      cache.Cache

	// watched are the kinds of hub resources watched so far. Watches start as placements come
	// to select a kind and stay for the life of the process.
	watchMu sync.Mutex
	watched map[schema.GroupKind]bool
	// unreadable are kinds the controller may not list and watch, and when that was found: RBAC
	// (the chart's placement.selectableResources) decides what a placement can select, and a
	// watch it refuses would only fail over and over. They are asked again after a while.
	unreadable map[schema.GroupKind]time.Time

	// namespaces remembers, per placement, the Namespaces whose contents its last pass selected,
	// so that an edit inside one wakes only the placements concerned.
	nsMu       sync.RWMutex
	namespaces map[types.NamespacedName]map[string]bool
}

func newKindReconciler(r *Reconciler, f placementv1beta1.Family) *kindReconciler {
	return &kindReconciler{Reconciler: r, family: f, watched: map[schema.GroupKind]bool{},
		unreadable: map[schema.GroupKind]time.Time{}, namespaces: map[types.NamespacedName]map[string]bool{}}
}

// setup registers the controller. Besides its placements, it watches the bindings and
// snapshots they own, member clusters (a label, readiness or taint change can change what a
// policy picks) and, once a placement selects them, hub resources.
func (r *kindReconciler) setup(mgr ctrl.Manager) error {
	deletions := predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		UpdateFunc:  func(event.UpdateEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
	b := ctrl.NewControllerManagedBy(mgr).
		Named(strings.ToLower(r.family.PlacementKind()))
	if !r.family.Namespaced {
		// A status copy deleted by hand is written again.
		b = b.Owns(&placementv1beta1.ClusterResourcePlacementStatus{}, builder.WithPredicates(deletions))
	}
	c, err := b.For(r.family.NewPlacement(), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(r.family.NewBinding(), enqueue.Paced(
			handler.EnqueueRequestForOwner(mgr.GetScheme(), mgr.GetRESTMapper(), r.family.NewPlacement(), handler.OnlyControllerOwner()), enqueue.FleetPace)).
		// Snapshots deleted by hand are made again; their creation needs no reconcile.
		Owns(r.family.NewResourceSnapshot(), builder.WithPredicates(deletions)).
		Owns(r.family.NewPolicySnapshot(), builder.WithPredicates(deletions)).
		Watches(&clusterv1beta1.MemberCluster{}, handler.EnqueueRequestsFromMapFunc(r.allPlacements),
			builder.WithPredicates(predicate.Funcs{UpdateFunc: memberChanged})).
		Watches(&placementv1beta1.ClusterResourceOverrideSnapshot{}, handler.EnqueueRequestsFromMapFunc(r.overridePlacements)).
		Watches(&placementv1beta1.ResourceOverrideSnapshot{}, handler.EnqueueRequestsFromMapFunc(r.overridePlacements)).
		Build(r)
	if err != nil {
		return err
	}
	r.controller, r.cache = c, mgr.GetCache()
	return nil
}

// memberChanged reports MemberCluster updates that can change scheduling; status updates
// about anything else (heartbeats, resource usage) do not.
func memberChanged(e event.UpdateEvent) bool {
	o, okOld := e.ObjectOld.(*clusterv1beta1.MemberCluster)
	n, okNew := e.ObjectNew.(*clusterv1beta1.MemberCluster)
	return !okOld || !okNew || !reflect.DeepEqual(scheduling.MemberOf(o), scheduling.MemberOf(n))
}

func (r *kindReconciler) allPlacements(ctx context.Context, _ client.Object) []reconcile.Request {
	return r.placementRequests(ctx, "", func(placementv1beta1.PlacementObj) bool { return true })
}

// placementRequests lists the placements (in namespace, for ResourcePlacements, when set)
// that keep says are concerned.
func (r *kindReconciler) placementRequests(ctx context.Context, namespace string, keep func(placementv1beta1.PlacementObj) bool) []reconcile.Request {
	l := r.family.NewPlacementList()
	// Called for every member cluster's event (20,000 of them as the cache starts): the
	// placements, whose status lists clusters, are read from the cache, not copied.
	opts := []client.ListOption{client.UnsafeDisableDeepCopy}
	if namespace != "" {
		opts = append(opts, client.InNamespace(namespace))
	}
	if err := r.client.List(ctx, l, opts...); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "listing placements", "kind", r.family.PlacementKind())
		return nil
	}
	var out []reconcile.Request
	for _, p := range l.PlacementObjs() {
		if keep(p) {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(p)})
		}
	}
	return out
}

// ensureWatches watches the kinds a placement's selection depends on, metadata only: the
// content is read from the API server when a placement is reconciled, so the cache holds no
// Secret data.
func (r *kindReconciler) ensureWatches(ctx context.Context, selectors []placementv1beta1.ResourceSelectorTerm, kinds []schema.GroupVersionKind) {
	for _, t := range selectors {
		if !r.family.Namespaced && isNamespaceKind(t.Group, t.Kind) && carriesContents(t) {
			kinds = append(kinds, namespaceContentKinds...)
			break
		}
	}
	r.watchMu.Lock()
	defer r.watchMu.Unlock()
	for _, gvk := range kinds {
		gk := gvk.GroupKind()
		if r.watched[gk] {
			continue
		}
		mapping, err := r.mapper.RESTMapping(gk, gvk.Version)
		if err != nil {
			continue // not served by this hub; the resync covers it if it appears
		}
		if !r.mayWatch(ctx, gk, mapping.Resource) {
			continue
		}
		obj := &metav1.PartialObjectMetadata{}
		obj.SetGroupVersionKind(gvk)
		toPlacements := handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
			return r.placementsSelecting(ctx, gvk, o)
		})
		src := source.Kind[client.Object](r.cache, obj, toPlacements, predicate.ResourceVersionChangedPredicate{})
		if err := r.controller.Watch(src); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "watching hub resources", "kind", gvk.String())
			continue
		}
		r.watched[gk] = true
		ctrl.LoggerFrom(ctx).V(1).Info("watching hub resources", "kind", gvk.String())
	}
}

// mayWatch reports whether the controller may list and watch resource, asking the API server
// (a SelfSubjectAccessReview, which every authenticated user may create) at most once per
// discovery period for a kind it may not. The caller holds watchMu.
func (r *kindReconciler) mayWatch(ctx context.Context, gk schema.GroupKind, resource schema.GroupVersionResource) bool {
	if at, ok := r.unreadable[gk]; ok && r.now().Sub(at) < r.discovery.ttl {
		return false
	}
	for _, verb := range []string{"list", "watch"} {
		review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: verb, Group: resource.Group, Resource: resource.Resource},
		}}
		if err := r.client.Create(ctx, review); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "asking whether hub resources may be watched", "kind", gk.String())
			return false
		}
		if !review.Status.Allowed {
			ctrl.LoggerFrom(ctx).V(1).Info("not watching hub resources the controller may not read", "kind", gk.String())
			r.unreadable[gk] = r.now()
			return false
		}
	}
	delete(r.unreadable, gk)
	return true
}

// carriesContents reports whether a Namespace selector selects what is in the namespace.
func carriesContents(t placementv1beta1.ResourceSelectorTerm) bool {
	return t.SelectionScope != placementv1beta1.NamespaceOnly && t.SelectionScope != placementv1beta1.NamespaceWithResourceSelectors
}

// placementsSelecting maps a hub object of kind gvk to the placements that select it, by a
// selector of its kind or, for a ClusterResourcePlacement, through its Namespace.
func (r *kindReconciler) placementsSelecting(ctx context.Context, gvk schema.GroupVersionKind, o client.Object) []reconcile.Request {
	ns := o.GetNamespace()
	if r.family.Namespaced && ns == "" {
		return nil
	}
	listIn := ""
	if r.family.Namespaced {
		listIn = ns
	}
	return r.placementRequests(ctx, listIn, func(p placementv1beta1.PlacementObj) bool {
		for _, t := range p.PlacementSpec().ResourceSelectors {
			if t.Group == gvk.Group && t.Kind == gvk.Kind && termMatches(t, o) {
				return true
			}
			if !r.family.Namespaced && ns != "" && isNamespaceKind(t.Group, t.Kind) && carriesContents(t) &&
				(t.Name == ns || (t.Name == "" && r.selectsContentsOf(client.ObjectKeyFromObject(p), ns))) {
				return true
			}
		}
		return false
	})
}

// termMatches reports whether a selector may pick o. An invalid label selector matches, so
// that the placement's pass reports it.
func termMatches(t placementv1beta1.ResourceSelectorTerm, o client.Object) bool {
	switch {
	case t.Name != "":
		return t.Name == o.GetName()
	case t.LabelSelector == nil:
		return true
	}
	s, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
	return err != nil || s.Matches(labels.Set(o.GetLabels()))
}

// selectsContentsOf reports whether the last pass of placement key selected the contents of
// namespace ns; before the first pass, it may.
func (r *kindReconciler) selectsContentsOf(key types.NamespacedName, ns string) bool {
	r.nsMu.RLock()
	defer r.nsMu.RUnlock()
	set, known := r.namespaces[key]
	return !known || set[ns]
}

func (r *kindReconciler) rememberNamespaces(key types.NamespacedName, namespaces []string) {
	set := make(map[string]bool, len(namespaces))
	for _, ns := range namespaces {
		set[ns] = true
	}
	r.nsMu.Lock()
	defer r.nsMu.Unlock()
	r.namespaces[key] = set
}

func (r *kindReconciler) forgetNamespaces(key types.NamespacedName) {
	r.nsMu.Lock()
	defer r.nsMu.Unlock()
	delete(r.namespaces, key)
}
