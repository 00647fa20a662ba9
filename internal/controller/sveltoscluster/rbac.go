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

package sveltoscluster

// What the SveltosCluster controller reads and writes on the management cluster; make generate
// collects these markers into config/rbac/role.yaml. The Secrets are the clusters' kubeconfigs,
// read where they are; a renewed token is written into a copy in the controller's namespace;
// spec.paused is patched by the active window.
// The block stands alone on purpose: controller-gen reads rbac markers only from free-standing
// comments, never from a declaration's doc comment.
//
// +kubebuilder:rbac:groups=lib.projectsveltos.io,resources=sveltosclusters,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=lib.projectsveltos.io,resources=sveltosclusters/status,verbs=patch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups="",namespace=stagecoach-system,resources=secrets,verbs=create;update;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
