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

// Package v1beta1 holds the placement.kubernetes-fleet.io/v1beta1 API that Stagecoach serves for
// manifest compatibility with Kubefleet staged updates:
//
//   - ClusterResourcePlacement and ResourcePlacement select resources in the hub cluster and the
//     member clusters to place them on;
//   - ClusterResourceSnapshot and ResourceSnapshot keep each revision of the selected resources,
//     so a rollout can deploy a given revision and a rollback can return to an older one;
//   - ClusterStagedUpdateStrategy and StagedUpdateStrategy group member clusters into ordered
//     stages with gates (timed waits, approvals) between them;
//   - ClusterStagedUpdateRun and StagedUpdateRun roll one revision of a placement out stage by stage;
//   - ClusterApprovalRequest and ApprovalRequest are the gates a person approves.
//
// The cluster-scoped kinds work together, and so do the namespaced kinds: a StagedUpdateRun refers to
// a ResourcePlacement and a StagedUpdateStrategy in its own namespace and creates ApprovalRequests
// there.
//
// +kubebuilder:object:generate=true
// +groupName=placement.kubernetes-fleet.io
package v1beta1
