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

// Package v1 serves the resource snapshot kinds of placement.kubernetes-fleet.io at version v1 as
// well, because Kubefleet does and kubectl shows snapshots at the group's newest version (as in
// Kubefleet's staged update walkthrough). The schema equals v1beta1, which stays the storage
// version; the API server converts between the two by changing apiVersion only. The other kinds
// of the group are served at v1beta1 only.
//
// +kubebuilder:object:generate=true
// +groupName=placement.kubernetes-fleet.io
package v1
