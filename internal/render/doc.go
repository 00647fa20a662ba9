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

// Package render works out what a ClusterSummary or a placement's binding deploys, from the
// content they refer to on the management cluster: for a summary, the objects of its policyRefs
// (ConfigMaps, Secrets, Flux sources' artifacts) and of its kustomizationRefs, its helmCharts with
// their final values, all with templates instantiated for its cluster and patches applied; for a
// binding, the objects
// of its resource snapshot group and the apply options of its strategy. The reconcilers deploy
// what it renders; DryRunSummary and DryRunBinding preview it, saying what deploying it would
// change on a cluster without writing anything anywhere.
package render
