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

// Package targets reads, from the management cluster, what a rollout targets: the clusters a
// ClusterProfile matches and the ClusterSummaries each cluster has; the resource snapshots a
// placement may roll out, its bindings, and the member clusters a run of it would update.
//
// The reconcilers ask on their caches, reading large lists in place through informers; the
// planner, the CLI and the dashboard ask the same questions on a plain client, and get the same
// answers.
package targets
