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

package clustersummary

// What the ClusterSummary controller reads and writes on the management cluster; make generate
// collects these markers into config/rbac/role.yaml. Profiles may deploy to the management
// cluster itself (deploymentType Local), as the ServiceAccount they name, which the controller
// impersonates; what it applies to managed clusters goes through their own kubeconfigs and needs
// nothing here. It reads
// the ConfigMaps and Secrets that profiles refer to, the clusters' kubeconfig Secrets and chart
// repository credentials, and writes the dry-run report ConfigMaps and, in the stagecoach-system
// namespace it creates if need be, the inventories of what Local content deployed. Templates
// also read the objects that templateResourceRefs name; kinds other than ConfigMaps and Secrets
// need a grant of their own (the chart's placement.selectableResources), as the role holds no
// wildcard.
// The block stands alone on purpose: controller-gen reads rbac markers only from free-standing
// comments, never from a declaration's doc comment.
//
// +kubebuilder:rbac:groups=config.projectsveltos.io,resources=clustersummaries,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=config.projectsveltos.io,resources=clustersummaries/status,verbs=patch
// +kubebuilder:rbac:groups=config.projectsveltos.io,resources=clustersummaries/finalizers,verbs=update
// +kubebuilder:rbac:groups=lib.projectsveltos.io,resources=sveltosclusters,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=configmaps;secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups=source.toolkit.fluxcd.io,resources=gitrepositories;ocirepositories;buckets,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=create;update
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;create
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
