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

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/render"
)

// reconcileDelete withdraws what the binding applied, then lets it go.
func (r *kindReconciler) reconcileDelete(ctx context.Context, b placementv1beta1.BindingObj) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(b, placementv1beta1.BindingFinalizer) {
		return ctrl.Result{}, nil
	}
	if done, res, err := r.withdraw(ctx, b); !done {
		return res, err
	}
	return ctrl.Result{}, patch.RemoveFinalizer(ctx, r.client, b, placementv1beta1.BindingFinalizer)
}

// reconcileUnscheduled withdraws what an Unscheduled binding applied once its placement is gone
// or going (while it lives, see applies).
func (r *kindReconciler) reconcileUnscheduled(ctx context.Context, b placementv1beta1.BindingObj) (ctrl.Result, error) {
	// The finalizer goes only once the resources are withdrawn: without it nothing is left.
	if !controllerutil.ContainsFinalizer(b, placementv1beta1.BindingFinalizer) {
		return ctrl.Result{}, nil
	}
	if done, res, err := r.withdraw(ctx, b); !done {
		return res, err
	}
	if err := patch.RemoveFinalizer(ctx, r.client, b, placementv1beta1.BindingFinalizer); err != nil {
		return ctrl.Result{}, err
	}
	st := b.BindingStatus()
	clearApplied(st)
	return ctrl.Result{}, nil
}

// withdraw deletes from the member cluster what the binding's placement deployed there. It is
// done once that is gone, or nothing can or should be deleted: the placement is deleted with
// deleteStrategy Abandon, the cluster is no longer registered, or another Bound binding of the
// placement manages the cluster now (its next apply prunes what its snapshot lacks).
func (r *kindReconciler) withdraw(ctx context.Context, b placementv1beta1.BindingObj) (bool, ctrl.Result, error) {
	spec := b.BindingSpec()
	key := client.ObjectKeyFromObject(b)
	log := logr.FromContextOrDiscard(ctx)
	owner := render.BindingOwner(r.family, b)
	if owner == "" {
		return true, ctrl.Result{}, nil // nothing can have been applied without an owner
	}
	abandoned, err := r.abandoned(ctx, b)
	if err != nil {
		return false, ctrl.Result{}, err
	}
	if abandoned {
		log.Info("not withdrawing: the placement is deleted with deleteStrategy Abandon")
		r.recorder.Eventf(b, nil, corev1.EventTypeNormal, reasonAbandoned, "Withdraw",
			"left the resources on MemberCluster %s: the placement's deleteStrategy is Abandon", spec.TargetCluster)
		return true, ctrl.Result{}, nil
	}
	successor, err := r.successor(ctx, b)
	if err != nil {
		return false, ctrl.Result{}, err
	}
	if successor != "" {
		log.Info("not withdrawing: another binding of the placement manages the cluster", "binding", successor)
		return true, ctrl.Result{}, nil
	}
	remote, err := r.clusters.Get(ctx, memberRef(spec.TargetCluster))
	if apierrors.IsNotFound(err) {
		log.Info("not withdrawing: the MemberCluster is gone")
		return true, ctrl.Result{}, nil
	}
	if _, isCluster := fleet.AsClusterError(err); err != nil && !isCluster {
		return false, ctrl.Result{}, err
	}
	var deleted []manifests.ObjectRef
	if err == nil {
		deleted, err = manifests.Withdraw(ctx, remote, owner)
	}
	if err != nil {
		n := r.memo.failed(key)
		msg := r.explain(ctx, spec.TargetCluster, err)
		r.recorder.Eventf(b, nil, corev1.EventTypeWarning, reasonWithdrawFailed, "Withdraw", "withdrawing from MemberCluster %s: %s", spec.TargetCluster, msg)
		return false, ctrl.Result{RequeueAfter: r.backoff(n)}, nil
	}
	r.memo.forget(key)
	log.Info("withdrawn", "deleted", len(deleted))
	r.recorder.Eventf(b, nil, corev1.EventTypeNormal, reasonWithdrawn, "Withdraw", "deleted %s from MemberCluster %s", plural(len(deleted), "resource"), spec.TargetCluster)
	return true, ctrl.Result{}, nil
}

// successor names another binding of b's placement, Bound to the same cluster and not being
// deleted; empty if there is none.
func (r *kindReconciler) successor(ctx context.Context, b placementv1beta1.BindingObj) (string, error) {
	spec := b.BindingSpec()
	others, err := r.siblings(ctx, b)
	if err != nil {
		return "", err
	}
	for _, o := range others {
		os := o.BindingSpec()
		if os.TargetCluster == spec.TargetCluster && os.State == placementv1beta1.BindingStateBound && o.GetDeletionTimestamp().IsZero() {
			return o.GetName(), nil
		}
	}
	return "", nil
}

// explain says why a request to a member cluster failed, in the fleet's words when the cluster
// cannot be used at all.
func (r *kindReconciler) explain(ctx context.Context, cluster string, err error) string {
	if ce, ok := fleet.AsClusterError(err); ok {
		return ce.Message
	}
	if msg, ok := r.unreachable(ctx, cluster); ok {
		return msg
	}
	return err.Error()
}

// unreachable probes a member cluster after a request to it failed and says, if that is why,
// why it cannot be used: an unreachable cluster fails every request, and the probe says so
// better than whichever request failed first.
func (r *kindReconciler) unreachable(ctx context.Context, cluster string) (string, bool) {
	_, err := r.clusters.Probe(ctx, memberRef(cluster), probeTimeout, false)
	if ce, ok := fleet.AsClusterError(err); ok {
		return ce.Message, true
	}
	return "", false
}
