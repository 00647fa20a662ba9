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
	"k8s.io/apimachinery/pkg/util/intstr"
)

// RolloutStrategyType says who rolls new revisions of a placement out.
// +enum
type RolloutStrategyType string

const (
	// RollingUpdateRolloutStrategyType rolls every new revision out by itself, a few clusters at a
	// time, as configured by RollingUpdateConfig.
	RollingUpdateRolloutStrategyType RolloutStrategyType = "RollingUpdate"

	// ExternalRolloutStrategyType leaves rollouts to a ClusterStagedUpdateRun (for a
	// ClusterResourcePlacement) or a StagedUpdateRun (for a ResourcePlacement). The placement still
	// picks clusters and records resource snapshots, but deploys nothing by itself.
	ExternalRolloutStrategyType RolloutStrategyType = "External"
)

// RolloutStrategy says how a new revision of the selected resources reaches the picked clusters.
// +kubebuilder:validation:XValidation:rule="!(has(self.type) && self.type == 'External' && has(self.rollingUpdate))",message="rollingUpdate only applies to strategy type RollingUpdate: remove it when the type is External"
type RolloutStrategy struct {
	// Type is RollingUpdate (the default) or External. A placement can move from RollingUpdate to
	// External, but not back.
	// +kubebuilder:validation:Enum=RollingUpdate;External
	// +kubebuilder:default=RollingUpdate
	// +kubebuilder:validation:XValidation:rule="!(self != 'External' && oldSelf == 'External')",message="cannot change rollout strategy type from 'External' to other types: create a new placement instead"
	// +optional
	Type RolloutStrategyType `json:"type,omitempty"`

	// RollingUpdate tunes the rolling update; RollingUpdate type only.
	// +optional
	RollingUpdate *RollingUpdateConfig `json:"rollingUpdate,omitempty"`

	// ApplyStrategy says how resources are applied on member clusters.
	// +optional
	ApplyStrategy *ApplyStrategy `json:"applyStrategy,omitempty"`

	// DeleteStrategy says what happens to placed resources when the placement is deleted.
	// +optional
	DeleteStrategy *DeleteStrategy `json:"deleteStrategy,omitempty"`

	// ReportBackStrategy says whether and where the status of placed resources is copied back to
	// the hub cluster.
	// +kubebuilder:validation:XValidation:rule="self.type != 'Mirror' || has(self.destination)",message="when reportBackStrategy.type is 'Mirror', a destination must be specified"
	// +optional
	ReportBackStrategy *ReportBackStrategy `json:"reportBackStrategy,omitempty"`
}

// RollingUpdateConfig tunes a rolling update. Staged update runs ignore it.
type RollingUpdateConfig struct {
	// MaxUnavailable is how many of the picked clusters may be unavailable at once during the
	// update, as a number (5) or a percentage of the picked clusters (10%, rounded up). A cluster
	// counts as unavailable while its resources are removed or updated in place. 25% when unset;
	// keep it above 0, or in-place updates cannot progress.
	// +kubebuilder:default="25%"
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:Pattern="^((100|[0-9]{1,2})%|[0-9]+)$"
	// +optional
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`

	// MaxSurge is how many clusters may be picked above the desired number during the update, as a
	// number or a percentage (rounded up). It does not apply to in-place updates. It cannot be 0
	// when maxUnavailable is 0. 25% when unset.
	// +kubebuilder:default="25%"
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:Pattern="^((100|[0-9]{1,2})%|[0-9]+)$"
	// +optional
	MaxSurge *intstr.IntOrString `json:"maxSurge,omitempty"`

	// UnavailablePeriodSeconds is how long to wait after applying resources whose availability
	// cannot be checked before counting them as available. 60 when unset.
	// +kubebuilder:default=60
	// +kubebuilder:validation:Minimum=0
	// +optional
	UnavailablePeriodSeconds *int32 `json:"unavailablePeriodSeconds,omitempty"`
}

// ApplyStrategy says how placed resources are applied on member clusters and how differences with
// what is already there are handled.
// +kubebuilder:validation:XValidation:rule="!has(self.serverSideApplyConfig) || !has(self.type) || self.type == 'ServerSideApply'",message="serverSideApplyConfig only applies to type ServerSideApply: remove it or set type: ServerSideApply"
type ApplyStrategy struct {
	// ComparisonOption says which fields are compared to find drifts and differences:
	// PartialComparison (the default) compares only the fields the hub manifest sets;
	// FullComparison compares every field, so fields set by others on the member cluster count as
	// differences too.
	// +kubebuilder:default=PartialComparison
	// +kubebuilder:validation:Enum=PartialComparison;FullComparison
	// +optional
	ComparisonOption ComparisonOptionType `json:"comparisonOption,omitempty"`

	// WhenToApply is Always (the default), which re-applies the hub manifests and so overwrites
	// changes made on the member cluster, or IfNotDrifted, which stops applying to a resource once
	// it has drifted and reports the drift instead.
	// +kubebuilder:default=Always
	// +kubebuilder:validation:Enum=Always;IfNotDrifted
	// +optional
	WhenToApply WhenToApplyType `json:"whenToApply,omitempty"`

	// Type is how manifests are applied: ClientSideApply (the default, a three-way merge like
	// kubectl apply), ServerSideApply, or ReportDiff, which applies nothing and only reports the
	// differences between the hub manifests and the member cluster.
	// +kubebuilder:default=ClientSideApply
	// +kubebuilder:validation:Enum=ClientSideApply;ServerSideApply;ReportDiff
	// +optional
	Type ApplyStrategyType `json:"type,omitempty"`

	// AllowCoOwnership lets resources be applied when other (non-fleet) owners already own them.
	// It never allows two placements to place the same resource on the same cluster.
	// +optional
	AllowCoOwnership bool `json:"allowCoOwnership,omitempty"`

	// ServerSideApplyConfig tunes server-side apply; type ServerSideApply only.
	// +optional
	ServerSideApplyConfig *ServerSideApplyConfig `json:"serverSideApplyConfig,omitempty"`

	// WhenToTakeOver says what to do when a resource to place already exists on the member cluster
	// and was not placed by the fleet: Always (the default) takes it over and applies the hub
	// manifest; IfNoDiff takes it over only when it already matches the hub manifest (per
	// comparisonOption); Never leaves it alone.
	// +kubebuilder:default=Always
	// +kubebuilder:validation:Enum=Always;IfNoDiff;Never
	// +optional
	WhenToTakeOver WhenToTakeOverType `json:"whenToTakeOver,omitempty"`
}

// ComparisonOptionType says which fields are compared when looking for drifts and differences.
// +enum
type ComparisonOptionType string

const (
	// ComparisonOptionTypePartialComparison compares only the fields the hub manifest sets.
	ComparisonOptionTypePartialComparison ComparisonOptionType = "PartialComparison"

	// ComparisonOptionTypeFullComparison compares every field of the resource.
	ComparisonOptionTypeFullComparison ComparisonOptionType = "FullComparison"
)

// WhenToApplyType says when hub manifests are applied to member clusters.
// +enum
type WhenToApplyType string

const (
	// WhenToApplyTypeAlways re-applies the hub manifests, overwriting changes made on the member.
	WhenToApplyTypeAlways WhenToApplyType = "Always"

	// WhenToApplyTypeIfNotDrifted stops applying to resources that have drifted.
	WhenToApplyTypeIfNotDrifted WhenToApplyType = "IfNotDrifted"
)

// ApplyStrategyType says how manifests are applied.
// +enum
type ApplyStrategyType string

const (
	// ApplyStrategyTypeClientSideApply applies with a three-way merge, like kubectl apply.
	ApplyStrategyTypeClientSideApply ApplyStrategyType = "ClientSideApply"

	// ApplyStrategyTypeServerSideApply applies with server-side apply.
	ApplyStrategyTypeServerSideApply ApplyStrategyType = "ServerSideApply"

	// ApplyStrategyTypeReportDiff applies nothing and reports differences only.
	ApplyStrategyTypeReportDiff ApplyStrategyType = "ReportDiff"
)

// ServerSideApplyConfig tunes server-side apply.
type ServerSideApplyConfig struct {
	// ForceConflicts makes the apply win field conflicts with other managers, taking over the
	// conflicting fields. When false, a conflict fails the apply.
	// +optional
	ForceConflicts bool `json:"force"`
}

// WhenToTakeOverType says what to do with resources that exist on a member cluster before the fleet
// places them.
// +enum
type WhenToTakeOverType string

const (
	// WhenToTakeOverTypeAlways takes existing resources over and applies the hub manifests.
	WhenToTakeOverTypeAlways WhenToTakeOverType = "Always"

	// WhenToTakeOverTypeIfNoDiff takes existing resources over only if they match the hub manifests.
	WhenToTakeOverTypeIfNoDiff WhenToTakeOverType = "IfNoDiff"

	// WhenToTakeOverTypeNever leaves existing resources alone.
	WhenToTakeOverTypeNever WhenToTakeOverType = "Never"
)

// DeletePropagationPolicy says what happens to placed resources when their placement is deleted.
// +enum
type DeletePropagationPolicy string

const (
	// DeletePropagationPolicyAbandon leaves the placed resources on the member clusters.
	DeletePropagationPolicyAbandon DeletePropagationPolicy = "Abandon"

	// DeletePropagationPolicyDelete deletes the placed resources from the member clusters.
	DeletePropagationPolicyDelete DeletePropagationPolicy = "Delete"
)

// DeleteStrategy says what happens to placed resources when their placement is deleted.
type DeleteStrategy struct {
	// PropagationPolicy is Delete (the default) or Abandon.
	// +kubebuilder:validation:Enum=Abandon;Delete
	// +kubebuilder:default=Delete
	// +optional
	PropagationPolicy DeletePropagationPolicy `json:"propagationPolicy,omitempty"`
}

// ReportBackStrategyType says whether the status of placed resources is copied back to the hub.
// +enum
type ReportBackStrategyType string

const (
	// ReportBackStrategyTypeDisabled copies nothing back.
	ReportBackStrategyTypeDisabled ReportBackStrategyType = "Disabled"

	// ReportBackStrategyTypeMirror copies the status of placed resources back verbatim.
	ReportBackStrategyTypeMirror ReportBackStrategyType = "Mirror"
)

// ReportBackDestination says where mirrored status goes.
// +enum
type ReportBackDestination string

const (
	// ReportBackDestinationOriginalResource writes the status onto the hub resource itself. It is
	// only done when the placement picks exactly one cluster.
	ReportBackDestinationOriginalResource ReportBackDestination = "OriginalResource"

	// ReportBackDestinationWorkAPI records the status per member cluster, next to the placement.
	ReportBackDestinationWorkAPI ReportBackDestination = "WorkAPI"
)

// ReportBackStrategy says whether and where the status of placed resources is copied back to the hub.
type ReportBackStrategy struct {
	// Type is Disabled (the default) or Mirror.
	// +kubebuilder:default=Disabled
	// +kubebuilder:validation:Enum=Disabled;Mirror
	// +required
	Type ReportBackStrategyType `json:"type"`

	// Destination is where mirrored status goes: OriginalResource or WorkAPI. Required with Mirror.
	// +kubebuilder:validation:Enum=OriginalResource;WorkAPI
	// +optional
	Destination *ReportBackDestination `json:"destination,omitempty"`
}
