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

package clusterprofile

// What the ClusterProfile and Profile controllers read and write on the management cluster;
// make generate collects these markers into config/rbac/role.yaml. They read the ConfigMaps and
// Secrets profiles refer to, in any namespace, and write frozen copies of them in the
// controller's own namespace only (the namespace= markers make a Role there; the chart puts it
// in the release's namespace).
// The block stands alone on purpose: controller-gen reads rbac markers only from free-standing
// comments, never from a declaration's doc comment.
//
// +kubebuilder:rbac:groups=config.projectsveltos.io,resources=clusterprofiles,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=config.projectsveltos.io,resources=clusterprofiles/status,verbs=patch
// +kubebuilder:rbac:groups=config.projectsveltos.io,resources=clusterprofiles/finalizers,verbs=update
// +kubebuilder:rbac:groups=config.projectsveltos.io,resources=profiles,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=config.projectsveltos.io,resources=profiles/status,verbs=patch
// +kubebuilder:rbac:groups=config.projectsveltos.io,resources=profiles/finalizers,verbs=update
// +kubebuilder:rbac:groups=config.projectsveltos.io,resources=clustersummaries,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=lib.projectsveltos.io,resources=sveltosclusters,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=configmaps;secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups="",namespace=stagecoach-system,resources=configmaps;secrets,verbs=create;patch;delete
// +kubebuilder:rbac:groups=source.toolkit.fluxcd.io,resources=gitrepositories;ocirepositories;buckets,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
