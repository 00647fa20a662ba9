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

package override

// What the override controllers read and write; make generate collects these markers into
// config/rbac/role.yaml.
//
// +kubebuilder:rbac:groups=placement.kubernetes-fleet.io,resources=clusterresourceoverrides;resourceoverrides,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=placement.kubernetes-fleet.io,resources=clusterresourceoverrides/finalizers;resourceoverrides/finalizers,verbs=update
// +kubebuilder:rbac:groups=placement.kubernetes-fleet.io,resources=clusterresourceoverridesnapshots;resourceoverridesnapshots,verbs=get;list;watch;create;patch;delete;deletecollection
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
