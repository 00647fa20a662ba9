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

// Package v1alpha1 holds ClusterProfile of the multicluster.x-k8s.io/v1alpha1 Cluster Inventory
// API (SIG Multicluster, sigs.k8s.io/cluster-inventory-api), which Stagecoach publishes for
// every registered cluster so that tools reading that inventory see its fleet. The types follow
// the standard's schema field for field; the module itself is not used because the Go module
// proxy does not serve it. Not to be confused with Sveltos' ClusterProfile
// (config.projectsveltos.io), a rollout of add-ons: here a ClusterProfile describes one cluster.
//
// +kubebuilder:object:generate=true
// +groupName=multicluster.x-k8s.io
package v1alpha1
