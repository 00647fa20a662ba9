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
	"k8s.io/apimachinery/pkg/util/intstr"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=csus,categories={fleet,fleet-placement}
// +kubebuilder:storageversion

// ClusterStagedUpdateStrategy is a reusable rollout plan for ClusterStagedUpdateRuns: it sorts the
// clusters a placement picked into ordered stages and says what must happen before and after each
// stage.
type ClusterStagedUpdateStrategy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec lists the stages.
	// +required
	Spec UpdateStrategySpec `json:"spec"`
}

// +kubebuilder:object:root=true

// ClusterStagedUpdateStrategyList is a list of ClusterStagedUpdateStrategies.
type ClusterStagedUpdateStrategyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterStagedUpdateStrategy `json:"items"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,shortName=sus,categories={fleet,fleet-placement}
// +kubebuilder:storageversion

// StagedUpdateStrategy is the namespaced counterpart of ClusterStagedUpdateStrategy, used by
// StagedUpdateRuns in the same namespace.
type StagedUpdateStrategy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec lists the stages.
	// +required
	Spec UpdateStrategySpec `json:"spec"`
}

// +kubebuilder:object:root=true

// StagedUpdateStrategyList is a list of StagedUpdateStrategies.
type StagedUpdateStrategyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []StagedUpdateStrategy `json:"items"`
}

// UpdateStrategySpec lists the stages of a staged update strategy. An update run copies it into its
// status when it starts, so later edits of the strategy do not affect runs already started.
type UpdateStrategySpec struct {
	// Stages are rolled out one after the other, in this order. Between 1 and 31 stages, with
	// unique names. When a run starts, every cluster the placement picked must fall into exactly
	// one stage.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=31
	// +kubebuilder:validation:XValidation:rule="self.all(s, !has(s.name) || self.filter(t, has(t.name) && t.name == s.name).size() == 1)",message="stage names must be unique within a strategy: two or more stages share a name, rename them"
	// +listType=map
	// +listMapKey=name
	// +required
	Stages []StageConfig `json:"stages"`

	// OnFailure is what a run does when one of its stages fails (see the stages' maxFailures and
	// progressDeadline): Stop (the default) fails the run where it is, and the clusters keep
	// what they run; Rollback fails it too and starts a rollback run, named "<run>-rollback", to
	// the placement's previous resource snapshot index, through the same stages without their
	// tasks (no wait, no approval). A rollback run that fails does not start another one. A
	// Stagecoach extension.
	// +kubebuilder:validation:Enum=Stop;Rollback
	// +optional
	OnFailure string `json:"onFailure,omitempty"`

	// DenyWindows are freeze windows: while any is open, no stage of a run following this
	// strategy starts; a stage already started goes on. Runs read them from the strategy as it
	// is now, not from the copy they took when they started, so that a freeze declared during a
	// run applies to it. Each window opens at from and closes at to, two cron expressions
	// ("0 18 * * 5" to "0 8 * * 1"), optionally with a CRON_TZ= prefix. A Stagecoach extension.
	// +kubebuilder:validation:MaxItems=16
	// +listType=atomic
	// +optional
	DenyWindows []TimeWindow `json:"denyWindows,omitempty"`

	// JoiningClusters is what a cluster the placement picks after a run initialized gets from
	// that run. NextRun (the default, as in Kubefleet) gives it nothing: it waits, Scheduled, for
	// the next run. StageSnapshot gives it the run's resource snapshot once its stage has started:
	// at once when the stage has passed (without holding the run or counting against the
	// stage), and as one of the stage's clusters, under its maxConcurrency, while it is under
	// way or not reached yet. A cluster that leaves during a run is dropped from it either way.
	// A Stagecoach extension.
	// +kubebuilder:validation:Enum=NextRun;StageSnapshot
	// +optional
	JoiningClusters string `json:"joiningClusters,omitempty"`
}

// TimeWindow is a time window between two cron expressions.
type TimeWindow struct {
	// From opens the window.
	// +kubebuilder:validation:MinLength=1
	From string `json:"from"`

	// To closes the window.
	// +kubebuilder:validation:MinLength=1
	To string `json:"to"`
}

// Values of UpdateStrategySpec.JoiningClusters.
const (
	JoiningClustersNextRun       = "NextRun"
	JoiningClustersStageSnapshot = "StageSnapshot"
)

// Values of UpdateStrategySpec.OnFailure.
const (
	OnFailureStop     = "Stop"
	OnFailureRollback = "Rollback"
)

// StageConfig is one stage of a staged update strategy.
type StageConfig struct {
	// Name identifies the stage; it is unique within the strategy and names the approval requests
	// of the stage ("<run>-<stage>"). A lowercase DNS label: letters, digits and '-', at most 63
	// characters, starting and ending with a letter or digit.
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +required
	Name string `json:"name"`

	// LabelSelector picks, among the clusters the placement picked, those that belong to this
	// stage. An empty selector ({}) takes all of them; leaving it unset takes none.
	// +optional
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`

	// SortingLabelKey orders the clusters of the stage: ascending by the integer value of this
	// label, then by cluster name. Without it clusters are ordered by name. Every cluster of the
	// stage must carry the label with an integer value.
	// +optional
	SortingLabelKey *string `json:"sortingLabelKey,omitempty"`

	// MaxConcurrency is how many clusters of the stage may be updating at the same time: a number
	// of clusters (at least 1) or a percentage of the stage's clusters from "1%" to "100%"
	// (rounded down, but never below 1). 1 when unset, which updates the clusters one by one.
	// +kubebuilder:default=1
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:Pattern="^(100|[1-9][0-9]?)%$"
	// +kubebuilder:validation:XValidation:rule="self == null || type(self) != int || self >= 1",message="maxConcurrency must be at least 1: give a number of clusters (1, 2, ...) or a percentage from \"1%\" to \"100%\""
	// +optional
	MaxConcurrency *intstr.IntOrString `json:"maxConcurrency,omitempty"`

	// MaxFailures is how many of the stage's clusters may fail (their binding reports that the
	// resources could not be applied, or are not available) without failing the stage: a number,
	// or a percentage of the stage's clusters, rounded down. The stage fails, and with it the run,
	// when more fail. Without maxFailures and progressDeadline, a stage waits for failing
	// clusters, as Kubefleet's does. A Stagecoach extension.
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:Pattern="^(100|[1-9]?[0-9])%$"
	// +kubebuilder:validation:XValidation:rule="type(self) != int || self >= 0",message="maxFailures must not be negative"
	// +optional
	MaxFailures *intstr.IntOrString `json:"maxFailures,omitempty"`

	// ProgressDeadline is how long the stage's clusters have, from when the stage starts, to be
	// updated and available; the stage fails, and with it the run, when they are not by then.
	// The after-stage tasks are not counted. A Stagecoach extension.
	// +optional
	ProgressDeadline *metav1.Duration `json:"progressDeadline,omitempty"`

	// AfterStageTasks must all complete, once every cluster of the stage is updated, before the
	// next stage starts. At most one TimedWait and one Approval; they run at the same time.
	// +kubebuilder:validation:MaxItems=2
	// +kubebuilder:validation:XValidation:rule="!self.exists(e, e.type == 'Approval' && has(e.waitTime))",message="an Approval task waits for a person, not for a time: remove waitTime from it, or use type TimedWait"
	// +kubebuilder:validation:XValidation:rule="!self.exists(e, e.type == 'TimedWait' && !has(e.waitTime))",message="a TimedWait task needs waitTime, for example waitTime: 1h"
	// +kubebuilder:validation:XValidation:rule="!self.exists(e, e.type == 'TimedWait' && has(e.waitTime) && !e.waitTime.matches('[1-9]'))",message="the waitTime of a TimedWait task must be longer than 0s"
	// +kubebuilder:validation:XValidation:rule="self.all(e, self.filter(f, f.type == e.type).size() == 1)",message="afterStageTasks can hold at most one task of each type: one TimedWait and one Approval"
	// +listType=atomic
	// +optional
	AfterStageTasks []StageTask `json:"afterStageTasks,omitempty"`

	// BeforeStageTasks must complete before the stage starts. At most one task, of type Approval.
	// +kubebuilder:validation:MaxItems=1
	// +kubebuilder:validation:XValidation:rule="!self.exists(e, e.type == 'Approval' && has(e.waitTime))",message="an Approval task waits for a person, not for a time: remove waitTime from it"
	// +kubebuilder:validation:XValidation:rule="!self.exists(e, e.type == 'TimedWait')",message="beforeStageTasks only supports type Approval: to wait for a time, add a TimedWait to the afterStageTasks of the previous stage"
	// +listType=atomic
	// +optional
	BeforeStageTasks []StageTask `json:"beforeStageTasks,omitempty"`
}

// StageTaskType is the kind of a stage task.
// +enum
type StageTaskType string

const (
	// StageTaskTypeTimedWait waits for waitTime after the stage's clusters are updated.
	StageTaskTypeTimedWait StageTaskType = "TimedWait"

	// StageTaskTypeApproval waits until a person approves the approval request created for the
	// task.
	StageTaskTypeApproval StageTaskType = "Approval"
)

// StageTask is something that must complete before a stage starts or before the run moves past it.
type StageTask struct {
	// Type is TimedWait or Approval.
	// +kubebuilder:validation:Enum=TimedWait;Approval
	// +required
	Type StageTaskType `json:"type"`

	// WaitTime is how long a TimedWait task waits, counted from when every cluster of the stage is
	// updated: a duration in hours, minutes and seconds such as "30s", "1m", "1h30m" or "1.5h".
	// Required for TimedWait, not allowed for Approval.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^(?:(?:0|[1-9][0-9]*)([.][0-9]+)?(?:s|m|h))+$`
	// +optional
	WaitTime *metav1.Duration `json:"waitTime,omitempty"`
}

// RollbackOfAnnotation marks a rollback run with the name of the run whose failure started it.
// A Stagecoach extension.
const RollbackOfAnnotation = "stagecoach.dev/rollback-of"

// RetryOfAnnotation marks a run that resumes a failed run (stagecoach retry run) with that run's
// name: instead of initializing from the placement and the strategy, it takes the failed run's
// resource snapshot, strategy copy, stages, clusters and pinned override snapshots, keeps the
// stages that succeeded, and starts again at the first one that did not. A run's spec cannot
// change (as in Kubefleet), so a retry is a new run. A Stagecoach extension.
const RetryOfAnnotation = "stagecoach.dev/retry-of"
