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
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/render"
)

// placement reads the binding's placement; nil if it has none or it is gone.
func (r *kindReconciler) placement(ctx context.Context, b placementv1beta1.BindingObj) (placementv1beta1.PlacementObj, error) {
	name := render.PlacementOf(b)
	if name == "" {
		return nil, nil
	}
	p := r.family.NewPlacement()
	if err := r.client.Get(ctx, r.family.Key(b.GetNamespace(), name), p); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	return p, nil
}

// placementLive reports whether the binding's placement exists and is not being deleted.
func (r *kindReconciler) placementLive(ctx context.Context, b placementv1beta1.BindingObj) (bool, error) {
	p, err := r.placement(ctx, b)
	return p != nil && p.GetDeletionTimestamp().IsZero(), err
}

// abandoned reports whether the binding's placement is being deleted with deleteStrategy
// propagationPolicy Abandon, which leaves the placed resources on the member clusters.
func (r *kindReconciler) abandoned(ctx context.Context, b placementv1beta1.BindingObj) (bool, error) {
	p, err := r.placement(ctx, b)
	return p != nil && !p.GetDeletionTimestamp().IsZero() && placementv1beta1.Abandons(p), err
}

// siblings returns the other bindings of b's placement.
func (r *kindReconciler) siblings(ctx context.Context, b placementv1beta1.BindingObj) ([]placementv1beta1.BindingObj, error) {
	list := r.family.NewBindingList()
	if err := r.client.List(ctx, list, client.InNamespace(b.GetNamespace()),
		client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: render.PlacementOf(b)}); err != nil {
		return nil, err
	}
	return slices.DeleteFunc(list.BindingObjs(), func(o placementv1beta1.BindingObj) bool { return o.GetName() == b.GetName() }), nil
}
