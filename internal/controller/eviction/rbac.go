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

package eviction

// What the eviction controller reads and writes on the management cluster; make generate
// collects these markers into config/rbac/role.yaml. It deletes bindings (their finalizer makes
// the binding controller withdraw the resources first) and never writes placements. The block
// stands alone on purpose: controller-gen reads rbac markers only from free-standing comments.
//
// +kubebuilder:rbac:groups=placement.kubernetes-fleet.io,resources=clusterresourceplacementevictions,verbs=get;list;watch
// +kubebuilder:rbac:groups=placement.kubernetes-fleet.io,resources=clusterresourceplacementevictions/status,verbs=patch
// +kubebuilder:rbac:groups=placement.kubernetes-fleet.io,resources=clusterresourceplacementdisruptionbudgets,verbs=get;list;watch
// +kubebuilder:rbac:groups=placement.kubernetes-fleet.io,resources=clusterresourceplacements,verbs=get;list;watch
// +kubebuilder:rbac:groups=placement.kubernetes-fleet.io,resources=clusterresourcebindings,verbs=get;list;watch;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
