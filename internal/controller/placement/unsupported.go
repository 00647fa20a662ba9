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
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// reasonUnsupportedField is the Scheduled condition's reason and the Event's when a placement
// asks for something Stagecoach does not do.
const reasonUnsupportedField = "UnsupportedField"

// unsupported lists, by field, what the placement asks for that Stagecoach does not do. Fields
// the scheduler or the binding controller refuse are left to them.
func unsupported(spec placementv1beta1.PlacementSpec) []string {
	var out []string
	if rb := spec.Strategy.ReportBackStrategy; rb != nil && rb.Type == placementv1beta1.ReportBackStrategyTypeMirror {
		out = append(out, "strategy.reportBackStrategy type Mirror (the status of placed resources is not copied back; use Disabled)")
	}
	return out
}

// supportedPhase halts a placement that asks for what Stagecoach does not do, before anything
// is selected, scheduled or applied: what it deployed before stays as it is.
func (r *kindReconciler) supportedPhase(ctx context.Context, ps *pass) error {
	fields := unsupported(ps.spec)
	if len(fields) == 0 {
		return nil
	}
	ct := r.family.PlacementConditions().Scheduled
	msg := "Not supported by Stagecoach: " + strings.Join(fields, "; ") + ". Nothing is changed until the placement is edited."
	if !hasCondition(ps.p, ct, metav1.ConditionFalse, reasonUnsupportedField, msg) {
		r.recorder.Eventf(ps.p, nil, corev1.EventTypeWarning, reasonUnsupportedField, "Validate", "%s", msg)
		ctrl.LoggerFrom(ctx).Info("placement refused", "message", msg)
	}
	setCondition(ps.p, ct, metav1.ConditionFalse, reasonUnsupportedField, msg)
	return errHalt
}
