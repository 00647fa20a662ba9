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

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// MaxHistory is how many versions a ClusterPromotion's status.history keeps.
const MaxHistory = 20

// MaxHistoryMessage and MaxDeployed bound what one version's record holds, so that MaxHistory
// versions of long failures, or of profiles deploying much, stay small beside the object.
const (
	// MaxHistoryMessage is the longest StageRecord.Message, in characters.
	MaxHistoryMessage = 512
	// MaxDeployed is the most entries of VersionRecord.Deployed.
	MaxDeployed = 20
)

// Outcomes of a version, and of one stage of it, in status.history.
//
// A version is InProgress until it went through every stage (Succeeded), a stage of it failed
// (Failed; it stays Failed while a rollback with onFailure: Rollback runs), every stage it
// reached is back on the last known good version (RolledBack), or a newer version started
// before it ended (Superseded). A stage is InProgress from when the version starts deploying to
// it until it passes its gate (Succeeded), fails (Failed), is put back by a rollback
// (RolledBack), or the version is superseded (Superseded). An outcome other than InProgress is
// final, but for Failed, which may become RolledBack.
const (
	OutcomeInProgress = "InProgress"
	OutcomeSucceeded  = "Succeeded"
	OutcomeFailed     = "Failed"
	OutcomeRolledBack = "RolledBack"
	OutcomeSuperseded = "Superseded"
)

// ApprovedByAnnotationPrefix is, followed by a stage's name, the annotation in which the API
// server records who approved the stage of a ClusterPromotion: the chart's
// MutatingAdmissionPolicy writes the requester's user name there whenever a request sets the
// stage's trigger.manual.approved to true, and undoes any other change of it. (A Stagecoach
// extension.)
const ApprovedByAnnotationPrefix = "approved-by.stagecoach.dev/"

// VersionRecord is one version a ClusterPromotion rolled out, as status.history keeps it.
// (A Stagecoach extension.)
type VersionRecord struct {
	// ProfileSpecHash identifies the version, as status.profileSpecHash did.
	ProfileSpecHash []byte `json:"profileSpecHash"`

	// Deployed lists what the version deploys: "chart <repo>/<chart>@<version>" for each Helm
	// chart, "<Kind> <namespace>/<name>" for each content reference; at most MaxDeployed
	// entries, the last then saying how many more there are.
	// +listType=atomic
	// +optional
	Deployed []string `json:"deployed,omitempty"`

	// Outcome is InProgress, Succeeded, Failed, RolledBack or Superseded.
	// +kubebuilder:validation:Enum=InProgress;Succeeded;Failed;RolledBack;Superseded
	Outcome string `json:"outcome"`

	// Started is when the version started its first stage.
	Started metav1.Time `json:"started"`

	// Finished is when the version completed its last stage, failed, or was rolled back.
	// +optional
	Finished *metav1.Time `json:"finished,omitempty"`

	// Stages has one entry per stage the version reached, in the order it reached them.
	// +listType=atomic
	// +optional
	Stages []StageRecord `json:"stages,omitempty"`
}

// StageRecord is one stage of a version in status.history.
type StageRecord struct {
	// Name of the stage.
	Name string `json:"name"`

	// Started is when the version started deploying to the stage.
	// +optional
	Started *metav1.Time `json:"started,omitempty"`

	// Finished is when the stage passed, failed, or was rolled back.
	// +optional
	Finished *metav1.Time `json:"finished,omitempty"`

	// Outcome is InProgress, Succeeded, Failed, RolledBack or Superseded.
	// +kubebuilder:validation:Enum=InProgress;Succeeded;Failed;RolledBack;Superseded
	Outcome string `json:"outcome"`

	// ApprovalNeededSince is when the stage started waiting for a manual approval.
	// +optional
	ApprovalNeededSince *metav1.Time `json:"approvalNeededSince,omitempty"`

	// ApprovedBy is the user who approved the stage, as the API server authenticated them (the
	// ApprovedByAnnotationPrefix annotation); empty when the stage needed no approval, or the
	// API server does not record approvers.
	// +optional
	ApprovedBy string `json:"approvedBy,omitempty"`

	// ApprovedAt is when the controller first saw the approval that opened the stage's gate.
	// +optional
	ApprovedAt *metav1.Time `json:"approvedAt,omitempty"`

	// Message says why the stage failed, or what it is waiting for; at most MaxHistoryMessage
	// characters.
	// +optional
	Message string `json:"message,omitempty"`

	// Retries counts the retries (stagecoach.dev/retry) that cleared a failure of the stage and
	// so opened it again: a stage that passed after a retry shows Succeeded, and how many
	// attempts it took.
	// +optional
	Retries int32 `json:"retries,omitempty"`
}
