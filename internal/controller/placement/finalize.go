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
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
)

// withdrawPoll is how often a placement being deleted checks on its bindings, besides the
// binding watch, which reports each one gone.
const withdrawPoll = 10 * time.Second

// finalize cleans up after a deleted placement: it deletes the bindings, whose finalizer
// withdraws the resources from the clusters (unless deleteStrategy is Abandon), waits until they
// are gone, then deletes the
// snapshots and lets the placement go.
func (r *kindReconciler) finalize(ctx context.Context, p placementv1beta1.PlacementObj) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(p, r.family.PlacementFinalizer()) {
		return ctrl.Result{}, nil
	}
	bindings, err := listBindings(ctx, r.client, r.family, p)
	if err != nil {
		return ctrl.Result{}, err
	}
	deleted := 0
	for _, b := range bindings {
		if !b.GetDeletionTimestamp().IsZero() {
			continue
		}
		if err := r.client.Delete(ctx, b); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, err
		}
		deleted++
	}
	if deleted > 0 {
		msg := fmt.Sprintf("Withdrawing the resources from %d clusters", deleted)
		if placementv1beta1.Abandons(p) {
			msg = fmt.Sprintf("Leaving the resources on %d clusters: deleteStrategy is Abandon", deleted)
		}
		r.recorder.Eventf(p, nil, corev1.EventTypeNormal, reasonBindingDeleted, "Delete", "%s", msg)
	}
	if len(bindings) > 0 {
		ctrl.LoggerFrom(ctx).V(1).Info("waiting for bindings to be deleted", "bindings", len(bindings))
		return ctrl.Result{RequeueAfter: withdrawPoll}, nil
	}
	for _, obj := range []client.Object{r.family.NewResourceSnapshot(), r.family.NewPolicySnapshot()} {
		if err := r.client.DeleteAllOf(ctx, obj, client.InNamespace(p.GetNamespace()),
			client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: p.GetName()}); err != nil {
			return ctrl.Result{}, err
		}
	}
	r.forgetNamespaces(client.ObjectKeyFromObject(p))
	return ctrl.Result{}, patch.RemoveFinalizer(ctx, r.client, p, r.family.PlacementFinalizer())
}
