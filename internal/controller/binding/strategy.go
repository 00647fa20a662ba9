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

package binding

import (
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
)

// withStrategy sets the deploy options that carry a binding's applyStrategy, or returns an
// inputError naming the field Stagecoach does not support.
//
//   - type ClientSideApply (the default) is a forced server-side apply: the hub's manifest wins
//     over other writers, as a client-side apply does, without the last-applied annotation;
//   - type ServerSideApply applies with serverSideApplyConfig.force;
//   - whenToApply IfNotDrifted leaves an object that drifted while its manifest stayed the same;
//   - whenToTakeOver IfNoDiff and Never, and allowCoOwnership, decide over objects found on the
//     member cluster.
//
// ReportDiff and FullComparison are refused: Stagecoach neither reports differences without
// applying nor compares fields the manifest does not set.
func withStrategy(req *manifests.Request, s *placementv1beta1.ApplyStrategy) error {
	s = placementv1beta1.DefaultedApplyStrategy(s)
	if s.Type == placementv1beta1.ApplyStrategyTypeReportDiff {
		return notApplied("applyStrategy.type %s is not supported: nothing is applied; use ClientSideApply or ServerSideApply", s.Type)
	}
	if s.ComparisonOption != placementv1beta1.ComparisonOptionTypePartialComparison {
		return notApplied("applyStrategy.comparisonOption %s is not supported: nothing is applied; use PartialComparison", s.ComparisonOption)
	}
	req.NoForce = s.Type == placementv1beta1.ApplyStrategyTypeServerSideApply && !s.ServerSideApplyConfig.ForceConflicts
	req.KeepDrift = s.WhenToApply == placementv1beta1.WhenToApplyTypeIfNotDrifted
	req.RefuseCoOwned = !s.AllowCoOwnership
	switch s.WhenToTakeOver {
	case placementv1beta1.WhenToTakeOverTypeIfNoDiff:
		req.Adopt = manifests.AdoptIfNoDiff
	case placementv1beta1.WhenToTakeOverTypeNever:
		req.Adopt = manifests.AdoptNever
	}
	return nil
}
