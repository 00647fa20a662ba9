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

package rollout

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/intstr"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// Eviction is what an eviction of a placement from one cluster found on the management cluster.
type Eviction struct {
	// PlacementFound, PlacementDeleting: the placement exists, and is being deleted.
	PlacementFound    bool
	PlacementDeleting bool
	// Policy is the placement's policy; nil means PickAll.
	Policy *placementv1beta1.PlacementPolicy
	// Targets are the placement's bindings to the evicted cluster: one, for a valid eviction.
	Targets []EvictionBinding
	// Bindings are all the placement's bindings, the targets among them.
	Bindings []EvictionBinding
	// Budget is the placement's disruption budget; nil when it has none.
	Budget *placementv1beta1.PlacementDisruptionBudgetSpec
}

// EvictionBinding is one binding of the placement, as an eviction sees it.
type EvictionBinding struct {
	// Deleting: the binding is being deleted; its resources are being withdrawn.
	Deleting bool
	// Placed: the binding is Bound, or Unscheduled after being Bound, so its cluster may run
	// the placement's resources.
	Placed bool
	// Failed: applying the resources failed, or they are not available, for good as far as
	// the binding's conditions say.
	Failed bool
	// Available: the binding's Available condition is True for its generation.
	Available bool
}

// EvictionDecision is what to do with an eviction, and the conditions that say so.
type EvictionDecision struct {
	// Valid is the Valid condition; ValidMessage its message.
	Valid        bool
	ValidMessage string
	// Execute: delete the target binding now.
	Execute bool
	// Executed is the Executed condition, set when Valid; ExecutedMessage its message.
	Executed        bool
	ExecutedMessage string
}

// DecideEviction applies Kubefleet's eviction rules: PickFixed placements are never evicted
// from; a binding already being deleted counts as evicted; one that placed nothing yet cannot
// be evicted; a failed one is evicted whatever the budget; otherwise the placement's
// disruption budget decides, and with no budget the eviction goes ahead.
func DecideEviction(e Eviction) EvictionDecision {
	invalid := func(msg string) EvictionDecision { return EvictionDecision{ValidMessage: msg} }
	switch {
	case !e.PlacementFound:
		return invalid(placementv1beta1.EvictionInvalidMissingPlacementMessage)
	case e.PlacementDeleting:
		return invalid(placementv1beta1.EvictionInvalidDeletingPlacementMessage)
	case placementType(e.Policy) == placementv1beta1.PickFixedPlacementType:
		return invalid(placementv1beta1.EvictionInvalidPickFixedMessage)
	case len(e.Targets) == 0:
		return invalid(placementv1beta1.EvictionInvalidMissingBindingMessage)
	case len(e.Targets) > 1:
		return invalid(placementv1beta1.EvictionInvalidMultipleBindingsMessage)
	}
	d := EvictionDecision{Valid: true, ValidMessage: placementv1beta1.EvictionValidMessage}
	target := e.Targets[0]
	executed := func(execute bool, msg string) EvictionDecision {
		d.Execute, d.Executed, d.ExecutedMessage = execute, true, msg
		return d
	}
	blocked := func(msg string) EvictionDecision { d.ExecutedMessage = msg; return d }
	switch {
	case target.Deleting:
		return executed(false, placementv1beta1.EvictionAllowedPlacementRemovedMessage)
	case !target.Placed:
		return blocked(placementv1beta1.EvictionBlockedMissingPlacementMessage)
	case target.Failed:
		return executed(true, placementv1beta1.EvictionAllowedPlacementFailedMessage)
	case e.Budget == nil:
		return executed(true, placementv1beta1.EvictionAllowedNoBudgetMessage)
	}
	allowed, available, err := DisruptionsAllowed(*e.Budget, e.Policy, e.Bindings)
	if err != nil {
		return blocked(placementv1beta1.EvictionBlockedMisconfiguredBudgetMessage)
	}
	if allowed > 0 {
		return executed(true, fmt.Sprintf(placementv1beta1.EvictionAllowedByBudgetMessageFmt, available, len(e.Bindings)))
	}
	return blocked(fmt.Sprintf(placementv1beta1.EvictionBlockedByBudgetMessageFmt, available, len(e.Bindings)))
}

// DisruptionsAllowed is how many of the placement's clusters the budget lets go now, and how
// many are available. Percentages are of a PickN placement's numberOfClusters, rounded up; a
// PickAll placement has no such number, so only an absolute minAvailable applies to it (an
// error otherwise). A binding being deleted counts as unavailable: its cluster is on its way
// out already.
func DisruptionsAllowed(budget placementv1beta1.PlacementDisruptionBudgetSpec, policy *placementv1beta1.PlacementPolicy, bindings []EvictionBinding) (allowed, available int, err error) {
	for _, b := range bindings {
		if b.Available && !b.Deleting {
			available++
		}
	}
	desired := 0
	switch placementType(policy) {
	case placementv1beta1.PickAllPlacementType:
		if budget.MaxUnavailable != nil || (budget.MinAvailable != nil && budget.MinAvailable.Type == intstr.String) {
			return 0, available, fmt.Errorf("a PickAll placement's budget takes minAvailable as a number only")
		}
	case placementv1beta1.PickNPlacementType:
		if policy.NumberOfClusters != nil {
			desired = int(*policy.NumberOfClusters)
		}
	}
	switch {
	case budget.MaxUnavailable != nil:
		maxUnavailable, err := intstr.GetScaledValueFromIntOrPercent(budget.MaxUnavailable, desired, true)
		if err != nil {
			return 0, available, err
		}
		allowed = maxUnavailable - (len(bindings) - available)
	case budget.MinAvailable != nil:
		minAvailable, err := intstr.GetScaledValueFromIntOrPercent(budget.MinAvailable, desired, true)
		if err != nil {
			return 0, available, err
		}
		allowed = available - minAvailable
	}
	return max(allowed, 0), available, nil
}

func placementType(p *placementv1beta1.PlacementPolicy) placementv1beta1.PlacementType {
	if p == nil || p.PlacementType == "" {
		return placementv1beta1.PickAllPlacementType
	}
	return p.PlacementType
}
