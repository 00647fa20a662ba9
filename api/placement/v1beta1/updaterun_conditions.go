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

// StagedUpdateRunConditionType names a condition of an update run.
// +enum
type StagedUpdateRunConditionType string

const (
	// StagedUpdateRunConditionInitialized is True once the run has computed its stages and
	// clusters, and False, for good, when it could not (the message says why; fix the cause and
	// create a new run).
	StagedUpdateRunConditionInitialized StagedUpdateRunConditionType = "Initialized"

	// StagedUpdateRunConditionProgressing is True while the run is making progress, False while it
	// waits (for a task, a stuck cluster or a stop) or once it is finished, and Unknown while it is
	// stopping.
	StagedUpdateRunConditionProgressing StagedUpdateRunConditionType = "Progressing"

	// StagedUpdateRunConditionSucceeded is True when every stage completed and False when the run
	// failed and gave up.
	StagedUpdateRunConditionSucceeded StagedUpdateRunConditionType = "Succeeded"
)

// StageUpdatingConditionType names a condition of a stage of an update run.
// +enum
type StageUpdatingConditionType string

const (
	// StageUpdatingConditionProgressing is True while clusters of the stage are updating, False
	// while the stage waits for its tasks or is stopped or finished, and Unknown while it stops.
	StageUpdatingConditionProgressing StageUpdatingConditionType = "Progressing"

	// StageUpdatingConditionSucceeded is True once every cluster of the stage is updated and every
	// after-stage task is complete, and False when the stage failed.
	StageUpdatingConditionSucceeded StageUpdatingConditionType = "Succeeded"
)

// ClusterUpdatingStatusConditionType names a condition of a cluster in an update run.
// +enum
type ClusterUpdatingStatusConditionType string

const (
	// ClusterUpdatingConditionStarted is True once the cluster has started receiving the revision.
	ClusterUpdatingConditionStarted ClusterUpdatingStatusConditionType = "Started"

	// ClusterUpdatingConditionSucceeded is True once the cluster runs the revision and it is
	// available there, and False when updating the cluster failed.
	ClusterUpdatingConditionSucceeded ClusterUpdatingStatusConditionType = "Succeeded"
)

// StageTaskConditionType names a condition of a before- or after-stage task.
// +enum
type StageTaskConditionType string

const (
	// StageTaskConditionApprovalRequestCreated is True once the approval request of an Approval task
	// exists.
	StageTaskConditionApprovalRequestCreated StageTaskConditionType = "ApprovalRequestCreated"

	// StageTaskConditionApprovalRequestApproved is True once the approval request of an Approval
	// task has been approved.
	StageTaskConditionApprovalRequestApproved StageTaskConditionType = "ApprovalRequestApproved"

	// StageTaskConditionWaitTimeElapsed is True once the waitTime of a TimedWait task has passed.
	StageTaskConditionWaitTimeElapsed StageTaskConditionType = "WaitTimeElapsed"
)

// ApprovalRequestConditionType names a condition of an approval request.
// +enum
type ApprovalRequestConditionType string

const (
	// ApprovalRequestConditionApproved is set to True by the person approving the request.
	ApprovalRequestConditionApproved ApprovalRequestConditionType = "Approved"

	// ApprovalRequestConditionApprovalAccepted is set to True by the run once it has acted on the
	// approval; from then on the approval can no longer be withdrawn.
	ApprovalRequestConditionApprovalAccepted ApprovalRequestConditionType = "ApprovalAccepted"
)

// Reasons of update run conditions.
const (
	// UpdateRunInitializeSucceededReason: Initialized is True.
	UpdateRunInitializeSucceededReason = "UpdateRunInitializedSuccessfully"
	// UpdateRunInitializeFailedReason: Initialized is False; the message says what to fix.
	UpdateRunInitializeFailedReason = "UpdateRunInitializedFailed"
	// UpdateRunStartedReason: Progressing is True because the run has started executing.
	UpdateRunStartedReason = "UpdateRunStarted"
	// UpdateRunProgressingReason: Progressing is True because clusters are updating.
	UpdateRunProgressingReason = "UpdateRunProgressing"
	// UpdateRunWaitingReason: Progressing is False while the run waits for a stage task.
	UpdateRunWaitingReason = "UpdateRunWaiting"
	// UpdateRunStuckReason: Progressing is False because clusters take too long to update; the
	// message names them.
	UpdateRunStuckReason = "UpdateRunStuck"
	// UpdateRunStoppingReason: Progressing is Unknown while the run stops.
	UpdateRunStoppingReason = "UpdateRunStopping"
	// UpdateRunStoppedReason: Progressing is False because the run is stopped.
	UpdateRunStoppedReason = "UpdateRunStopped"
	// UpdateRunSucceededReason: Succeeded is True and Progressing False; every stage completed.
	UpdateRunSucceededReason = "UpdateRunSucceeded"
	// UpdateRunFailedReason: Succeeded and Progressing are False; the run gave up.
	UpdateRunFailedReason = "UpdateRunFailed"
)

// Reasons of stage conditions (the deletion stage included).
const (
	// StageUpdatingStartedReason: Progressing is True; the stage's clusters are updating.
	StageUpdatingStartedReason = "StageUpdatingStarted"
	// StageUpdatingWaitingReason: Progressing is False while the stage waits for its tasks.
	StageUpdatingWaitingReason = "StageUpdatingWaiting"
	// StageUpdatingStoppingReason: Progressing is Unknown while the stage stops.
	StageUpdatingStoppingReason = "StageUpdatingStopping"
	// StageUpdatingStoppedReason: Progressing is False because the run is stopped.
	StageUpdatingStoppedReason = "StageUpdatingStopped"
	// StageUpdatingSucceededReason: Succeeded is True; clusters and after-stage tasks are done.
	StageUpdatingSucceededReason = "StageUpdatingSucceeded"
	// StageUpdatingSkippedNoClustersReason: Succeeded is True for a stage without clusters, whose
	// tasks are skipped.
	StageUpdatingSkippedNoClustersReason = "StageUpdatingSkippedNoClusters"
	// StageUpdatingFailedReason: Succeeded is False; the message says why.
	StageUpdatingFailedReason = "StageUpdatingFailed"
)

// Reasons of cluster conditions.
const (
	// ClusterUpdatingStartedReason: Started is True.
	ClusterUpdatingStartedReason = "ClusterUpdatingStarted"
	// ClusterUpdatingSucceededReason: Succeeded is True.
	ClusterUpdatingSucceededReason = "ClusterUpdatingSucceeded"
	// ClusterUpdatingFailedReason: Succeeded is False; the message says why.
	ClusterUpdatingFailedReason = "ClusterUpdatingFailed"
)

// Reasons of stage task conditions.
const (
	// AfterStageTaskApprovalRequestCreatedReason: ApprovalRequestCreated is True for an
	// after-stage Approval task.
	AfterStageTaskApprovalRequestCreatedReason = "AfterStageTaskApprovalRequestCreated"
	// AfterStageTaskApprovalRequestApprovedReason: ApprovalRequestApproved is True for an
	// after-stage Approval task.
	AfterStageTaskApprovalRequestApprovedReason = "AfterStageTaskApprovalRequestApproved"
	// AfterStageTaskWaitTimeElapsedReason: WaitTimeElapsed is True for a TimedWait task.
	AfterStageTaskWaitTimeElapsedReason = "AfterStageTaskWaitTimeElapsed"
	// BeforeStageTaskApprovalRequestCreatedReason: ApprovalRequestCreated is True for a
	// before-stage Approval task.
	BeforeStageTaskApprovalRequestCreatedReason = "BeforeStageTaskApprovalRequestCreated"
	// BeforeStageTaskApprovalRequestApprovedReason: ApprovalRequestApproved is True for a
	// before-stage Approval task.
	BeforeStageTaskApprovalRequestApprovedReason = "BeforeStageTaskApprovalRequestApproved"
)

// Reasons of approval request conditions.
const (
	// ClusterApprovalRequestApprovedReason is the reason written by tools approving a
	// ClusterApprovalRequest (any reason is accepted).
	ClusterApprovalRequestApprovedReason = "ClusterApprovalRequestApproved"
	// ApprovalRequestApprovedReason is the reason written by tools approving an ApprovalRequest
	// (any reason is accepted).
	ApprovalRequestApprovedReason = "ApprovalRequestApproved"
	// ApprovalRequestApprovalAcceptedReason: ApprovalAccepted is True.
	ApprovalRequestApprovalAcceptedReason = "ApprovalRequestApprovalAccepted"
)
