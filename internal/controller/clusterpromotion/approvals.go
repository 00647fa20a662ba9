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
	"encoding/json"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
)

// An approval of a stage with automaticReset is good for one pass of one version. Using it is
// two writes, in this order: the status moves past the stage and lists it in
// status.consumedApprovals, then a later reconcile sets spec approved back to false and drops
// the name. A crash between the two leaves a listed approval that counts for nothing, so it is
// neither lost (the status moved on first) nor used twice (a listed approval never opens a
// gate). A new version lists every approval already given: those were meant for the version
// before.

// approved reports whether the manual stage's approval opens its gate now.
func approved(p *configv1beta1.ClusterPromotion, stage *configv1beta1.Stage) bool {
	if stage.Trigger == nil {
		return false
	}
	m := stage.Trigger.Manual
	return m != nil && m.Approved != nil && *m.Approved && !slices.Contains(p.Status.ConsumedApprovals, stage.Name)
}

// consumeApproval lists the stage's approval as used, when its trigger resets approvals.
func consumeApproval(p *configv1beta1.ClusterPromotion, stage *configv1beta1.Stage) {
	if stage.Trigger == nil {
		return
	}
	if m := stage.Trigger.Manual; m != nil && m.ResetsApproval() && !slices.Contains(p.Status.ConsumedApprovals, stage.Name) {
		p.Status.ConsumedApprovals = append(p.Status.ConsumedApprovals, stage.Name)
	}
}

// consumeStandingApprovals lists every approval given to a stage with automaticReset: a new
// version starts, and they were given for the one before.
func consumeStandingApprovals(p *configv1beta1.ClusterPromotion) {
	for i := range p.Spec.Stages {
		if s := &p.Spec.Stages[i]; approved(p, s) {
			consumeApproval(p, s)
		}
	}
}

// approvalsPhase finishes using the approvals an earlier pass used: see resetConsumedApprovals.
func (r *Reconciler) approvalsPhase(ctx context.Context, ps *pass) error {
	return r.resetConsumedApprovals(ctx, ps.p)
}

// resetConsumedApprovals sets approved back to false on every stage listed in
// status.consumedApprovals and drops it from the list (in the status this reconcile writes).
func (r *Reconciler) resetConsumedApprovals(ctx context.Context, p *configv1beta1.ClusterPromotion) error {
	for _, name := range p.Status.ConsumedApprovals {
		idx := slices.IndexFunc(p.Spec.Stages, func(s configv1beta1.Stage) bool { return s.Name == name })
		if idx < 0 || p.Spec.Stages[idx].Trigger == nil || p.Spec.Stages[idx].Trigger.Manual == nil {
			continue // the stage or its manual trigger is gone, and its approval with it
		}
		if m := p.Spec.Stages[idx].Trigger.Manual; m.Approved != nil && *m.Approved {
			// On failure the list stays whole: a reset is harmless to do twice.
			if err := r.resetApproval(ctx, p, idx); err != nil {
				return err
			}
		}
	}
	p.Status.ConsumedApprovals = nil
	return nil
}

// resetApproval sets approved back to false. Upstream removes the field instead; false means the
// same, and keeps the documented `kubectl patch --type=json` "replace" of
// /trigger/manual/approved working for the next version. It patches a copy: a patch overwrites
// its object with the server's, and p holds the status this reconcile computes.
func (r *Reconciler) resetApproval(ctx context.Context, p *configv1beta1.ClusterPromotion, idx int) error {
	patched := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: p.Name}}
	// The test op makes the patch fail, and the reconcile start over, if the stages moved since.
	name, _ := json.Marshal(p.Spec.Stages[idx].Name)
	ops := fmt.Sprintf(`[{"op": "test", "path": "/spec/stages/%[1]d/name", "value": %[2]s},
		{"op": "replace", "path": "/spec/stages/%[1]d/trigger/manual/approved", "value": false}]`, idx, name)
	if err := r.client.Patch(ctx, patched, client.RawPatch(types.JSONPatchType, []byte(ops))); err != nil {
		return fmt.Errorf("resetting the approval of stage %s: %w", p.Spec.Stages[idx].Name, err)
	}
	approved := false
	p.Spec.Stages[idx].Trigger.Manual.Approved = &approved
	// The status written when this reconcile ends goes on top of this write.
	p.ResourceVersion = patched.ResourceVersion
	p.Generation = patched.Generation
	return nil
}
