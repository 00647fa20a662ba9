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
// +kubebuilder:resource:scope=Cluster,shortName=csur,categories={fleet,fleet-placement}
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:JSONPath=`.spec.placementName`,name="Placement",type=string
// +kubebuilder:printcolumn:JSONPath=`.spec.resourceSnapshotIndex`,name="Resource-Snapshot",type=string
// +kubebuilder:printcolumn:JSONPath=`.status.policySnapshotIndexUsed`,name="Policy-Snapshot",type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="Initialized")].status`,name="Initialized",type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="Progressing")].status`,name="Progressing",priority=1,type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="Succeeded")].status`,name="Succeeded",type=string
// +kubebuilder:printcolumn:JSONPath=`.metadata.creationTimestamp`,name="Age",type=date
// +kubebuilder:printcolumn:JSONPath=`.spec.stagedRolloutStrategyName`,name="Strategy",priority=1,type=string
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) < 64",message="metadata.name max length is 63"

// ClusterStagedUpdateRun rolls one revision (resource snapshot index) of a ClusterResourcePlacement
// out to the clusters the placement picked, stage by stage as a ClusterStagedUpdateStrategy says.
// After the last stage it removes the resources from clusters the placement no longer picks.
//
// The placement's strategy type must be External. Rolling back is another run that names an older
// resourceSnapshotIndex. Deleting a run stops it and deletes its approval requests, but leaves what
// it already deployed in place.
type ClusterStagedUpdateRun struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec says what to roll out, following which strategy.
	// +required
	Spec UpdateRunSpec `json:"spec"`

	// Status is the progress of the run.
	// +optional
	Status UpdateRunStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ClusterStagedUpdateRunList is a list of ClusterStagedUpdateRuns.
type ClusterStagedUpdateRunList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterStagedUpdateRun `json:"items"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,shortName=sur,categories={fleet,fleet-placement}
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:JSONPath=`.spec.placementName`,name="Placement",type=string
// +kubebuilder:printcolumn:JSONPath=`.spec.resourceSnapshotIndex`,name="Resource-Snapshot",type=string
// +kubebuilder:printcolumn:JSONPath=`.status.policySnapshotIndexUsed`,name="Policy-Snapshot",type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="Initialized")].status`,name="Initialized",type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="Progressing")].status`,name="Progressing",priority=1,type=string
// +kubebuilder:printcolumn:JSONPath=`.status.conditions[?(@.type=="Succeeded")].status`,name="Succeeded",type=string
// +kubebuilder:printcolumn:JSONPath=`.metadata.creationTimestamp`,name="Age",type=date
// +kubebuilder:printcolumn:JSONPath=`.spec.stagedRolloutStrategyName`,name="Strategy",priority=1,type=string
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) < 64",message="metadata.name max length is 63"

// StagedUpdateRun is the namespaced counterpart of ClusterStagedUpdateRun: it rolls out a
// ResourcePlacement following a StagedUpdateStrategy, both in the run's namespace, and creates its
// ApprovalRequests there.
type StagedUpdateRun struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec says what to roll out, following which strategy.
	// +required
	Spec UpdateRunSpec `json:"spec"`

	// Status is the progress of the run.
	// +optional
	Status UpdateRunStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// StagedUpdateRunList is a list of StagedUpdateRuns.
type StagedUpdateRunList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []StagedUpdateRun `json:"items"`
}

// State is what the user wants an update run to do.
// +enum
type State string

const (
	// StateInitialize prepares the run (computes its stages and clusters and records them in the
	// status) without deploying anything. It can then move to Run.
	StateInitialize State = "Initialize"

	// StateRun executes the run, or resumes it after Stop. A run without a state runs.
	StateRun State = "Run"

	// StateStop stops the run: no new cluster starts updating and no approval is acted on; clusters
	// already updating finish. It can move back to Run.
	StateStop State = "Stop"
)

// UpdateRunSpec says which revision of which placement to roll out, following which strategy.
// ClusterStagedUpdateRun and StagedUpdateRun share it. Only state may change after creation.
// +kubebuilder:validation:XValidation:rule="!(has(oldSelf.state) && oldSelf.state == 'Initialize' && has(self.state) && self.state == 'Stop')",message="invalid state transition: cannot transition from Initialize to Stop: set state to Run first, or delete the run",fieldPath=".state"
// +kubebuilder:validation:XValidation:rule="!((!has(oldSelf.state) || oldSelf.state == 'Run') && has(self.state) && self.state == 'Initialize')",message="invalid state transition: cannot transition from Run to Initialize: a started run can only be stopped (Stop) or resumed (Run)",fieldPath=".state"
// +kubebuilder:validation:XValidation:rule="!(has(oldSelf.state) && oldSelf.state == 'Stop' && has(self.state) && self.state == 'Initialize')",message="invalid state transition: cannot transition from Stop to Initialize: resume the run with Run, or delete it",fieldPath=".state"
// +kubebuilder:validation:XValidation:rule="(has(self.resourceSnapshotIndex) && size(self.resourceSnapshotIndex) > 0) ? (has(oldSelf.resourceSnapshotIndex) && self.resourceSnapshotIndex == oldSelf.resourceSnapshotIndex) : (!has(oldSelf.resourceSnapshotIndex) || size(oldSelf.resourceSnapshotIndex) == 0)",message="resourceSnapshotIndex is immutable: create a new run to roll out another index",fieldPath=".resourceSnapshotIndex"
type UpdateRunSpec struct {
	// PlacementName is the placement to roll out: a ClusterResourcePlacement for a
	// ClusterStagedUpdateRun, a ResourcePlacement in the same namespace for a StagedUpdateRun. Its
	// strategy type must be External. Several runs may target one placement; keeping them from
	// working against each other is up to their authors.
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="placementName is immutable"
	// +required
	PlacementName string `json:"placementName"`

	// ResourceSnapshotIndex is the revision to roll out: the value of the
	// kubernetes-fleet.io/resource-index label of the placement's resource snapshots, a whole number
	// such as "0" or "1". When empty, the run takes the placement's latest revision when it starts
	// and records it in status.resourceSnapshotIndexUsed.
	// +optional
	ResourceSnapshotIndex string `json:"resourceSnapshotIndex"`

	// StagedUpdateStrategyName is the strategy giving the stages: a ClusterStagedUpdateStrategy for a
	// ClusterStagedUpdateRun, a StagedUpdateStrategy in the same namespace for a StagedUpdateRun.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="stagedRolloutStrategyName is immutable"
	// +required
	StagedUpdateStrategyName string `json:"stagedRolloutStrategyName"`

	// State is what the run should do: Initialize (prepare without deploying), Run or Stop. A run
	// created without a state runs. Allowed changes: Initialize to Run, Run to Stop and Stop to Run.
	// +kubebuilder:validation:Enum=Initialize;Run;Stop
	// +optional
	State State `json:"state,omitempty"`
}

// UpdateRunStatus is the progress of an update run. ClusterStagedUpdateRun and StagedUpdateRun
// share it. Everything the run decides when it starts (strategy, clusters, revision, apply
// strategy) is recorded here and not re-read later.
type UpdateRunStatus struct {
	// PolicySnapshotIndexUsed is the index of the placement's scheduling policy revision the run
	// took its clusters from. If the placement's policy changes during the run, the run fails.
	// +optional
	PolicySnapshotIndexUsed string `json:"policySnapshotIndexUsed,omitempty"`

	// PolicyObservedClusterCount is the number of clusters the placement's policy picked when the
	// run started. If it changes during the run, the run fails.
	// +optional
	PolicyObservedClusterCount int32 `json:"policyObservedClusterCount,omitempty"`

	// ResourceSnapshotIndexUsed is the revision the run rolls out: spec.resourceSnapshotIndex, or
	// the latest revision when that is empty.
	// +optional
	ResourceSnapshotIndexUsed string `json:"resourceSnapshotIndexUsed,omitempty"`

	// ApplyStrategy is the placement's apply strategy, with defaults filled in, as it was when the
	// run started; later changes to the placement do not affect the run.
	// +optional
	ApplyStrategy *ApplyStrategy `json:"appliedStrategy,omitempty"`

	// UpdateStrategySnapshot is the strategy as it was when the run started. Approval tasks are
	// recorded without waitTime.
	// +optional
	UpdateStrategySnapshot *UpdateStrategySpec `json:"stagedUpdateStrategySnapshot,omitempty"`

	// RollbackRunName names the rollback run this run started when it failed, its strategy's
	// onFailure being Rollback. A Stagecoach extension.
	// +optional
	RollbackRunName string `json:"rollbackRunName,omitempty"`

	// StagesStatus holds one entry per strategy stage, in order. Empty until the run is initialized.
	// +listType=atomic
	// +optional
	StagesStatus []StageUpdatingStatus `json:"stagesStatus,omitempty"`

	// DeletionStageStatus is the last stage, named kubernetes-fleet.io/deleteStage, which removes
	// the resources from the clusters the placement no longer picks once every other stage is done.
	// +optional
	DeletionStageStatus *StageUpdatingStatus `json:"deletionStageStatus,omitempty"`

	// Conditions are Initialized, Progressing and Succeeded.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// StageUpdatingStatus is the progress of one stage of an update run.
type StageUpdatingStatus struct {
	// StageName is the strategy stage, or kubernetes-fleet.io/deleteStage for the deletion stage.
	// +required
	StageName string `json:"stageName"`

	// Clusters lists the clusters of the stage in the order they are updated.
	// +listType=atomic
	// +required
	Clusters []ClusterUpdatingStatus `json:"clusters"`

	// AfterStageTaskStatus is the progress of the stage's after-stage tasks, in strategy order.
	// +kubebuilder:validation:MaxItems=2
	// +listType=atomic
	// +optional
	AfterStageTaskStatus []StageTaskStatus `json:"afterStageTaskStatus,omitempty"`

	// BeforeStageTaskStatus is the progress of the stage's before-stage task.
	// +kubebuilder:validation:MaxItems=1
	// +listType=atomic
	// +optional
	BeforeStageTaskStatus []StageTaskStatus `json:"beforeStageTaskStatus,omitempty"`

	// StartTime is when the first cluster of the stage started updating.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`

	// EndTime is when the stage finished, its after-stage tasks included.
	// +optional
	EndTime *metav1.Time `json:"endTime,omitempty"`

	// StoppedTime is when the run was stopped while the stage was under way. When the run
	// resumes, the stage's after-stage waits and its progress deadline go on from where they
	// stopped: the time stopped does not count. A Stagecoach extension.
	// +optional
	StoppedTime *metav1.Time `json:"stoppedTime,omitempty"`

	// ProgressDeadlineTime is when the stage fails unless every one of its clusters is updated
	// by then: when it started plus the strategy's progressDeadline, moved on by the time the
	// run was stopped. Set only for a stage with a progressDeadline. A Stagecoach extension.
	// +optional
	ProgressDeadlineTime *metav1.Time `json:"progressDeadlineTime,omitempty"`

	// Conditions are Progressing and Succeeded. Empty until the stage starts.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// ClusterCounts counts the stage's clusters by where they stand. It is set only for a stage
	// with more clusters than clusters may list (100 by default), which keeps the run's status
	// small: clusters then lists the started clusters only, failed and updating ones first, then
	// the latest succeeded; notStartedClusters and updatingClusters name the other clusters not
	// done yet, and the other succeeded clusters are counted here and not named. A Stagecoach
	// extension.
	// +optional
	ClusterCounts *StageClusterCounts `json:"clusterCounts,omitempty"`

	// NotStartedClusters names, in update order, the stage's clusters that have not started
	// updating, when clusterCounts is set. A Stagecoach extension.
	// +listType=atomic
	// +optional
	NotStartedClusters []string `json:"notStartedClusters,omitempty"`

	// UpdatingClusters names the stage's clusters that are updating and that clusters does not
	// list, when clusterCounts is set. A Stagecoach extension.
	// +listType=atomic
	// +optional
	UpdatingClusters []string `json:"updatingClusters,omitempty"`
}

// Size is the number of clusters in the stage, listed or not.
func (st *StageUpdatingStatus) Size() int {
	if st.ClusterCounts != nil {
		return int(st.ClusterCounts.Total)
	}
	return len(st.Clusters)
}

// StageClusterCounts counts the clusters of a stage by where they stand.
type StageClusterCounts struct {
	// Total is the number of clusters in the stage, fixed when the run is initialized.
	Total int32 `json:"total"`

	// NotStarted is the number of clusters that have not started updating.
	NotStarted int32 `json:"notStarted"`

	// Updating is the number of clusters updating.
	Updating int32 `json:"updating"`

	// Succeeded is the number of clusters updated.
	Succeeded int32 `json:"succeeded"`

	// Failed is the number of clusters whose update failed.
	Failed int32 `json:"failed"`
}

// ClusterUpdatingStatus is the progress of an update run on one cluster.
type ClusterUpdatingStatus struct {
	// ClusterName is the member cluster.
	// +required
	ClusterName string `json:"clusterName"`

	// ResourceOverrideSnapshots are the ResourceOverride snapshots that apply to this cluster, as
	// computed when the run started.
	// +listType=atomic
	// +optional
	ResourceOverrideSnapshots []NamespacedName `json:"resourceOverrideSnapshots,omitempty"`

	// ClusterResourceOverrideSnapshots are the ClusterResourceOverride snapshots that apply to this
	// cluster, as computed when the run started.
	// +listType=atomic
	// +optional
	ClusterResourceOverrideSnapshots []string `json:"clusterResourceOverrideSnapshots,omitempty"`

	// Conditions are Started and Succeeded. Empty until the cluster starts updating.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// StageTaskStatus is the progress of one before- or after-stage task.
type StageTaskStatus struct {
	// Type is TimedWait or Approval.
	// +kubebuilder:validation:Enum=TimedWait;Approval
	// +required
	Type StageTaskType `json:"type"`

	// ApprovalRequestName is the approval request created for an Approval task.
	// +optional
	ApprovalRequestName string `json:"approvalRequestName,omitempty"`

	// Conditions are ApprovalRequestCreated and ApprovalRequestApproved for an Approval task, and
	// WaitTimeElapsed for a TimedWait task.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}
