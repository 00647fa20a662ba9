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

// ClusterResourcePlacementConditionType names a condition of a ClusterResourcePlacement. Each one
// summarizes the matching per-cluster condition over all picked clusters.
// +enum
type ClusterResourcePlacementConditionType string

const (
	// ClusterResourcePlacementScheduledConditionType is True when the policy is fully satisfied
	// (enough clusters were picked), False when it is not, Unknown before the first decision.
	ClusterResourcePlacementScheduledConditionType ClusterResourcePlacementConditionType = "ClusterResourcePlacementScheduled"

	// ClusterResourcePlacementRolloutStartedConditionType is True when the revision has started
	// rolling out to every picked cluster. With strategy type External it is Unknown (reason
	// RolloutControlledByExternalController) until an update run has brought every cluster to the
	// same revision.
	ClusterResourcePlacementRolloutStartedConditionType ClusterResourcePlacementConditionType = "ClusterResourcePlacementRolloutStarted"

	// ClusterResourcePlacementOverriddenConditionType is True when overrides were applied, or none
	// were needed, for every picked cluster.
	ClusterResourcePlacementOverriddenConditionType ClusterResourcePlacementConditionType = "ClusterResourcePlacementOverridden"

	// ClusterResourcePlacementWorkSynchronizedConditionType is True when the resources to apply
	// have been prepared for every picked cluster.
	ClusterResourcePlacementWorkSynchronizedConditionType ClusterResourcePlacementConditionType = "ClusterResourcePlacementWorkSynchronized"

	// ClusterResourcePlacementAppliedConditionType is True when every picked cluster has applied
	// the resources.
	ClusterResourcePlacementAppliedConditionType ClusterResourcePlacementConditionType = "ClusterResourcePlacementApplied"

	// ClusterResourcePlacementAvailableConditionType is True when the resources are available on
	// every picked cluster.
	ClusterResourcePlacementAvailableConditionType ClusterResourcePlacementConditionType = "ClusterResourcePlacementAvailable"

	// ClusterResourcePlacementDiffReportedConditionType is True when differences have been reported
	// for every picked cluster (apply type ReportDiff).
	ClusterResourcePlacementDiffReportedConditionType ClusterResourcePlacementConditionType = "ClusterResourcePlacementDiffReported"

	// ClusterResourcePlacementStatusSyncedConditionType is True when the status copy requested by
	// statusReportingScope NamespaceAccessible is up to date.
	ClusterResourcePlacementStatusSyncedConditionType ClusterResourcePlacementConditionType = "ClusterResourcePlacementStatusSynced"
)

// ResourcePlacementConditionType names a condition of a ResourcePlacement; each has the meaning of
// the ClusterResourcePlacement condition of the same suffix.
// +enum
type ResourcePlacementConditionType string

// Conditions of a ResourcePlacement.
const (
	ResourcePlacementScheduledConditionType        ResourcePlacementConditionType = "ResourcePlacementScheduled"
	ResourcePlacementRolloutStartedConditionType   ResourcePlacementConditionType = "ResourcePlacementRolloutStarted"
	ResourcePlacementOverriddenConditionType       ResourcePlacementConditionType = "ResourcePlacementOverridden"
	ResourcePlacementWorkSynchronizedConditionType ResourcePlacementConditionType = "ResourcePlacementWorkSynchronized"
	ResourcePlacementAppliedConditionType          ResourcePlacementConditionType = "ResourcePlacementApplied"
	ResourcePlacementAvailableConditionType        ResourcePlacementConditionType = "ResourcePlacementAvailable"
	ResourcePlacementDiffReportedConditionType     ResourcePlacementConditionType = "ResourcePlacementDiffReported"
)

// PerClusterPlacementConditionType names a condition in PerClusterPlacementStatus. They are set in
// order: a condition is only set once the previous one is True.
// +enum
type PerClusterPlacementConditionType string

const (
	// PerClusterScheduledConditionType is True when the cluster is picked.
	PerClusterScheduledConditionType PerClusterPlacementConditionType = "Scheduled"

	// PerClusterRolloutStartedConditionType is True when the revision has started rolling out to the
	// cluster, False while the rollout strategy holds it back.
	PerClusterRolloutStartedConditionType PerClusterPlacementConditionType = "RolloutStarted"

	// PerClusterOverriddenConditionType is True when overrides were applied, or none were needed.
	PerClusterOverriddenConditionType PerClusterPlacementConditionType = "Overridden"

	// PerClusterWorkSynchronizedConditionType is True when the resources to apply on the cluster
	// have been prepared.
	PerClusterWorkSynchronizedConditionType PerClusterPlacementConditionType = "WorkSynchronized"

	// PerClusterAppliedConditionType is True when the cluster has applied all the resources.
	PerClusterAppliedConditionType PerClusterPlacementConditionType = "Applied"

	// PerClusterAvailableConditionType is True when all the resources are available on the cluster.
	PerClusterAvailableConditionType PerClusterPlacementConditionType = "Available"

	// PerClusterDiffReportedConditionType is True when the differences on the cluster have been
	// reported (apply type ReportDiff).
	PerClusterDiffReportedConditionType PerClusterPlacementConditionType = "DiffReported"
)

// Reasons of placement conditions.
const (
	InvalidResourceSelectorsReason  = "InvalidResourceSelectors"
	SchedulingUnknownReason         = "SchedulePending"
	ResourceScheduleSucceededReason = "ScheduleSucceeded"
	ResourceScheduleFailedReason    = "ScheduleFailed"

	RolloutStartedUnknownReason = "RolloutStartedUnknown"
	// RolloutControlledByExternalControllerReason explains an Unknown RolloutStarted condition on a
	// placement with strategy type External: update runs, not the placement, decide what rolls out.
	RolloutControlledByExternalControllerReason = "RolloutControlledByExternalController"
	RolloutNotStartedYetReason                  = "RolloutNotStartedYet"
	RolloutStartedReason                        = "RolloutStarted"

	OverriddenPendingReason    = "OverriddenPending"
	OverrideNotSpecifiedReason = "NoOverrideSpecified"
	OverriddenFailedReason     = "OverriddenFailed"
	OverriddenSucceededReason  = "OverriddenSucceeded"

	WorkSynchronizedUnknownReason = "WorkSynchronizedUnknown"
	WorkNotSynchronizedYetReason  = "WorkNotSynchronizedYet"
	WorkSynchronizedReason        = "WorkSynchronized"

	ApplyPendingReason   = "ApplyPending"
	ApplyFailedReason    = "ApplyFailed"
	ApplySucceededReason = "ApplySucceeded"

	AvailableUnknownReason = "ResourceAvailableUnknown"
	NotAvailableYetReason  = "ResourceNotAvailableYet"
	AvailableReason        = "ResourceAvailable"

	DiffReportedStatusUnknownReason = "DiffReportingPending"
	DiffReportedStatusFalseReason   = "DiffReportingIncompleteOrFailed"
	DiffReportedStatusTrueReason    = "DiffReportingCompleted"
)

// Reasons of per-cluster placement conditions.
const (
	ScheduleSucceededReason            = "Scheduled"
	AllWorkSyncedReason                = "AllWorkSynced"
	SyncWorkFailedReason               = "SyncWorkFailed"
	WorkApplyInProcessReason           = "ApplyInProgress"
	WorkDiffReportInProcessReason      = "DiffReportInProgress"
	WorkNotAppliedReason               = "NotAllWorkHaveBeenApplied"
	AllWorkAppliedReason               = "AllWorkHaveBeenApplied"
	WorkNotAvailableReason             = "NotAllWorkAreAvailable"
	WorkNotAvailabilityTrackableReason = "NotAllWorkAreAvailabilityTrackable"
	AllWorkAvailableReason             = "AllWorkAreAvailable"
	AllWorkDiffReportedReason          = "AllWorkHaveDiffReported"
	WorkNotDiffReportedReason          = "NotAllWorkHaveDiffReported"
)
