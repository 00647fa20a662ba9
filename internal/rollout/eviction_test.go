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
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

func pickN(n int32) *placementv1beta1.PlacementPolicy {
	return &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickNPlacementType, NumberOfClusters: ptr(n)}
}

var pickAll = &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickAllPlacementType}

// bindings returns available bindings followed by unavailable ones, all placed.
func bindings(available, unavailable int) []EvictionBinding {
	var out []EvictionBinding
	for range available {
		out = append(out, EvictionBinding{Placed: true, Available: true})
	}
	for range unavailable {
		out = append(out, EvictionBinding{Placed: true})
	}
	return out
}

func minAvailable(v intstr.IntOrString) *placementv1beta1.PlacementDisruptionBudgetSpec {
	return &placementv1beta1.PlacementDisruptionBudgetSpec{MinAvailable: &v}
}

func maxUnavailable(v intstr.IntOrString) *placementv1beta1.PlacementDisruptionBudgetSpec {
	return &placementv1beta1.PlacementDisruptionBudgetSpec{MaxUnavailable: &v}
}

func TestDisruptionsAllowed(t *testing.T) {
	for _, tc := range []struct {
		name        string
		budget      *placementv1beta1.PlacementDisruptionBudgetSpec
		policy      *placementv1beta1.PlacementPolicy
		bindings    []EvictionBinding
		wantAllowed int
		wantAvail   int
		wantErr     bool
	}{
		{"PickAll minAvailable below the available", minAvailable(intstr.FromInt32(2)), pickAll, bindings(3, 0), 1, 3, false},
		{"PickAll minAvailable equal to the available", minAvailable(intstr.FromInt32(3)), pickAll, bindings(3, 0), 0, 3, false},
		{"PickAll minAvailable above the available", minAvailable(intstr.FromInt32(5)), pickAll, bindings(3, 0), 0, 3, false},
		{"PickAll minAvailable zero", minAvailable(intstr.FromInt32(0)), pickAll, bindings(1, 2), 1, 1, false},
		{"nil policy is PickAll", minAvailable(intstr.FromInt32(1)), nil, bindings(2, 0), 1, 2, false},
		{"PickAll minAvailable percentage refused", minAvailable(intstr.FromString("50%")), pickAll, bindings(3, 0), 0, 3, true},
		{"PickAll maxUnavailable refused", maxUnavailable(intstr.FromInt32(1)), pickAll, bindings(3, 0), 0, 3, true},
		{"PickN maxUnavailable with all available", maxUnavailable(intstr.FromInt32(1)), pickN(3), bindings(3, 0), 1, 3, false},
		{"PickN maxUnavailable used up", maxUnavailable(intstr.FromInt32(1)), pickN(3), bindings(2, 1), 0, 2, false},
		{"PickN maxUnavailable zero", maxUnavailable(intstr.FromInt32(0)), pickN(3), bindings(3, 0), 0, 3, false},
		{"PickN maxUnavailable 34% of 3 rounds up to 2", maxUnavailable(intstr.FromString("34%")), pickN(3), bindings(2, 1), 1, 2, false},
		{"PickN maxUnavailable 10% of 3 rounds up to 1", maxUnavailable(intstr.FromString("10%")), pickN(3), bindings(3, 0), 1, 3, false},
		{"PickN minAvailable 50% of 3 rounds up to 2", minAvailable(intstr.FromString("50%")), pickN(3), bindings(3, 0), 1, 3, false},
		{"PickN minAvailable 100%", minAvailable(intstr.FromString("100%")), pickN(3), bindings(3, 0), 0, 3, false},
		{"PickN minAvailable number", minAvailable(intstr.FromInt32(1)), pickN(3), bindings(2, 1), 1, 2, false},
		{"empty budget allows nothing", &placementv1beta1.PlacementDisruptionBudgetSpec{}, pickN(3), bindings(3, 0), 0, 3, false},
		{"a deleting binding counts as unavailable", maxUnavailable(intstr.FromInt32(1)), pickN(3),
			append(bindings(2, 0), EvictionBinding{Placed: true, Available: true, Deleting: true}), 0, 2, false},
		{"an unavailable extra binding uses up maxUnavailable", maxUnavailable(intstr.FromInt32(1)), pickN(2), bindings(2, 1), 0, 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			allowed, available, err := DisruptionsAllowed(*tc.budget, tc.policy, tc.bindings)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want error %v", err, tc.wantErr)
			}
			if allowed != tc.wantAllowed || available != tc.wantAvail {
				t.Errorf("allowed %d, available %d; want %d, %d", allowed, available, tc.wantAllowed, tc.wantAvail)
			}
		})
	}
}

func TestDecideEviction(t *testing.T) {
	placed := EvictionBinding{Placed: true, Available: true}
	valid := func(e Eviction) Eviction {
		e.PlacementFound = true
		if e.Targets == nil {
			e.Targets = []EvictionBinding{placed}
		}
		if e.Bindings == nil {
			e.Bindings = append([]EvictionBinding{}, e.Targets...)
			e.Bindings = append(e.Bindings, placed, placed)
		}
		return e
	}
	for _, tc := range []struct {
		name string
		in   Eviction
		want EvictionDecision
	}{
		{"missing placement", Eviction{}, EvictionDecision{ValidMessage: placementv1beta1.EvictionInvalidMissingPlacementMessage}},
		{"deleting placement", Eviction{PlacementFound: true, PlacementDeleting: true},
			EvictionDecision{ValidMessage: placementv1beta1.EvictionInvalidDeletingPlacementMessage}},
		{"PickFixed placement", valid(Eviction{Policy: &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickFixedPlacementType}}),
			EvictionDecision{ValidMessage: placementv1beta1.EvictionInvalidPickFixedMessage}},
		{"no binding for the cluster", valid(Eviction{Targets: []EvictionBinding{}}),
			EvictionDecision{ValidMessage: placementv1beta1.EvictionInvalidMissingBindingMessage}},
		{"two bindings for the cluster", valid(Eviction{Targets: []EvictionBinding{placed, placed}}),
			EvictionDecision{ValidMessage: placementv1beta1.EvictionInvalidMultipleBindingsMessage}},
		{"binding being deleted", valid(Eviction{Targets: []EvictionBinding{{Placed: true, Deleting: true}}}),
			EvictionDecision{Valid: true, ValidMessage: placementv1beta1.EvictionValidMessage, Executed: true,
				ExecutedMessage: placementv1beta1.EvictionAllowedPlacementRemovedMessage}},
		{"nothing placed yet", valid(Eviction{Targets: []EvictionBinding{{}}}),
			EvictionDecision{Valid: true, ValidMessage: placementv1beta1.EvictionValidMessage,
				ExecutedMessage: placementv1beta1.EvictionBlockedMissingPlacementMessage}},
		{"failed binding ignores the budget", valid(Eviction{Targets: []EvictionBinding{{Placed: true, Failed: true}},
			Budget: maxUnavailable(intstr.FromInt32(0)), Policy: pickN(3)}),
			EvictionDecision{Valid: true, ValidMessage: placementv1beta1.EvictionValidMessage, Execute: true, Executed: true,
				ExecutedMessage: placementv1beta1.EvictionAllowedPlacementFailedMessage}},
		{"no budget", valid(Eviction{}),
			EvictionDecision{Valid: true, ValidMessage: placementv1beta1.EvictionValidMessage, Execute: true, Executed: true,
				ExecutedMessage: placementv1beta1.EvictionAllowedNoBudgetMessage}},
		{"within the budget", valid(Eviction{Budget: minAvailable(intstr.FromInt32(2))}),
			EvictionDecision{Valid: true, ValidMessage: placementv1beta1.EvictionValidMessage, Execute: true, Executed: true,
				ExecutedMessage: "Eviction is allowed by specified ClusterResourcePlacementDisruptionBudget, availablePlacements: 3, totalPlacements: 3"}},
		{"beyond the budget", valid(Eviction{Budget: minAvailable(intstr.FromInt32(3))}),
			EvictionDecision{Valid: true, ValidMessage: placementv1beta1.EvictionValidMessage,
				ExecutedMessage: "Eviction is blocked by specified ClusterResourcePlacementDisruptionBudget, availablePlacements: 3, totalPlacements: 3"}},
		{"PickAll with maxUnavailable", valid(Eviction{Budget: maxUnavailable(intstr.FromInt32(3))}),
			EvictionDecision{Valid: true, ValidMessage: placementv1beta1.EvictionValidMessage,
				ExecutedMessage: placementv1beta1.EvictionBlockedMisconfiguredBudgetMessage}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := DecideEviction(tc.in); got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
