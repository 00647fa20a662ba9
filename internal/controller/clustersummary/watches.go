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

package clustersummary

import (
	"cmp"
	"context"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fluxsource"
	"github.com/stagecoach-dev/stagecoach/internal/freeze"
	"github.com/stagecoach-dev/stagecoach/internal/shard"
	"github.com/stagecoach-dev/stagecoach/internal/targets"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

// referencesIndex indexes ClusterSummaries by the ConfigMaps and Secrets they read
// ("ConfigMap/namespace/name"), as content or through templateResourceRefs, so that an edit to
// one redeploys exactly its readers. References whose name is a template are read again on a
// timer instead (readsUnwatched).
const referencesIndex = "stagecoach.dev/references"

func references(obj client.Object) []string {
	cs := obj.(*configv1beta1.ClusterSummary)
	ns := func(n string) string {
		if n == "" {
			return cs.Spec.ClusterNamespace
		}
		return n
	}
	var keys []string
	spec := &cs.Spec.ClusterProfileSpec
	for _, ref := range spec.PolicyRefs {
		keys = append(keys, ref.Kind+"/"+ns(ref.Namespace)+"/"+ref.Name)
	}
	valuesFrom := func(vfs []configv1beta1.ValueFrom) {
		for _, vf := range vfs {
			keys = append(keys, vf.Kind+"/"+ns(vf.Namespace)+"/"+vf.Name)
		}
	}
	for _, hc := range spec.HelmCharts {
		valuesFrom(hc.ValuesFrom)
	}
	for _, k := range spec.KustomizationRefs {
		if k.Kind == "ConfigMap" || k.Kind == "Secret" {
			keys = append(keys, k.Kind+"/"+ns(k.Namespace)+"/"+k.Name)
		}
		valuesFrom(k.ValuesFrom)
	}
	valuesFrom(spec.PatchesFrom)
	for _, t := range spec.TemplateResourceRefs {
		if r := t.Resource; (r.APIVersion == "" || r.APIVersion == "v1") && (r.Kind == "ConfigMap" || r.Kind == "Secret") {
			keys = append(keys, r.Kind+"/"+ns(r.Namespace)+"/"+r.Name)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// readsUnwatched reports whether a summary reads, live, something no watch covers: a reference
// whose name or namespace is a template of the cluster, a Flux source or an object of
// templateResourceRefs of a kind other than ConfigMap and Secret that its version has no copy
// of. It reads them again on a timer.
func readsUnwatched(cs *configv1beta1.ClusterSummary) bool {
	spec := &cs.Spec.ClusterProfileSpec
	templated := func(namespace, name string) bool { return freeze.IsTemplated(namespace) || freeze.IsTemplated(name) }
	for _, ref := range spec.PolicyRefs {
		if templated(ref.Namespace, ref.Name) {
			return true
		}
	}
	valuesFrom := func(vfs []configv1beta1.ValueFrom) bool {
		return slices.ContainsFunc(vfs, func(vf configv1beta1.ValueFrom) bool { return templated(vf.Namespace, vf.Name) })
	}
	for _, hc := range spec.HelmCharts {
		if valuesFrom(hc.ValuesFrom) {
			return true
		}
	}
	for _, k := range spec.KustomizationRefs {
		if templated(k.Namespace, k.Name) || valuesFrom(k.ValuesFrom) {
			return true
		}
	}
	if valuesFrom(spec.PatchesFrom) {
		return true
	}
	copies := freeze.Decode(cs.Spec.FrozenContent)
	// A Flux source the version has no copy of (one in the cluster's namespace, say) is read
	// live; the summary controller does not watch Flux sources.
	flux := func(kind, namespace, name string) bool {
		_, frozen := copies[freeze.Ref{Kind: kind, Namespace: cmp.Or(namespace, cs.Spec.ClusterNamespace), Name: name}]
		return fluxsource.IsKind(kind) && !frozen
	}
	for _, ref := range spec.PolicyRefs {
		if flux(ref.Kind, ref.Namespace, ref.Name) {
			return true
		}
	}
	for _, k := range spec.KustomizationRefs {
		if flux(k.Kind, k.Namespace, k.Name) {
			return true
		}
	}
	for _, t := range spec.TemplateResourceRefs {
		r := t.Resource
		if templated(r.Namespace, r.Name) {
			return true
		}
		ref := freeze.ObjectRef(r.APIVersion, r.Kind, cmp.Or(r.Namespace, cs.Spec.ClusterNamespace), r.Name)
		if _, frozen := copies[ref]; !frozen && freeze.Polled([]freeze.Ref{ref}) {
			return true
		}
	}
	return false
}

// clusterChanged: a cluster's labels, annotations or spec changed. Templates read the cluster
// live (.Cluster), so its summaries render again.
func clusterChanged(e event.UpdateEvent) bool {
	return e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration() ||
		!maps.Equal(e.ObjectOld.GetLabels(), e.ObjectNew.GetLabels()) ||
		!maps.Equal(e.ObjectOld.GetAnnotations(), e.ObjectNew.GetAnnotations())
}

// SetupWithManager completes the reconciler from mgr and registers it. It reacts to its
// summaries, to their clusters becoming reachable or paused or being relabelled, to the
// ConfigMaps and Secrets they read, and to the summaries of profiles they depend on.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.client == nil {
		r.client = mgr.GetClient()
	}
	if r.tenants == nil {
		r.tenants = tenancy.New(r.client, r.management)
	}
	r.recorder = mgr.GetEventRecorder("stagecoach.dev/clustersummary-controller")
	r.recheck.informers = mgr.GetCache()
	indexer := mgr.GetFieldIndexer()
	if err := indexer.IndexField(context.Background(), &configv1beta1.ClusterSummary{}, referencesIndex, references); err != nil {
		return err
	}
	if err := targets.IndexSummariesByCluster(context.Background(), indexer); err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&configv1beta1.ClusterSummary{}, builder.WithPredicates(predicate.Or(
			predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}))).
		// A summary cares whether its cluster can be deployed to, not about every status write.
		Watches(&libv1beta1.SveltosCluster{}, handler.EnqueueRequestsFromMapFunc(r.summariesOfCluster),
			builder.WithPredicates(predicate.Or[client.Object](predicate.Funcs{UpdateFunc: availabilityChanged},
				predicate.Funcs{UpdateFunc: clusterChanged}, shard.Moved))).
		Watches(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(r.readersOf("ConfigMap"))).
		WatchesMetadata(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.readersOf("Secret"))).
		Watches(&configv1beta1.ClusterSummary{}, handler.EnqueueRequestsFromMapFunc(r.dependents)).
		Named("clustersummary").
		WithOptions(controller.Options{MaxConcurrentReconciles: r.concurrency}).
		Complete(r)
}

func (r *Reconciler) summariesOfCluster(ctx context.Context, obj client.Object) []reconcile.Request {
	var list configv1beta1.ClusterSummaryList
	err := targets.SummariesOfCluster(ctx, r.client, &list, libv1beta1.ClusterTypeSveltos, obj.GetNamespace(), obj.GetName())
	return requests(ctx, list.Items, err)
}

func availabilityChanged(e event.UpdateEvent) bool {
	before, ok1 := e.ObjectOld.(*libv1beta1.SveltosCluster)
	after, ok2 := e.ObjectNew.(*libv1beta1.SveltosCluster)
	return !ok1 || !ok2 || before.Unavailable() != after.Unavailable() || before.DeletionTimestamp.IsZero() != after.DeletionTimestamp.IsZero()
}

func (r *Reconciler) readersOf(kind string) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		var list configv1beta1.ClusterSummaryList
		err := r.client.List(ctx, &list, client.MatchingFields{referencesIndex: kind + "/" + obj.GetNamespace() + "/" + obj.GetName()})
		return requests(ctx, list.Items, err)
	}
}

// dependents wakes the summaries, on the same cluster, of profiles of the same kind that depend
// on obj's profile.
func (r *Reconciler) dependents(ctx context.Context, obj client.Object) []reconcile.Request {
	cs := obj.(*configv1beta1.ClusterSummary)
	family, profile, _ := configv1beta1.SummaryProfile(cs)
	var list configv1beta1.ClusterSummaryList
	err := targets.SummariesOfCluster(ctx, r.client, &list, cs.Spec.ClusterType, cs.Spec.ClusterNamespace, cs.Spec.ClusterName)
	list.Items = slices.DeleteFunc(list.Items, func(other configv1beta1.ClusterSummary) bool {
		otherFamily, _, _ := configv1beta1.SummaryProfile(&other)
		return otherFamily != family || !slices.Contains(other.Spec.ClusterProfileSpec.DependsOn, profile)
	})
	return requests(ctx, list.Items, err)
}

func requests(ctx context.Context, items []configv1beta1.ClusterSummary, err error) []reconcile.Request {
	if err != nil {
		log.FromContext(ctx).Error(err, "listing ClusterSummaries")
		return nil
	}
	reqs := make([]reconcile.Request, 0, len(items))
	for i := range items {
		reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&items[i])})
	}
	return reqs
}
