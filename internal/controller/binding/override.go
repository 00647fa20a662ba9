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
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
	"github.com/stagecoach-dev/stagecoach/internal/render"
)

// override applies the binding's override snapshots to its objects and records the outcome in
// the Overridden condition, with Kubefleet's reasons. On failure nothing is applied, so the
// member cluster keeps what it runs; the error (reason OverriddenFailed) also fails Applied.
func (r *kindReconciler) override(ctx context.Context, b placementv1beta1.BindingObj, objs []manifests.Object) ([]manifests.Object, error) {
	spec, st, gen := b.BindingSpec(), b.BindingStatus(), b.GetGeneration()
	out, err := render.BindingOverrides(ctx, r.client, b, objs)
	var in *render.InputError
	switch {
	case errors.As(err, &in) && in.Reason == placementv1beta1.OverriddenFailedReason:
		setCondition(st, gen, placementv1beta1.BindingOverriddenCondition, metav1.ConditionFalse, in.Reason, in.Message)
	case err != nil:
	case len(spec.ClusterResourceOverrideSnapshots) == 0 && len(spec.ResourceOverrideSnapshots) == 0:
		setCondition(st, gen, placementv1beta1.BindingOverriddenCondition, metav1.ConditionTrue, placementv1beta1.OverrideNotSpecifiedReason,
			"No override rules are configured for the selected resources")
	default:
		setCondition(st, gen, placementv1beta1.BindingOverriddenCondition, metav1.ConditionTrue, placementv1beta1.OverriddenSucceededReason,
			"Successfully applied the override rules on the resources")
	}
	return out, err
}
