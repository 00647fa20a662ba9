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

package controller

// Leader election (stagecoach controller --leader-elect) keeps a Lease and records core/v1 Events
// about it; make generate collects these markers and those of every reconciler into
// config/rbac/role.yaml. The block stands alone on purpose: controller-gen reads rbac markers only
// from free-standing comments, never from a declaration's doc comment.
//
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

// The service network, which tenants' charts may not come from, is read once at start: the
// ServiceCIDR objects, or else the kubernetes Service's address.
//
// +kubebuilder:rbac:groups=networking.k8s.io,resources=servicecidrs,verbs=list
// +kubebuilder:rbac:groups="",resources=services,verbs=get,resourceNames=kubernetes
