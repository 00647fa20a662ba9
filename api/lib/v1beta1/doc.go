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

// Package v1beta1 holds the lib.projectsveltos.io/v1beta1 API that Stagecoach serves for manifest
// compatibility with Sveltos: SveltosCluster, the record of one managed cluster, and the building
// blocks that the config.projectsveltos.io kinds share (cluster selectors, health checks, patches,
// drift exclusions, feature identifiers).
//
// +kubebuilder:object:generate=true
// +groupName=lib.projectsveltos.io
package v1beta1
