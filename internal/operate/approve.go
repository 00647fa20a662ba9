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

// Package operate holds the changes an operator makes to a rollout from the command line or the
// dashboard: approve the stage it waits at, suspend or resume it. Each checks that the change
// makes sense where the rollout stands, makes it with the caller's client (and so its
// credentials), and says what it did in words.
package operate

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/view"
)

// ApprovePromotion sets the manual approval of stage of the ClusterPromotion name, or of the
// stage it is at when stage is empty; a stage it has not reached is approved only when ahead.
func ApprovePromotion(ctx context.Context, c client.Client, name, stage string, ahead bool) (string, error) {
	p, err := Promotion(ctx, c, name)
	if err != nil {
		return "", err
	}
	idx, err := ApprovableStage(p, stage, ahead)
	if err != nil {
		return "", err
	}
	stage = p.Spec.Stages[idx].Name
	if a := p.Spec.Stages[idx].Trigger.Manual.Approved; a != nil && *a {
		return fmt.Sprintf("stage %s of ClusterPromotion %s is already approved", stage, p.Name), nil
	}
	// The test guards against stages reordered since they were read.
	ops := []map[string]any{
		{"op": "test", "path": fmt.Sprintf("/spec/stages/%d/name", idx), "value": stage},
		{"op": "add", "path": fmt.Sprintf("/spec/stages/%d/trigger/manual/approved", idx), "value": true},
	}
	data, _ := json.Marshal(ops)
	if err := c.Patch(ctx, p, client.RawPatch(types.JSONPatchType, data)); err != nil {
		return "", err
	}
	return fmt.Sprintf("approved stage %s of ClusterPromotion %s", stage, p.Name), nil
}

// ApprovableStage is the index of the stage to approve: the named one, or the one the promotion
// is at; an error says why it may not be approved.
func ApprovableStage(p *configv1beta1.ClusterPromotion, stage string, ahead bool) (int, error) {
	names := make([]string, len(p.Spec.Stages))
	for i, s := range p.Spec.Stages {
		names[i] = s.Name
	}
	current := slices.Index(names, p.Status.CurrentStageName)
	idx := current
	if stage != "" {
		if idx = slices.Index(names, stage); idx < 0 {
			return 0, fmt.Errorf("ClusterPromotion %s has no stage %s; its stages are %s", p.Name, stage, strings.Join(names, ", "))
		}
	} else if current < 0 {
		return 0, fmt.Errorf("ClusterPromotion %s has not started its first stage yet; name the stage with --stage and --ahead to approve it in advance", p.Name)
	}
	name := names[idx]
	if t := p.Spec.Stages[idx].Trigger; t == nil || t.Manual == nil {
		return 0, fmt.Errorf("stage %s of ClusterPromotion %s has an automatic trigger: there is nothing to approve", name, p.Name)
	}
	state, _ := view.PromotionState(p)
	switch {
	case current >= 0 && idx < current:
		return 0, fmt.Errorf("stage %s of ClusterPromotion %s is behind it: the promotion is at stage %s", name, p.Name, p.Status.CurrentStageName)
	case idx == current && state == view.Succeeded:
		return 0, fmt.Errorf("ClusterPromotion %s has gone through every stage: there is nothing to approve", p.Name)
	case idx != current && !ahead:
		at := "has not started yet"
		if current >= 0 {
			at = "is at stage " + p.Status.CurrentStageName
		}
		return 0, fmt.Errorf("stage %s of ClusterPromotion %s is not waiting: the promotion %s (--ahead approves it in advance)", name, p.Name, at)
	}
	return idx, nil
}

// ApproveRun approves the approval request stage of the update run namespace/name waits on (a
// ClusterStagedUpdateRun when namespace is empty); by says who, in the condition's message.
func ApproveRun(ctx context.Context, c client.Client, namespace, name, stage, by string) (string, error) {
	run, err := Run(ctx, c, namespace, name)
	if err != nil {
		return "", err
	}
	family := placementv1beta1.FamilyOf(run)
	task, err := PendingApproval(run, stage)
	if err != nil {
		return "", err
	}
	if task == "" {
		return fmt.Sprintf("stage %s of %s %s is already approved", stage, family.UpdateRunKind(), name), nil
	}
	req := family.NewApprovalRequest()
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: task}, req); err != nil {
		return "", view.NotFound(err, family.ApprovalRequestKind(), namespace, task)
	}
	reason := placementv1beta1.ApprovalRequestApprovedReason
	if !family.Namespaced {
		reason = placementv1beta1.ClusterApprovalRequestApprovedReason
	}
	status := req.ApprovalRequestStatus()
	approved := placementv1beta1.ApprovalCondition{Type: string(placementv1beta1.ApprovalRequestConditionApproved), Status: metav1.ConditionTrue,
		ObservedGeneration: req.GetGeneration(), LastTransitionTime: metav1.Now(), Reason: reason, Message: "approved with " + by}
	if c := status.Condition(placementv1beta1.ApprovalRequestConditionApproved); c != nil {
		*c = approved
	} else {
		status.Conditions = append(status.Conditions, approved)
	}
	// An update, not a patch: it fails rather than overwrite conditions written since.
	if err := c.Status().Update(ctx, req); err != nil {
		return "", err
	}
	return fmt.Sprintf("approved %s %s (stage %s of %s %s)", family.ApprovalRequestKind(), task, stage, family.UpdateRunKind(), name), nil
}

// PendingApproval is the name of the approval request the run's stage waits on: its first
// Approval task whose request exists and is not approved yet; "" when every one is approved.
func PendingApproval(run placementv1beta1.UpdateRunObj, stage string) (string, error) {
	kind := placementv1beta1.FamilyOf(run).UpdateRunKind()
	var names []string
	for _, st := range run.UpdateRunStatus().StagesStatus {
		names = append(names, st.StageName)
		if st.StageName != stage {
			continue
		}
		tasks := append(slices.Clone(st.BeforeStageTaskStatus), st.AfterStageTaskStatus...)
		hasApproval := false
		for _, t := range tasks {
			if t.Type != placementv1beta1.StageTaskTypeApproval {
				continue
			}
			hasApproval = true
			if meta.IsStatusConditionTrue(t.Conditions, string(placementv1beta1.StageTaskConditionApprovalRequestApproved)) {
				continue
			}
			if meta.IsStatusConditionTrue(t.Conditions, string(placementv1beta1.StageTaskConditionApprovalRequestCreated)) {
				return t.ApprovalRequestName, nil
			}
			return "", fmt.Errorf("stage %s of %s %s has not asked for approval yet: it asks when the run gets there", stage, kind, run.GetName())
		}
		if !hasApproval {
			return "", fmt.Errorf("stage %s of %s %s has no Approval task: there is nothing to approve", stage, kind, run.GetName())
		}
		return "", nil // every approval given
	}
	if len(names) == 0 {
		state, msg := view.RunState(run)
		return "", fmt.Errorf("%s %s has no stages yet (%s: %s)", kind, run.GetName(), state, msg)
	}
	return "", fmt.Errorf("%s %s has no stage %s; its stages are %s", kind, run.GetName(), stage, strings.Join(names, ", "))
}
