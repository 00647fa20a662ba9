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

package updaterun

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
)

// approved handles one Approval task: it creates the task's approval request when it does not
// exist, and reports whether a person approved it. An approval counts when the request has an
// Approved condition that is True, with an observedGeneration equal to the request's generation
// or with none (Kubefleet's walkthrough approves both ways). The run then marks it
// ApprovalAccepted, after which withdrawing the approval changes nothing.
func (r *kindReconciler) approved(ctx context.Context, ru *run, stage, taskType string, task *placementv1beta1.StageTaskStatus) (bool, error) {
	if isTrue(task.Conditions, string(placementv1beta1.StageTaskConditionApprovalRequestApproved)) {
		return true, nil
	}
	createdReason, approvedReason := placementv1beta1.AfterStageTaskApprovalRequestCreatedReason, placementv1beta1.AfterStageTaskApprovalRequestApprovedReason
	if taskType == placementv1beta1.BeforeStageTaskLabelValue {
		createdReason, approvedReason = placementv1beta1.BeforeStageTaskApprovalRequestCreatedReason, placementv1beta1.BeforeStageTaskApprovalRequestApprovedReason
	}
	obj := ru.inputs.approval(task.ApprovalRequestName)
	err := r.client.Get(ctx, client.ObjectKeyFromObject(obj), obj)
	if apierrors.IsNotFound(err) {
		obj = ru.inputs.approval(task.ApprovalRequestName)
		spec := obj.ApprovalRequestSpec()
		obj.SetLabels(map[string]string{
			placementv1beta1.TargetUpdateRunLabel:           ru.GetName(),
			placementv1beta1.TargetUpdatingStageNameLabel:   stage,
			placementv1beta1.TaskTypeLabel:                  taskType,
			placementv1beta1.IsLatestUpdateRunApprovalLabel: "true",
		})
		spec.TargetUpdateRun, spec.TargetStage = ru.GetName(), stage
		if err := controllerutil.SetControllerReference(ru.UpdateRunObj, obj, r.client.Scheme()); err != nil {
			return false, err
		}
		if err := r.client.Create(ctx, obj); err != nil {
			return false, err
		}
		ru.setTask(task, placementv1beta1.StageTaskConditionApprovalRequestCreated, createdReason)
		r.event(ru, corev1.EventTypeNormal, createdReason, fmt.Sprintf("stage %s waits for %s %s to be approved", stage, r.family.ApprovalRequestKind(), task.ApprovalRequestName))
		return false, nil
	}
	if err != nil {
		return false, err
	}
	spec, status := obj.ApprovalRequestSpec(), obj.ApprovalRequestStatus()
	if spec.TargetUpdateRun != ru.GetName() || spec.TargetStage != stage {
		return false, abort(fmt.Sprintf("%s %s exists but belongs to run %s, stage %s; delete it or rename the run",
			r.family.ApprovalRequestKind(), task.ApprovalRequestName, spec.TargetUpdateRun, spec.TargetStage))
	}
	ru.setTask(task, placementv1beta1.StageTaskConditionApprovalRequestCreated, createdReason)
	gen := obj.GetGeneration()
	counts := func(t placementv1beta1.ApprovalRequestConditionType) bool {
		c := status.Condition(t)
		return c != nil && c.Status == metav1.ConditionTrue && (c.ObservedGeneration == 0 || c.ObservedGeneration == gen)
	}
	if !counts(placementv1beta1.ApprovalRequestConditionApproved) && !counts(placementv1beta1.ApprovalRequestConditionApprovalAccepted) {
		return false, nil
	}
	if !counts(placementv1beta1.ApprovalRequestConditionApprovalAccepted) {
		accepted := placementv1beta1.ApprovalCondition{
			Type: string(placementv1beta1.ApprovalRequestConditionApprovalAccepted), Status: metav1.ConditionTrue,
			ObservedGeneration: gen, LastTransitionTime: ru.now, Reason: placementv1beta1.ApprovalRequestApprovalAcceptedReason,
			Message: "The approval request has been approved and cannot be reverted",
		}
		err := patch.ChangeStatus(ctx, r.client, obj, func() {
			if c := status.Condition(placementv1beta1.ApprovalRequestConditionApprovalAccepted); c != nil {
				*c = accepted
			} else {
				status.Conditions = append(status.Conditions, accepted)
			}
		})
		if err != nil {
			return false, err
		}
	}
	ru.setTask(task, placementv1beta1.StageTaskConditionApprovalRequestApproved, approvedReason)
	r.event(ru, corev1.EventTypeNormal, approvedReason, fmt.Sprintf("%s %s approved; stage %s goes on", r.family.ApprovalRequestKind(), task.ApprovalRequestName, stage))
	return true, nil
}
