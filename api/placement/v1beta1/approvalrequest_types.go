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

package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=careq,categories={fleet,fleet-placement}
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:JSONPath=`.spec.parentStageRollout`,name="Update-Run",type=string
// +kubebuilder:printcolumn:JSONPath=`.spec.targetStage`,name="Stage",type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="Approved")].status`,name="Approved",type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="ApprovalAccepted")].status`,name="ApprovalAccepted",type=string
// +kubebuilder:printcolumn:JSONPath=`.metadata.creationTimestamp`,name="Age",type=date

// ClusterApprovalRequest is a gate of a ClusterStagedUpdateRun that waits for a person. The run
// creates it for each Approval task, named "<run>-<stage>" for an after-stage task (see
// ApprovalTaskNameFmt) and labelled with TargetUpdateRunLabel, TargetUpdatingStageNameLabel,
// TaskTypeLabel and IsLatestUpdateRunApprovalLabel.
//
// To approve, add a condition of type Approved with status "True" through the status subresource,
// for example with kubectl patch --subresource=status. The condition's lastTransitionTime and
// observedGeneration may be given or left out. Once the run has acted on the approval it adds
// ApprovalAccepted; withdrawing the approval afterwards changes nothing.
type ClusterApprovalRequest struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec names the run and stage waiting for approval. It cannot change.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="The spec field is immutable"
	// +required
	Spec ApprovalRequestSpec `json:"spec"`

	// Status holds the approval.
	// +optional
	Status ApprovalRequestStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ClusterApprovalRequestList is a list of ClusterApprovalRequests.
type ClusterApprovalRequestList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterApprovalRequest `json:"items"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,shortName=areq,categories={fleet,fleet-placement}
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:JSONPath=`.spec.parentStageRollout`,name="Update-Run",type=string
// +kubebuilder:printcolumn:JSONPath=`.spec.targetStage`,name="Stage",type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="Approved")].status`,name="Approved",type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="ApprovalAccepted")].status`,name="ApprovalAccepted",type=string
// +kubebuilder:printcolumn:JSONPath=`.metadata.creationTimestamp`,name="Age",type=date

// ApprovalRequest is the namespaced counterpart of ClusterApprovalRequest, created by a
// StagedUpdateRun in its namespace and approved the same way.
type ApprovalRequest struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec names the run and stage waiting for approval. It cannot change.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="The spec field is immutable"
	// +required
	Spec ApprovalRequestSpec `json:"spec"`

	// Status holds the approval.
	// +optional
	Status ApprovalRequestStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ApprovalRequestList is a list of ApprovalRequests.
type ApprovalRequestList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ApprovalRequest `json:"items"`
}

// ApprovalRequestSpec names the run and stage an approval request gates.
type ApprovalRequestSpec struct {
	// TargetUpdateRun is the name of the update run waiting for approval.
	// +required
	TargetUpdateRun string `json:"parentStageRollout"`

	// TargetStage is the name of the stage waiting for approval.
	// +required
	TargetStage string `json:"targetStage"`
}

// ApprovalRequestStatus holds the approval of an approval request.
type ApprovalRequestStatus struct {
	// Conditions are Approved, written by the person approving, and ApprovalAccepted, written by
	// the run once it has acted on the approval.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []ApprovalCondition `json:"conditions,omitempty"`
}

// Condition returns the condition of the given type, or nil when there is none.
func (s *ApprovalRequestStatus) Condition(conditionType ApprovalRequestConditionType) *ApprovalCondition {
	for i := range s.Conditions {
		if s.Conditions[i].Type == string(conditionType) {
			return &s.Conditions[i]
		}
	}
	return nil
}

// ApprovalCondition is a condition of an approval request. It has the fields and JSON form of
// metav1.Condition, but lastTransitionTime, reason and message may be left out, because people
// write these conditions by hand (for example with kubectl patch) and often give only type and
// status.
type ApprovalCondition struct {
	// Type of the condition: Approved or ApprovalAccepted.
	// +kubebuilder:validation:MaxLength=316
	// +kubebuilder:validation:Pattern=`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$`
	// +required
	Type string `json:"type"`

	// Status of the condition: "True", "False" or "Unknown".
	// +kubebuilder:validation:Enum="True";"False";Unknown
	// +required
	Status metav1.ConditionStatus `json:"status"`

	// ObservedGeneration is the metadata.generation of the approval request the condition was set
	// for. It may be left out.
	// +kubebuilder:validation:Minimum=0
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// LastTransitionTime is when the condition last changed status. It may be left out.
	// +optional
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`

	// Reason is a short CamelCase word for why the condition is what it is, such as Approved.
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`
	// +optional
	Reason string `json:"reason,omitempty"`

	// Message explains the condition to a person.
	// +kubebuilder:validation:MaxLength=32768
	// +optional
	Message string `json:"message,omitempty"`
}
