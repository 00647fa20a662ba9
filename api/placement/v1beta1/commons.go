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

import "fmt"

// Kinds served by this package.
const (
	ClusterResourcePlacementKind    = "ClusterResourcePlacement"
	ResourcePlacementKind           = "ResourcePlacement"
	ClusterResourceSnapshotKind     = "ClusterResourceSnapshot"
	ResourceSnapshotKind            = "ResourceSnapshot"
	ClusterStagedUpdateStrategyKind = "ClusterStagedUpdateStrategy"
	StagedUpdateStrategyKind        = "StagedUpdateStrategy"
	ClusterStagedUpdateRunKind      = "ClusterStagedUpdateRun"
	StagedUpdateRunKind             = "StagedUpdateRun"
	ClusterApprovalRequestKind      = "ClusterApprovalRequest"
	ApprovalRequestKind             = "ApprovalRequest"

	ClusterResourceBindingKind          = "ClusterResourceBinding"
	ResourceBindingKind                 = "ResourceBinding"
	ClusterSchedulingPolicySnapshotKind = "ClusterSchedulingPolicySnapshot"
	SchedulingPolicySnapshotKind        = "SchedulingPolicySnapshot"
)

// FleetPrefix starts every label, annotation and finalizer that Kubefleet (and Stagecoach on its
// behalf) puts on objects. Keys without it belong to users.
const FleetPrefix = "kubernetes-fleet.io/"

// Labels on snapshots. The names are Kubefleet's; tools that list snapshots by label keep working.
const (
	// PlacementTrackingLabel names the placement a snapshot (or other derived object) belongs to.
	// Despite the "CRP" in its key it is used for ResourcePlacements as well.
	PlacementTrackingLabel = FleetPrefix + "parent-CRP"

	// IsLatestSnapshotLabel is "true" on the newest snapshot of a placement and "false" on the
	// others. For resource snapshots it is set on the first snapshot of each index group only.
	IsLatestSnapshotLabel = FleetPrefix + "is-latest-snapshot"

	// ResourceIndexLabel carries the index of the resource snapshot group a snapshot belongs to,
	// as a decimal number starting at 0. UpdateRunSpec.ResourceSnapshotIndex refers to it.
	ResourceIndexLabel = FleetPrefix + "resource-index"

	// PolicyIndexLabel carries the index of a scheduling policy snapshot, as a decimal number
	// starting at 0. UpdateRunStatus.PolicySnapshotIndexUsed records it.
	PolicyIndexLabel = FleetPrefix + "policy-index"

	// FleetResourceLabelKey marks an object as one of the fleet's own resources.
	FleetResourceLabelKey = FleetPrefix + "is-fleet-resource"
)

// Annotations on snapshots.
const (
	// ResourceGroupHashAnnotation holds the hex SHA-256 of the whole selected resource list of a
	// snapshot group. It is set on the first snapshot of the group only, which is how that
	// snapshot (the "master" snapshot) is told apart from the others.
	ResourceGroupHashAnnotation = FleetPrefix + "resource-hash"

	// NumberOfResourceSnapshotsAnnotation holds, on the first snapshot of a group, how many
	// snapshots the group has (1 or more).
	NumberOfResourceSnapshotsAnnotation = FleetPrefix + "number-of-resource-snapshots"

	// NumberOfEnvelopedObjectsAnnotation holds, on the first snapshot of a group, how many
	// envelope objects the group's selected resources contain.
	NumberOfEnvelopedObjectsAnnotation = FleetPrefix + "number-of-enveloped-object"

	// SubindexOfResourceSnapshotAnnotation holds, on every snapshot but the first of a group, the
	// snapshot's position in the group, starting at 0 for the second snapshot.
	SubindexOfResourceSnapshotAnnotation = FleetPrefix + "subindex-of-resource-snapshot"

	// NextResourceSnapshotCandidateDetectionTimeAnnotation holds, on the first snapshot of a group,
	// the RFC 3339 time at which a change of the selected resources was first noticed; it lets the
	// snapshot writer wait for changes to settle before cutting a new index.
	NextResourceSnapshotCandidateDetectionTimeAnnotation = FleetPrefix + "next-resource-snapshot-candidate-detection-time"

	// NumberOfClustersAnnotation holds, on a scheduling policy snapshot of a PickN placement, the
	// number of clusters to pick.
	NumberOfClustersAnnotation = FleetPrefix + "number-of-clusters"

	// CRPGenerationAnnotation holds the generation of the placement an object was derived from.
	CRPGenerationAnnotation = FleetPrefix + "CRP-generation"
)

// Names of snapshots.
const (
	// ResourceSnapshotNameFmt formats the name of the first snapshot of a resource snapshot group
	// from the placement name and the group index: "<placement>-<index>-snapshot".
	ResourceSnapshotNameFmt = "%s-%d-snapshot"

	// ResourceSnapshotNameWithSubindexFmt formats the name of the other snapshots of a group from the
	// placement name, the group index and the subindex: "<placement>-<index>-<subindex>".
	ResourceSnapshotNameWithSubindexFmt = "%s-%d-%d"

	// PolicySnapshotNameFmt formats the name of a scheduling policy snapshot from the placement name
	// and the policy index: "<placement>-<index>".
	PolicySnapshotNameFmt = "%s-%d"
)

// ResourceSnapshotName is the name of the first resource snapshot of the placement's group index.
func ResourceSnapshotName(placement string, index int) string {
	return fmt.Sprintf(ResourceSnapshotNameFmt, placement, index)
}

// Finalizers.
const (
	// PlacementCleanupFinalizer keeps a ClusterResourcePlacement until what it placed and the
	// snapshots it owns are cleaned up.
	PlacementCleanupFinalizer = FleetPrefix + "crp-cleanup"

	// ResourcePlacementCleanupFinalizer keeps a ResourcePlacement until what it placed and the
	// snapshots it owns are cleaned up.
	ResourcePlacementCleanupFinalizer = FleetPrefix + "rp-cleanup"

	// StagedUpdateRunFinalizer keeps a ClusterStagedUpdateRun or StagedUpdateRun until its approval
	// requests are deleted. Deleting a run never touches what it already deployed.
	StagedUpdateRunFinalizer = FleetPrefix + "stagedupdaterun-finalizer"
)

// Staged update runs and their approval requests.
const (
	// UpdateRunDeleteStageName is the StageName of UpdateRunStatus.DeletionStageStatus, the stage
	// that runs after all strategy stages and removes the resources from clusters the placement no
	// longer selects. It cannot clash with a strategy stage name, which may not contain '/'.
	UpdateRunDeleteStageName = FleetPrefix + "deleteStage"

	// ApprovalTaskNameFmt formats the name of the approval request of an after-stage Approval task
	// from the run name and the stage name: "<run>-<stage>", as in Kubefleet's staged update
	// walkthrough (for example "example-run-canary"). Names formatted this way can collide (run "a"
	// with stage "b-c" and run "a-b" with stage "c" both give "a-b-c"), so whoever finds an existing
	// approval request must check its spec (parentStageRollout, targetStage) and its TaskTypeLabel
	// before treating it as its own.
	ApprovalTaskNameFmt = "%s-%s"

	// AfterStageApprovalTaskNameFmt is ApprovalTaskNameFmt: an after-stage approval request is
	// named "<run>-<stage>".
	AfterStageApprovalTaskNameFmt = ApprovalTaskNameFmt

	// BeforeStageApprovalTaskNameFmt formats the name of the approval request of a before-stage
	// Approval task: "<run>-before-<stage>", so that it differs from the after-stage request of the
	// same stage. The same collision caveat as for ApprovalTaskNameFmt applies.
	BeforeStageApprovalTaskNameFmt = "%s-before-%s"

	// TargetUpdateRunLabel names, on an approval request, the run it belongs to. Deleting a run
	// deletes the approval requests carrying its name in this label.
	TargetUpdateRunLabel = FleetPrefix + "targetUpdateRun"

	// LegacyTargetUpdateRunLabel is the all-lowercase spelling of TargetUpdateRunLabel used by older
	// Kubefleet releases and examples. Readers should accept it; writers use TargetUpdateRunLabel.
	LegacyTargetUpdateRunLabel = FleetPrefix + "targetupdaterun"

	// TargetUpdatingStageNameLabel names, on an approval request, the stage it gates.
	TargetUpdatingStageNameLabel = FleetPrefix + "targetUpdatingStage"

	// TaskTypeLabel says, on an approval request, whether it gates the start of a stage
	// (BeforeStageTaskLabelValue) or the move past it (AfterStageTaskLabelValue).
	TaskTypeLabel = FleetPrefix + "taskType"

	// BeforeStageTaskLabelValue is the TaskTypeLabel value of a before-stage approval request.
	BeforeStageTaskLabelValue = "beforeStage"

	// AfterStageTaskLabelValue is the TaskTypeLabel value of an after-stage approval request.
	AfterStageTaskLabelValue = "afterStage"

	// IsLatestUpdateRunApprovalLabel is "true" on the approval requests a run currently waits on.
	IsLatestUpdateRunApprovalLabel = FleetPrefix + "isLatestUpdateRunApproval"
)

// NamespacedName names a namespaced object.
type NamespacedName struct {
	// Name of the object.
	// +required
	Name string `json:"name"`

	// Namespace of the object.
	// +required
	Namespace string `json:"namespace"`
}
