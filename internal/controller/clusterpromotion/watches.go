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

package clusterpromotion

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/inplace"
	"github.com/stagecoach-dev/stagecoach/internal/targets"
)

// availabilityChanged lets through the updates of a cluster that went down or came back.
func availabilityChanged(e event.UpdateEvent) bool {
	before, ok1 := e.ObjectOld.(*libv1beta1.SveltosCluster)
	after, ok2 := e.ObjectNew.(*libv1beta1.SveltosCluster)
	return !ok1 || !ok2 || before.Unavailable() != after.Unavailable()
}

// promotionsOfCluster finds the promotions with a stage on the cluster: a profile of theirs
// picks it, or has a summary there. Each profile is asked about this one cluster, rather than
// its clusters scanned.
func (r *Reconciler) promotionsOfCluster(ctx context.Context, obj client.Object) []reconcile.Request {
	cluster, ok := obj.(*libv1beta1.SveltosCluster)
	if !ok {
		return nil
	}
	var profiles configv1beta1.ClusterProfileList
	if err := r.client.List(ctx, &profiles, client.HasLabels{configv1beta1.PromotionNameLabel}, client.UnsafeDisableDeepCopy); err != nil {
		return nil
	}
	// Without the summaries' index (no summary controller in this manager), selection alone.
	var summaries configv1beta1.ClusterSummaryList
	_ = targets.SummariesOfCluster(ctx, r.client, &summaries, libv1beta1.ClusterTypeSveltos, cluster.Namespace, cluster.Name,
		client.UnsafeDisableDeepCopy)
	deployed := map[string]bool{}
	for _, cs := range summaries.Items {
		deployed[cs.Labels[configv1beta1.ClusterProfileNameLabel]] = true
	}
	seen := map[string]bool{}
	var out []reconcile.Request
	for i := range profiles.Items {
		profile := &profiles.Items[i]
		name := profile.Labels[configv1beta1.PromotionNameLabel]
		if !seen[name] && (deployed[profile.Name] || profile.Spec.Selects(cluster)) {
			seen[name] = true
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKey{Name: name}})
		}
	}
	return out
}

func (r *Reconciler) promotionOfSummary(ctx context.Context, obj client.Object) []reconcile.Request {
	// Every summary's every update comes here: the profile is read in place, not copied with its
	// status of thousands of clusters.
	profile, err := inplace.Get(ctx, r.informers, r.client, client.ObjectKey{Name: obj.GetLabels()[configv1beta1.ClusterProfileNameLabel]},
		&configv1beta1.ClusterProfile{})
	if err != nil {
		return nil
	}
	name := profile.GetLabels()[configv1beta1.PromotionNameLabel]
	if name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Name: name}}}
}
