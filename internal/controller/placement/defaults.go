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

package placement

import (
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// Defaults of the placement API, as Kubefleet's defaulter sets them.
const (
	defaultRevisionHistoryLimit     = 10
	defaultMaxUnavailable           = "25%"
	defaultMaxSurge                 = "25%"
	defaultUnavailablePeriodSeconds = 60
)

// withDefaults returns a copy of spec with every default filled in. The CRD defaults most fields
// on write, but not inside objects that are left out (a missing policy, a missing
// rollingUpdate), and placements written before a default existed have none.
func withDefaults(spec *placementv1beta1.PlacementSpec) placementv1beta1.PlacementSpec {
	out := *spec.DeepCopy()
	if out.Policy == nil {
		out.Policy = &placementv1beta1.PlacementPolicy{}
	}
	if out.Policy.PlacementType == "" {
		out.Policy.PlacementType = placementv1beta1.PickAllPlacementType
	}
	if out.Strategy.Type == "" {
		out.Strategy.Type = placementv1beta1.RollingUpdateRolloutStrategyType
	}
	if out.Strategy.Type == placementv1beta1.RollingUpdateRolloutStrategyType {
		if out.Strategy.RollingUpdate == nil {
			out.Strategy.RollingUpdate = &placementv1beta1.RollingUpdateConfig{}
		}
		ru := out.Strategy.RollingUpdate
		if ru.MaxUnavailable == nil {
			ru.MaxUnavailable = ptr.To(intstr.FromString(defaultMaxUnavailable))
		}
		if ru.MaxSurge == nil {
			ru.MaxSurge = ptr.To(intstr.FromString(defaultMaxSurge))
		}
		if ru.UnavailablePeriodSeconds == nil {
			ru.UnavailablePeriodSeconds = ptr.To[int32](defaultUnavailablePeriodSeconds)
		}
	}
	out.Strategy.ApplyStrategy = placementv1beta1.DefaultedApplyStrategy(out.Strategy.ApplyStrategy)
	if out.RevisionHistoryLimit == nil || *out.RevisionHistoryLimit < 1 {
		out.RevisionHistoryLimit = ptr.To[int32](defaultRevisionHistoryLimit)
	}
	return out
}
