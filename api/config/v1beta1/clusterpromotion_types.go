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
	"bytes"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// ClusterPromotionKind is the kind of ClusterPromotion.
const ClusterPromotionKind = "ClusterPromotion"

// Condition types of a ClusterPromotion.
const (
	// PromotionReadyCondition is True once the last stage is deployed and its trigger, if any,
	// is satisfied; False while the rollout is under way or stuck, with a reason and a message
	// saying which stage it is waiting on and why.
	PromotionReadyCondition = "Ready"

	// PromotionProgressingCondition is True while a stage is being deployed or waited on.
	PromotionProgressingCondition = "Progressing"

	// PromotionStalledCondition is True while the rollout cannot go on without a change from
	// the user: a malformed promotion window, or a cluster of the current stage whose
	// deployment failed for good (FailedNonRetriable).
	PromotionStalledCondition = "Stalled"

	// PromotionSuspendedCondition is True while spec.suspend holds the promotion; its
	// lastTransitionTime says since when. False once resumed. (A Stagecoach extension.)
	PromotionSuspendedCondition = "Suspended"
)

// Reasons of a ClusterPromotion's conditions that say where its rollout stands.
const (
	// PromotionPromotedReason: the current version went through every stage. Ready is True and
	// Progressing False with it.
	PromotionPromotedReason = "Promoted"

	// PromotionWaitingReason: the current stage is not done yet (its clusters are deploying, or
	// its trigger holds it). Ready is False with it, and Progressing True.
	PromotionWaitingReason = "Waiting"

	// PromotionRolledBackReason: the failed version was rolled back to status.lastKnownGood.
	// Ready and Progressing are False with it, and Stalled True, until a new version starts.
	PromotionRolledBackReason = "RolledBack"
)

// ClusterPromotionSpec is a configuration and the ordered stages it is rolled out through.
type ClusterPromotionSpec struct {
	// ProfileSpec is the configuration deployed at every stage. Each stage gets a ClusterProfile
	// named "<promotion>-<stage>" with this spec and the stage's cluster selector.
	// +optional
	ProfileSpec ProfileSpec `json:"profileSpec,omitempty"`

	// Stages are rolled out one after the other, in this order. Stage names are unique.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +listType=map
	// +listMapKey=name
	// +patchMergeKey=name
	// +patchStrategy=merge,retainKeys
	Stages []Stage `json:"stages" patchStrategy:"merge,retainKeys" patchMergeKey:"name"`

	// PreserveClusterProfilesOnDelete keeps the generated ClusterProfiles (and so the deployed
	// content) when the ClusterPromotion is deleted.
	// +optional
	PreserveClusterProfilesOnDelete bool `json:"preserveClusterProfilesOnDelete,omitempty"`

	// Suspend, while true, stops the promotion where it is: no stage starts, no new version
	// starts, no approval is used and no soak time runs; in the current stage, clusters already
	// deploying the version finish and no other cluster starts. Clusters keep what they run.
	// Setting it back to false resumes exactly where the promotion stopped: soak time served
	// before counts. (A Stagecoach extension.)
	// +optional
	Suspend bool `json:"suspend,omitempty"`

	// DenyWindows are freeze windows, written as promotionWindow is (cron expressions, with an
	// optional CRON_TZ= prefix). While any of them is open no stage starts and no new version
	// starts; a stage already deploying finishes, and the last stage may complete. Combined with
	// a stage's promotionWindow, the rollout moves on when that window is open and no deny
	// window is. (A Stagecoach extension.)
	// +kubebuilder:validation:MaxItems=32
	// +listType=atomic
	// +optional
	DenyWindows []TimeWindow `json:"denyWindows,omitempty"`

	// OnFailure is what a failed stage (see maxFailures and progressDeadline) does: Stop (the
	// default) stops the promotion and leaves every cluster as it is; Rollback puts every stage
	// that received the failing version back on status.lastKnownGood, the failed stage first and
	// then the earlier ones in reverse order, without soak or approval, and then stops. A new
	// version starts a new rollout as usual. (A Stagecoach extension.)
	// +kubebuilder:validation:Enum=Stop;Rollback
	// +optional
	OnFailure string `json:"onFailure,omitempty"`
}

// What a failed stage does.
const (
	OnFailureStop     = "Stop"
	OnFailureRollback = "Rollback"
)

// Stage is one step of a rollout: a set of clusters and the condition for moving on.
type Stage struct {
	// Name of the stage: a lowercase DNS label. It becomes part of the generated ClusterProfile
	// name, "<promotion>-<stage>".
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",message="stage name must be a lowercase DNS label: letters a-z, digits and '-', starting and ending with a letter or digit (it becomes part of the ClusterProfile name '<promotion>-<stage>')"
	Name string `json:"name"`

	// ClusterSelector picks the stage's clusters by their labels. An empty selector matches no
	// cluster, so the stage completes at once.
	// +optional
	ClusterSelector libv1beta1.Selector `json:"clusterSelector,omitempty"`

	// Trigger is what must happen, once the stage is deployed, before the rollout moves on.
	// Without a trigger the rollout moves on as soon as the stage is deployed. On the last
	// stage it gates completion of the whole promotion.
	// +optional
	Trigger *Trigger `json:"trigger,omitempty"`

	// MaxFailures is how many of the stage's clusters may fail (their deployment fails, or a
	// health check does not pass) before the stage fails: a number, or a percentage of the
	// stage's clusters rounded down. It defaults to 0 once the stage has a failure budget, that is
	// maxFailures or progressDeadline. A failed stage stops the promotion (Stalled, reason
	// StageFailed). A stage with neither waits for failing clusters, as upstream does.
	// (A Stagecoach extension.)
	// A value that is neither stops the promotion (Stalled, reason InvalidSpec).
	// +kubebuilder:validation:XIntOrString
	// +optional
	MaxFailures *intstr.IntOrString `json:"maxFailures,omitempty"`

	// ProgressDeadline is how long the stage's clusters have, from when the stage starts, to be
	// deployed and healthy; past it the stage fails. The soak, checks and approval that follow
	// are not counted, nor is time spent suspended. (A Stagecoach extension.)
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`
	// +optional
	ProgressDeadline *metav1.Duration `json:"progressDeadline,omitempty"`
}

// HasFailureBudget reports whether the stage fails on failing clusters or a deadline rather than
// waiting for them.
func (s *Stage) HasFailureBudget() bool {
	return s.MaxFailures != nil || s.ProgressDeadline != nil
}

// Trigger is the condition for leaving a stage: automatic or manual, exactly one of them.
// +kubebuilder:validation:XValidation:rule="has(self.manual) != has(self.auto)",message="a trigger must have exactly one of 'manual' or 'auto': remove one of them (or remove the trigger to move on as soon as the stage is deployed)"
type Trigger struct {
	// Manual waits for a person to approve.
	// +optional
	Manual *ManualTrigger `json:"manual,omitempty"`

	// Auto moves on by itself after a delay, checks and a time window.
	// +optional
	Auto *AutoTrigger `json:"auto,omitempty"`
}

// AutoTrigger moves on once the stage is deployed and then, in order: delay has passed,
// preHealthCheckDeployment is deployed, postDelayHealthChecks pass, and promotionWindow is open.
type AutoTrigger struct {
	// Delay is how long to wait after the stage is deployed (soak time), e.g. "5m".
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`
	// +optional
	Delay *metav1.Duration `json:"delay,omitempty"`

	// PreHealthCheckDeployment is deployed to the stage's clusters after the delay, before the
	// post-delay checks run; typically a Job that tests the new version. Write it either as a
	// list of policy references (kind, namespace, name, ...) or as an object
	// {configMapRefs: [{name, namespace}], secretRefs: [{name, namespace}]}; both mean the
	// same list.
	// +optional
	PreHealthCheckDeployment *PolicyRefSet `json:"preHealthCheckDeployment,omitempty"`

	// PostDelayHealthChecks must pass on every cluster of the stage after the delay.
	// +optional
	PostDelayHealthChecks []libv1beta1.ValidateHealth `json:"postDelayHealthChecks,omitempty"`

	// PromotionWindow restricts when the rollout may move on.
	// +optional
	PromotionWindow *TimeWindow `json:"promotionWindow,omitempty"`
}

// ManualTrigger moves on once the stage is deployed and then, in order: delay has passed,
// preHealthCheckDeployment is deployed, postDelayHealthChecks pass, and approved is true.
type ManualTrigger struct {
	// Delay is how long to wait after the stage is deployed before the checks run.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`
	// +optional
	Delay *metav1.Duration `json:"delay,omitempty"`

	// PreHealthCheckDeployment is deployed to the stage's clusters after the delay, before the
	// post-delay checks run. Write it either as a list of policy references (kind, namespace,
	// name, ...) or as an object {configMapRefs: [{name, namespace}], secretRefs: [{name,
	// namespace}]}; both mean the same list.
	// +optional
	PreHealthCheckDeployment *PolicyRefSet `json:"preHealthCheckDeployment,omitempty"`

	// PostDelayHealthChecks must pass on every cluster of the stage after the delay.
	// +optional
	PostDelayHealthChecks []libv1beta1.ValidateHealth `json:"postDelayHealthChecks,omitempty"`

	// Approved, set to true by a person, lets the rollout move on.
	// +optional
	Approved *bool `json:"approved,omitempty"`

	// AutomaticReset clears approved once the rollout has moved on, so that the next rollout
	// through this stage needs a fresh approval.
	// +kubebuilder:default:=true
	// +optional
	AutomaticReset *bool `json:"automaticReset,omitempty"`
}

// ResetsApproval reports whether approved is cleared once the rollout moves on: automaticReset,
// which defaults to true. (It is a pointer so that an explicit false survives a round trip
// through Go; a plain bool would be omitted and defaulted back to true by the API server.)
func (m *ManualTrigger) ResetsApproval() bool {
	return m.AutomaticReset == nil || *m.AutomaticReset
}

// TimeWindow is a recurring window, opened at each from and closed at the next to. Both are
// cron expressions with five fields (minute hour day-of-month month day-of-week), e.g. from
// "0 9 * * 1-5" and to "0 17 * * 1-5" for weekday office hours.
type TimeWindow struct {
	// From opens the window.
	// +kubebuilder:validation:MinLength=1
	From string `json:"from"`

	// To closes the window.
	// +kubebuilder:validation:MinLength=1
	To string `json:"to"`
}

// PromotionFailure is a stage failure of one version.
type PromotionFailure struct {
	// Stage is the stage that failed.
	Stage string `json:"stage"`

	// ProfileSpecHash is the version that failed (status.profileSpecHash then).
	ProfileSpecHash []byte `json:"profileSpecHash"`

	// Message names the failing clusters and why they fail, or the deadline missed.
	Message string `json:"message"`

	// Time is when the stage failed.
	Time metav1.Time `json:"time"`

	// Requested is set when no stage failed, but a rollback of the version was asked for (the
	// stagecoach.dev/rollback annotation) while it was at Stage.
	// +optional
	Requested bool `json:"requested,omitempty"`
}

// PromotionRetry is a retry of the failed clusters of a stage, on the version it rolls out.
type PromotionRetry struct {
	// Token is the token of the stagecoach.dev/retry annotation acted on.
	Token string `json:"token"`

	// Stage is the stage whose failed clusters were tried again.
	Stage string `json:"stage"`

	// Cluster is the one cluster tried again ("namespace/name"); empty for every failed one.
	// +optional
	Cluster string `json:"cluster,omitempty"`

	// ProfileSpecHash is the version tried again.
	ProfileSpecHash []byte `json:"profileSpecHash,omitempty"`

	// Time is when the controller acted on it.
	Time metav1.Time `json:"time"`

	// Message says what the retry did: the stage failure it cleared, or why it did nothing.
	// +optional
	Message string `json:"message,omitempty"`
}

// KnownGoodVersion is a version that went through every stage.
type KnownGoodVersion struct {
	// ProfileSpecHash identifies the version, as status.profileSpecHash did.
	ProfileSpecHash []byte `json:"profileSpecHash"`

	// ProfileSpec is the version's profileSpec, as it was validated in spec.profileSpec. (Kept
	// without a schema here: the API server checked it already, and the validation rules of a
	// second copy would pass the CRD's budget.)
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	ProfileSpec ProfileSpec `json:"profileSpec"`

	// FrozenContent names the version's copies of the ConfigMaps and Secrets it refers to,
	// {"ConfigMap namespace/name": "copy name"}; they are kept while this version may be
	// rolled back to.
	// +optional
	FrozenContent map[string]string `json:"frozenContent,omitempty"`

	// Time is when the version completed its last stage.
	Time metav1.Time `json:"time"`
}

// RollbackStatus is where a rollback stands.
type RollbackStatus struct {
	// ToProfileSpecHash is the version rolled back to.
	ToProfileSpecHash []byte `json:"toProfileSpecHash"`

	// Stages are the stages to put back, in the order they are: the failed stage, then the
	// earlier ones in reverse.
	// +listType=atomic
	Stages []string `json:"stages"`

	// Done counts the stages of stages put back so far.
	// +optional
	Done int32 `json:"done,omitempty"`
}

// BlockingWindow is a time window that holds a promotion back.
type BlockingWindow struct {
	// Kind is "Deny" for one of spec.denyWindows, "Promotion" for the current stage's closed
	// promotionWindow.
	// +kubebuilder:validation:Enum=Deny;Promotion
	Kind string `json:"kind"`

	// Index is the position of the deny window in spec.denyWindows.
	// +optional
	Index *int32 `json:"index,omitempty"`

	TimeWindow `json:",inline"`
}

// Kinds of BlockingWindow.
const (
	BlockingWindowDeny      = "Deny"
	BlockingWindowPromotion = "Promotion"
)

// StageStatus is the progress of one stage.
type StageStatus struct {
	// Name of the stage.
	Name string `json:"name"`

	// LastUpdateReconciledTime is when the stage's ClusterProfile was last written.
	// +optional
	LastUpdateReconciledTime *metav1.Time `json:"lastUpdateReconciledTime,omitempty"`

	// LastSuccessfulAppliedTime is when every cluster of the stage was last found deployed.
	// +optional
	LastSuccessfulAppliedTime *metav1.Time `json:"lastSuccessfulAppliedTime,omitempty"`

	// LastStatusCheckTime is when the stage was last checked.
	// +optional
	LastStatusCheckTime *metav1.Time `json:"lastStatusCheckTime,omitempty"`

	// FailureMessage says what the stage is failing on or waiting for.
	// +optional
	FailureMessage *string `json:"failureMessage,omitempty"`

	// ProgressDeadlineTime is when the stage fails unless its clusters are all deployed and
	// healthy by then: its start plus progressDeadline, moved on by any time suspended.
	// (A Stagecoach extension.)
	// +optional
	ProgressDeadlineTime *metav1.Time `json:"progressDeadlineTime,omitempty"`

	// CurrentStatusDescription describes where the stage is, followed by the time it was
	// written, e.g. "Paused: Awaiting Manual Approval (2026-02-16T06:28:24Z)".
	// +optional
	CurrentStatusDescription *string `json:"currentStatusDescription,omitempty"`

	// PausedClusters lists ("<namespace>/<name>") the stage's clusters whose SveltosCluster has
	// spec.paused: nothing is deployed to them and the stage does not wait for them. At most
	// MaxListedStageClusters are listed. (A Stagecoach extension.)
	// +optional
	PausedClusters []string `json:"pausedClusters,omitempty"`

	// CatchingUpClusters lists the stage's clusters that do not run the stage's version yet and
	// that the stage does not wait for: unreachable before the version reached them, or, once the
	// stage has passed, clusters that returned, were resumed or registered since. Each gets the
	// stage's version as soon as it can. At most MaxListedStageClusters are listed. (A
	// Stagecoach extension.)
	// +optional
	CatchingUpClusters []string `json:"catchingUpClusters,omitempty"`
}

// MaxListedStageClusters bounds the clusters a stage status lists as paused or catching up.
const MaxListedStageClusters = 20

// ClusterPromotionStatus reports how far the rollout has got.
type ClusterPromotionStatus struct {
	// Stages has one entry per stage reached so far in the current rollout, in order.
	// +optional
	Stages []StageStatus `json:"stages,omitempty"`

	// ProfileSpecHash is the hash of the profileSpec being rolled out; a change restarts the
	// rollout from the first stage.
	// +optional
	ProfileSpecHash []byte `json:"profileSpecHash,omitempty"`

	// StagesHash is the hash of the stages' names and selectors (not their triggers); a change
	// restarts the rollout from the first stage.
	// +optional
	StagesHash []byte `json:"stagesHash,omitempty"`

	// CurrentStageName is the stage being deployed or waited on.
	// +optional
	CurrentStageName string `json:"currentStageName,omitempty"`

	// LastPromotionTime is when the rollout last moved to a stage.
	// +optional
	LastPromotionTime *metav1.Time `json:"lastPromotionTime,omitempty"`

	// NextPromotionTime is, while a time window holds the rollout back (a deny window open, or
	// the stage's promotionWindow closed), the earliest time the next stage or version may start.
	// (A Stagecoach extension.)
	// +optional
	NextPromotionTime *metav1.Time `json:"nextPromotionTime,omitempty"`

	// BlockingWindow is the window holding the rollout back now: the open deny window, or the
	// closed promotionWindow. (A Stagecoach extension.)
	// +optional
	BlockingWindow *BlockingWindow `json:"blockingWindow,omitempty"`

	// Failure is the stage of the current version that failed, when one did: its failure budget
	// was exceeded or its progressDeadline passed. The promotion stops there until a new version
	// starts. (A Stagecoach extension.)
	// +optional
	Failure *PromotionFailure `json:"failure,omitempty"`

	// LastKnownGood is the last version that went through every stage: what a rollback goes
	// back to. (A Stagecoach extension.)
	// +optional
	LastKnownGood *KnownGoodVersion `json:"lastKnownGood,omitempty"`

	// Rollback is the progress of the rollback to lastKnownGood after the current version
	// failed, with onFailure: Rollback. (A Stagecoach extension.)
	// +optional
	Rollback *RollbackStatus `json:"rollback,omitempty"`

	// Retry is the last retry asked for with the stagecoach.dev/retry annotation that the
	// controller acted on. (A Stagecoach extension.)
	// +optional
	Retry *PromotionRetry `json:"retry,omitempty"`

	// ConsumedApprovals names the manual stages with automaticReset whose approval is used up:
	// the rollout moved past them with it, or a new version started after it was given. Such an
	// approval does not count, and the controller sets the stage's approved back to false.
	// (A Stagecoach extension: it makes an approval good for one version, and moving past an
	// approved stage safe at any instant of a crash.)
	// +listType=set
	// +optional
	ConsumedApprovals []string `json:"consumedApprovals,omitempty"`

	// Conditions are the standard conditions (Ready, Progressing), so that tools such as
	// "kubectl wait --for=condition=Ready" work.
	// +listType=map
	// +listMapKey=type
	// +patchMergeKey=type
	// +patchStrategy=merge
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`

	// ObservedGeneration is the generation of the spec the status was computed for.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// History lists the last versions rolled out, newest first, at most MaxHistory of them.
	// (A Stagecoach extension.)
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=20
	// +optional
	History []VersionRecord `json:"history,omitempty"`
}

// ClusterPromotion rolls one configuration out through an ordered list of stages. For each
// stage it generates a ClusterProfile named "<promotion>-<stage>", waits until every cluster of
// the stage is deployed, then waits for the stage's trigger before moving to the next stage.
// Changing profileSpec, or the stages' names or selectors, restarts the rollout from the first
// stage; later stages keep the previous configuration until the rollout reaches them.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=clusterpromotions,scope=Cluster
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:printcolumn:name="Stage",type="string",JSONPath=".status.currentStageName",description="Stage being deployed or waited on"
// +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type==\"Ready\")].status",description="Whether the rollout has completed"
// +kubebuilder:printcolumn:name="Reason",type="string",JSONPath=".status.conditions[?(@.type==\"Ready\")].reason",description="Why the rollout is where it is"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",description="Time since the ClusterPromotion was created"
// +kubebuilder:printcolumn:name="Message",type="string",JSONPath=".status.conditions[?(@.type==\"Ready\")].message",priority=1,description="What the rollout is waiting for"
// +kubebuilder:validation:XValidation:rule="self.spec.stages.all(s, size(self.metadata.name) + 1 + size(s.name) <= 63)",messageExpression="size(self.metadata.name) > 61 ? 'the ClusterPromotion name must be at most 61 characters: each stage gets a ClusterProfile named \"<promotion>-<stage>\", which is used as a label value and must be at most 63 characters' : 'each stage gets a ClusterProfile named \"' + self.metadata.name + '-<stage>\", which is used as a label value and must be at most 63 characters: shorten the ClusterPromotion name or the longer stage names'"
type ClusterPromotion struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the configuration and its stages.
	Spec ClusterPromotionSpec `json:"spec"`

	// Status reports the rollout's progress.
	// +optional
	Status ClusterPromotionStatus `json:"status,omitempty"`
}

// StageProfileName returns the name of the ClusterProfile generated for the named stage:
// "<promotion>-<stage>".
func (p *ClusterPromotion) StageProfileName(stage string) string {
	return p.Name + "-" + stage
}

// FailedVersion is the failure of the version being rolled out, nil when it has not failed.
func (p *ClusterPromotion) FailedVersion() *PromotionFailure {
	if f := p.Status.Failure; f != nil && bytes.Equal(f.ProfileSpecHash, p.Status.ProfileSpecHash) {
		return f
	}
	return nil
}

// Stage returns the stage with the given name, or nil.
func (s *ClusterPromotionSpec) Stage(name string) *Stage {
	for i := range s.Stages {
		if s.Stages[i].Name == name {
			return &s.Stages[i]
		}
	}
	return nil
}

// ClusterPromotionList is a list of ClusterPromotions.
//
// +kubebuilder:object:root=true
type ClusterPromotionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterPromotion `json:"items"`
}
