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

// Package v1beta1 holds the cluster.kubernetes-fleet.io/v1beta1 API that Stagecoach serves for
// manifest compatibility with Kubefleet: MemberCluster, the hub-side record of one cluster in the
// fleet.
//
// Kubefleet runs an agent inside every member cluster that pulls work from the hub. Stagecoach
// drives member clusters in push mode instead: it reads the cluster's kubeconfig from the Secret
// named by the KubeconfigSecretAnnotation and applies resources itself. The object shape is
// unchanged, so Kubefleet manifests and tooling keep working.
//
// +kubebuilder:object:generate=true
// +groupName=cluster.kubernetes-fleet.io
package v1beta1
