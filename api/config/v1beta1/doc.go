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

// Package v1beta1 holds the config.projectsveltos.io/v1beta1 API that Stagecoach serves for
// manifest compatibility with Sveltos:
//
//   - ClusterProfile deploys Helm charts, manifests and kustomizations to every cluster its
//     selector matches, optionally a few clusters at a time (maxUpdate) gated by health checks.
//   - ClusterSummary is the per-cluster record of one ClusterProfile, written by the controller.
//   - ClusterPromotion rolls one configuration out stage by stage, generating one ClusterProfile
//     per stage and advancing on delays, health checks, time windows and manual approval.
//
// +kubebuilder:object:generate=true
// +groupName=config.projectsveltos.io
package v1beta1
