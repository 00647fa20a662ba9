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

package binding

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// targetClusterField indexes bindings of both kinds by spec.targetCluster.
const targetClusterField = "stagecoach.dev/binding-target-cluster"

func targetCluster(obj client.Object) []string {
	return []string{obj.(placementv1beta1.BindingObj).BindingSpec().TargetCluster}
}

// SetupWithManager completes the reconciler from mgr and registers one controller per binding
// kind. Each reacts to changes of a binding's spec, labels, deletion or of the conditions it
// writes (not to the rollout controllers' RolloutStarted), and to a MemberCluster joining or
// leaving. Snapshots never change, so they are not watched.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.client == nil {
		r.client = mgr.GetClient()
	}
	r.recorder = mgr.GetEventRecorder("stagecoach.dev/binding-controller")
	r.informers = mgr.GetCache()
	for _, f := range placementv1beta1.Families() {
		if err := mgr.GetFieldIndexer().IndexField(context.Background(), f.NewBinding(), targetClusterField, targetCluster); err != nil {
			return fmt.Errorf("indexing %ss by target cluster: %w", f.BindingKind(), err)
		}
		kr := &kindReconciler{Reconciler: r, family: f, memo: newMemo()}
		err := ctrl.NewControllerManagedBy(mgr).
			Named(strings.ToLower(f.BindingKind())).
			For(f.NewBinding(), builder.WithPredicates(bindingChanged)).
			Watches(&clusterv1beta1.MemberCluster{}, handler.EnqueueRequestsFromMapFunc(kr.bindingsOfCluster),
				builder.WithPredicates(joinedOrKubeconfigChanged)).
			WithOptions(controller.Options{MaxConcurrentReconciles: max(r.concurrency, 1)}).
			Complete(kr)
		if err != nil {
			return err
		}
	}
	return nil
}

// bindingChanged passes binding updates that change what is to be applied: the spec
// (generation), the labels (the placement) or the deletion. It also passes changes of the
// Applied and Available conditions: a writer of the other conditions that patches the whole list
// without a resource version can put back stale ones, which the next reconcile corrects.
var bindingChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		o, n := e.ObjectOld, e.ObjectNew
		return o.GetGeneration() != n.GetGeneration() || !maps.Equal(o.GetLabels(), n.GetLabels()) ||
			o.GetDeletionTimestamp().IsZero() != n.GetDeletionTimestamp().IsZero() ||
			conditionChanged(o, n, placementv1beta1.BindingAppliedCondition) ||
			conditionChanged(o, n, placementv1beta1.BindingAvailableCondition)
	},
}

func conditionChanged(o, n client.Object, typ string) bool {
	os := o.(placementv1beta1.BindingObj).BindingStatus()
	ns := n.(placementv1beta1.BindingObj).BindingStatus()
	return !equality.Semantic.DeepEqual(meta.FindStatusCondition(os.Conditions, typ), meta.FindStatusCondition(ns.Conditions, typ))
}

// joinedOrKubeconfigChanged passes MemberCluster updates that can make a failed apply succeed:
// the Joined condition changing, or the annotations (which name the kubeconfig Secret).
var joinedOrKubeconfigChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		o, okOld := e.ObjectOld.(*clusterv1beta1.MemberCluster)
		n, okNew := e.ObjectNew.(*clusterv1beta1.MemberCluster)
		if !okOld || !okNew {
			return false
		}
		return joinedStatus(o) != joinedStatus(n) || !maps.Equal(o.Annotations, n.Annotations)
	},
}

func joinedStatus(mc *clusterv1beta1.MemberCluster) string {
	if c := meta.FindStatusCondition(mc.Status.Conditions, string(clusterv1beta1.ConditionTypeMemberClusterJoined)); c != nil {
		return string(c.Status)
	}
	return ""
}

// bindingsOfCluster wakes the bindings of this kind that target the MemberCluster.
func (r *kindReconciler) bindingsOfCluster(ctx context.Context, obj client.Object) []reconcile.Request {
	list := r.family.NewBindingList()
	if err := r.client.List(ctx, list, client.MatchingFields{targetClusterField: obj.GetName()}); err != nil {
		log.FromContext(ctx).Error(err, "listing bindings of a MemberCluster", "kind", r.family.BindingKind())
		return nil
	}
	bindings := list.BindingObjs()
	reqs := make([]reconcile.Request, 0, len(bindings))
	for _, b := range bindings {
		reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(b)})
	}
	return reqs
}
