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

// Package eviction carries out ClusterResourcePlacementEvictions: within the placement's
// ClusterResourcePlacementDisruptionBudget, the placement's binding to the evicted cluster is
// deleted, and the binding controller withdraws its resources from the cluster as it does for
// any binding the placement lets go. The rules are internal/rollout's DecideEviction; an
// eviction is acted on once and then left alone.
package eviction

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

// Event reasons.
const (
	reasonInvalid     = "EvictionInvalid"
	reasonExecuted    = "EvictionExecuted"
	reasonNotExecuted = "EvictionNotExecuted"
)

// Options tune the eviction controller.
type Options struct {
	// Client reads and writes the management cluster; nil means the manager's client.
	Client client.Client
}

// Reconciler reconciles ClusterResourcePlacementEvictions. Build it with NewReconciler;
// SetupWithManager completes it.
type Reconciler struct {
	client client.Client
	// reader reads bindings and budgets from the API server itself: a budget is only as good
	// as the count it is checked against, and the cache may not show yet a binding that the
	// eviction before this one deleted.
	reader   client.Reader
	recorder events.EventRecorder
}

// NewReconciler returns a Reconciler; SetupWithManager completes it.
func NewReconciler(opts Options) *Reconciler { return &Reconciler{client: opts.Client} }

// SetupWithManager registers the controller, "clusterresourceplacementeviction", with mgr.
// One eviction at a time: two evictions judged at once against one budget could both pass.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.client == nil {
		r.client = mgr.GetClient()
	}
	r.reader = mgr.GetAPIReader()
	r.recorder = mgr.GetEventRecorder("stagecoach.dev/eviction-controller")
	return ctrl.NewControllerManagedBy(mgr).
		For(&placementv1beta1.ClusterResourcePlacementEviction{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WithOptions(controller.Options{MaxConcurrentReconciles: 1}).
		Named("clusterresourceplacementeviction").
		Complete(r)
}

// Reconcile acts on an eviction once: it finds the placement, its bindings and its budget,
// asks rollout.DecideEviction, deletes the binding if told to and records the answer.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, retErr error) {
	e := &placementv1beta1.ClusterResourcePlacementEviction{}
	if err := r.client.Get(ctx, req.NamespacedName, e); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if e.Done() {
		return ctrl.Result{}, nil
	}
	sw, err := patch.NewStatusWriter(r.client, e, patch.WithOptimisticLock())
	if err != nil {
		return ctrl.Result{}, err
	}
	defer sw.Write(ctx, &result, &retErr)

	facts, target, err := r.read(ctx, e)
	if err != nil {
		return ctrl.Result{}, err
	}
	d := rollout.DecideEviction(facts)
	if d.Execute {
		if err := r.evict(ctx, target); err != nil {
			return ctrl.Result{}, err
		}
	}
	r.record(e, d)
	return ctrl.Result{}, nil
}

// read gathers what the decision needs, and the binding to delete when there is exactly one.
func (r *Reconciler) read(ctx context.Context, e *placementv1beta1.ClusterResourcePlacementEviction) (rollout.Eviction, *placementv1beta1.ClusterResourceBinding, error) {
	var facts rollout.Eviction
	crp := &placementv1beta1.ClusterResourcePlacement{}
	if err := r.client.Get(ctx, client.ObjectKey{Name: e.Spec.PlacementName}, crp); apierrors.IsNotFound(err) {
		return facts, nil, nil
	} else if err != nil {
		return facts, nil, err
	}
	facts.PlacementFound = true
	facts.PlacementDeleting = !crp.DeletionTimestamp.IsZero()
	facts.Policy = crp.Spec.Policy
	var bindings placementv1beta1.ClusterResourceBindingList
	if err := r.reader.List(ctx, &bindings, client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: crp.Name}); err != nil {
		return facts, nil, err
	}
	var target *placementv1beta1.ClusterResourceBinding
	for i := range bindings.Items {
		b := &bindings.Items[i]
		eb := evictionBinding(b)
		facts.Bindings = append(facts.Bindings, eb)
		if b.Spec.TargetCluster == e.Spec.ClusterName {
			facts.Targets = append(facts.Targets, eb)
			target = b
		}
	}
	budget := &placementv1beta1.ClusterResourcePlacementDisruptionBudget{}
	if err := r.reader.Get(ctx, client.ObjectKey{Name: crp.Name}, budget); err == nil {
		facts.Budget = &budget.Spec
	} else if !apierrors.IsNotFound(err) {
		return facts, nil, err
	}
	return facts, target, nil
}

// evict deletes the binding, unless it changed since it was read: the decision was made on
// what it was. Its finalizer holds it until the binding controller has withdrawn the resources.
func (r *Reconciler) evict(ctx context.Context, b *placementv1beta1.ClusterResourceBinding) error {
	rv := b.ResourceVersion
	err := r.client.Delete(ctx, b, client.Preconditions{ResourceVersion: &rv})
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	ctrl.LoggerFrom(ctx).Info("evicted", "binding", b.Name, "cluster", b.Spec.TargetCluster)
	return nil
}

// record writes the decision into the conditions, with an event.
func (r *Reconciler) record(e *placementv1beta1.ClusterResourcePlacementEviction, d rollout.EvictionDecision) {
	set := func(t string, ok bool, yes, no, msg string) {
		status, reason := metav1.ConditionTrue, yes
		if !ok {
			status, reason = metav1.ConditionFalse, no
		}
		patch.SetCondition(&e.Status.Conditions, e.Generation, t, status, reason, msg)
	}
	set(placementv1beta1.EvictionValidCondition, d.Valid, placementv1beta1.EvictionValidReason, placementv1beta1.EvictionInvalidReason, d.ValidMessage)
	if !d.Valid {
		meta.RemoveStatusCondition(&e.Status.Conditions, placementv1beta1.EvictionExecutedCondition)
		r.recorder.Eventf(e, nil, corev1.EventTypeWarning, reasonInvalid, "Evict", "%s", d.ValidMessage)
		return
	}
	set(placementv1beta1.EvictionExecutedCondition, d.Executed, placementv1beta1.EvictionExecutedReason, placementv1beta1.EvictionNotExecutedReason, d.ExecutedMessage)
	if d.Executed {
		r.recorder.Eventf(e, nil, corev1.EventTypeNormal, reasonExecuted, "Evict", "%s: %s", e.Spec.ClusterName, d.ExecutedMessage)
	} else {
		r.recorder.Eventf(e, nil, corev1.EventTypeWarning, reasonNotExecuted, "Evict", "%s", d.ExecutedMessage)
	}
}
