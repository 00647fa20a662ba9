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
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

// bindingAvailability says whether a binding's cluster reported the snapshot the binding names
// available, for the binding's current generation, and whether only because availability could
// not be tracked. With apply type ReportDiff, as in Kubefleet, a cluster whose differences are
// reported counts as available.
func bindingAvailability(b placementv1beta1.BindingObj) (available, untrackable bool, since time.Time) {
	if b.BindingSpec().ResourceSnapshotName == "" || b.BindingStatus().ObservedResourceSnapshotName != b.BindingSpec().ResourceSnapshotName {
		return false, false, time.Time{}
	}
	c := meta.FindStatusCondition(b.BindingStatus().Conditions, placementv1beta1.BindingAvailableCondition)
	if c == nil {
		c = meta.FindStatusCondition(b.BindingStatus().Conditions, placementv1beta1.BindingDiffReportedCondition)
	}
	if c == nil || c.Status != metav1.ConditionTrue || c.ObservedGeneration != b.GetGeneration() {
		return false, false, time.Time{}
	}
	return true, c.Reason == placementv1beta1.WorkNotAvailabilityTrackableReason, c.LastTransitionTime.Time
}

// rolloutPhase runs the rolling update of a RollingUpdate placement: it binds the bindings of
// picked clusters to the newest resource snapshot and deletes those of clusters no longer
// picked (their finalizer withdraws the resources), as maxUnavailable and maxSurge allow. An
// External placement leaves all that to update runs.
func (r *kindReconciler) rolloutPhase(ctx context.Context, ps *pass) error {
	if ps.spec.Strategy.Type != placementv1beta1.RollingUpdateRolloutStrategyType {
		return nil
	}
	ru := ps.spec.Strategy.RollingUpdate
	target := len(ps.pickedBindings())
	maxUnavailable, err := rollout.PlacementLimit(ru.MaxUnavailable, target, defaultMaxUnavailable)
	if err != nil {
		return fmt.Errorf("strategy.rollingUpdate.maxUnavailable: %w", err)
	}
	maxSurge, err := rollout.PlacementLimit(ru.MaxSurge, target, defaultMaxSurge)
	if err != nil {
		return fmt.Errorf("strategy.rollingUpdate.maxSurge: %w", err)
	}
	latest := ps.master.GetName()
	byCluster := map[string]placementv1beta1.BindingObj{}
	inputs := make([]rollout.PlacementBinding, 0, len(ps.bindings))
	for _, b := range ps.bindings {
		byCluster[b.BindingSpec().TargetCluster] = b
		available, untrackable, since := bindingAvailability(b)
		inputs = append(inputs, rollout.PlacementBinding{
			Cluster:        b.BindingSpec().TargetCluster,
			State:          rollout.PlacementBindingState(b.BindingSpec().State),
			HasRevision:    b.BindingSpec().ResourceSnapshotName != "",
			Latest:         b.BindingSpec().ResourceSnapshotName == latest && ps.overridesCurrent(b),
			Available:      available,
			Untrackable:    untrackable,
			AvailableSince: since,
			Deleting:       !b.GetDeletionTimestamp().IsZero(),
		})
	}
	plan := rollout.PlanPlacementRollout(inputs, rollout.PlacementRollout{
		Target: target, MaxUnavailable: maxUnavailable, MaxSurge: maxSurge,
		UnavailablePeriod: time.Duration(*ru.UnavailablePeriodSeconds) * time.Second, Now: r.now(),
	})
	ps.requeueAt(plan.RecheckAfter)

	var errs []error
	for _, cluster := range plan.Delete {
		b := byCluster[cluster]
		if err := r.client.Delete(ctx, b); client.IgnoreNotFound(err) != nil {
			errs = append(errs, err)
			continue
		}
		r.recorder.Eventf(ps.p, b, corev1.EventTypeNormal, reasonBindingDeleted, "Unschedule",
			"Withdrawing the resources from cluster %s, which is no longer picked", cluster)
	}
	move := append(slices.Clone(plan.Bind), plan.Update...)
	slices.Sort(move)
	for _, cluster := range move {
		if err := r.bind(ctx, ps, byCluster[cluster]); err != nil {
			errs = append(errs, err)
		}
	}
	if len(move) > 0 {
		r.recorder.Eventf(ps.p, ps.master, corev1.EventTypeNormal, reasonRolloutStarted, "Rollout",
			"Rolling resource snapshot index %d out to %s", ps.index, listClusters(move))
		ctrl.LoggerFrom(ctx).Info("rolling out", "index", ps.index, "clusters", move)
	}
	ps.waiting = map[string]string{}
	for _, w := range plan.Waiting {
		cluster, why, _ := strings.Cut(w, ": ")
		ps.waiting[cluster] = why
	}
	for _, b := range ps.bindings {
		if err := r.refreshBinding(ctx, ps, b); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// bind points a binding at the newest resource snapshot, with the placement's apply strategy,
// and records that its rollout started.
func (r *kindReconciler) bind(ctx context.Context, ps *pass, b placementv1beta1.BindingObj) error {
	err := r.updateBinding(ctx, b, func(b placementv1beta1.BindingObj) {
		b.BindingSpec().State = placementv1beta1.BindingStateBound
		b.BindingSpec().ResourceSnapshotName = ps.master.GetName()
		b.BindingSpec().ApplyStrategy = ps.spec.Strategy.ApplyStrategy.DeepCopy()
		ps.setOverrides(b)
	})
	if err != nil {
		return err
	}
	return r.setRolloutStarted(ctx, ps, b)
}

// refreshBinding keeps a binding that does not move in this pass consistent: a bound one on the
// newest snapshot gets the current apply strategy and a RolloutStarted condition for its
// generation (a pass cut short between the two writes leaves none); one held back says why.
func (r *kindReconciler) refreshBinding(ctx context.Context, ps *pass, b placementv1beta1.BindingObj) error {
	if !b.GetDeletionTimestamp().IsZero() {
		return nil
	}
	if why, held := ps.waiting[b.BindingSpec().TargetCluster]; held && b.BindingSpec().State != placementv1beta1.BindingStateUnscheduled {
		return r.setBindingCondition(ctx, b, metav1.ConditionFalse, placementv1beta1.RolloutNotStartedYetReason,
			"Waiting to roll resource snapshot "+ps.master.GetName()+" out: "+why)
	}
	if b.BindingSpec().State != placementv1beta1.BindingStateBound || b.BindingSpec().ResourceSnapshotName != ps.master.GetName() || !ps.overridesCurrent(b) {
		return nil
	}
	if !equality.Semantic.DeepEqual(b.BindingSpec().ApplyStrategy, ps.spec.Strategy.ApplyStrategy) {
		if err := r.updateBinding(ctx, b, func(b placementv1beta1.BindingObj) {
			b.BindingSpec().ApplyStrategy = ps.spec.Strategy.ApplyStrategy.DeepCopy()
		}); err != nil {
			return err
		}
	}
	return r.setRolloutStarted(ctx, ps, b)
}

func (r *kindReconciler) setRolloutStarted(ctx context.Context, ps *pass, b placementv1beta1.BindingObj) error {
	return r.setBindingCondition(ctx, b, metav1.ConditionTrue, placementv1beta1.RolloutStartedReason,
		fmt.Sprintf("Rolling resource snapshot %s (index %d) out to the cluster", ps.master.GetName(), ps.index))
}

// setBindingCondition writes the binding's RolloutStarted condition for its current generation.
// The write carries the resourceVersion: the binding controller writes the other conditions of
// the same list.
func (r *kindReconciler) setBindingCondition(ctx context.Context, b placementv1beta1.BindingObj, status metav1.ConditionStatus, reason, message string) error {
	err := patch.ChangeStatus(ctx, r.client, b, func() {
		patch.SetCondition(&b.BindingStatus().Conditions, b.GetGeneration(), placementv1beta1.BindingRolloutStartedCondition, status, reason, message)
	}, patch.WithOptimisticLock())
	if err != nil {
		return fmt.Errorf("writing the RolloutStarted condition of binding %s: %w", b.GetName(), err)
	}
	return nil
}
