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

package updaterun

// What the update run controllers read and write on the management cluster; make generate
// collects these markers into config/rbac/role.yaml.
// The block stands alone on purpose: controller-gen reads rbac markers only from free-standing
// comments, never from a declaration's doc comment.
//
// +kubebuilder:rbac:groups=placement.kubernetes-fleet.io,resources=clusterstagedupdateruns;stagedupdateruns,verbs=get;list;watch;create
// +kubebuilder:rbac:groups=placement.kubernetes-fleet.io,resources=clusterstagedupdateruns/status;stagedupdateruns/status,verbs=patch
// +kubebuilder:rbac:groups=placement.kubernetes-fleet.io,resources=clusterstagedupdateruns/finalizers;stagedupdateruns/finalizers,verbs=update
// +kubebuilder:rbac:groups=placement.kubernetes-fleet.io,resources=clusterapprovalrequests;approvalrequests,verbs=get;list;watch;create
// +kubebuilder:rbac:groups=placement.kubernetes-fleet.io,resources=clusterapprovalrequests/status;approvalrequests/status,verbs=patch
// +kubebuilder:rbac:groups=placement.kubernetes-fleet.io,resources=clusterresourceplacements;resourceplacements;clusterstagedupdatestrategies;stagedupdatestrategies,verbs=get;list;watch
// +kubebuilder:rbac:groups=placement.kubernetes-fleet.io,resources=clusterresourcesnapshots;resourcesnapshots;clusterschedulingpolicysnapshots;schedulingpolicysnapshots,verbs=get;list;watch
// +kubebuilder:rbac:groups=placement.kubernetes-fleet.io,resources=clusterresourcebindings;resourcebindings,verbs=get;list;watch;patch;delete
// +kubebuilder:rbac:groups=placement.kubernetes-fleet.io,resources=clusterresourcebindings/status;resourcebindings/status,verbs=patch
// +kubebuilder:rbac:groups=placement.kubernetes-fleet.io,resources=clusterresourceoverridesnapshots;resourceoverridesnapshots,verbs=get;list;watch
// +kubebuilder:rbac:groups=cluster.kubernetes-fleet.io,resources=memberclusters,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
