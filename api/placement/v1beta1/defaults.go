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

package v1beta1

// DefaultedApplyStrategy returns a copy of a with Kubefleet's defaults filled in; nil gives the
// default strategy. Bindings always carry a complete strategy, so that comparing two says whether
// anything would be applied differently.
func DefaultedApplyStrategy(a *ApplyStrategy) *ApplyStrategy {
	out := &ApplyStrategy{}
	if a != nil {
		out = a.DeepCopy()
	}
	if out.ComparisonOption == "" {
		out.ComparisonOption = ComparisonOptionTypePartialComparison
	}
	if out.WhenToApply == "" {
		out.WhenToApply = WhenToApplyTypeAlways
	}
	if out.Type == "" {
		out.Type = ApplyStrategyTypeClientSideApply
	}
	if out.WhenToTakeOver == "" {
		out.WhenToTakeOver = WhenToTakeOverTypeAlways
	}
	if out.Type == ApplyStrategyTypeServerSideApply && out.ServerSideApplyConfig == nil {
		out.ServerSideApplyConfig = &ServerSideApplyConfig{}
	}
	return out
}

// Abandons reports whether deleting the placement leaves the placed resources on the member
// clusters (deleteStrategy propagationPolicy Abandon).
func Abandons(p PlacementObj) bool {
	ds := p.PlacementSpec().Strategy.DeleteStrategy
	return ds != nil && ds.PropagationPolicy == DeletePropagationPolicyAbandon
}
