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

package eviction

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

// progressing are the reasons of a False binding condition that mean "not yet" rather than
// "failed": Kubefleet's in-progress reasons, and Stagecoach's wait for a complete snapshot
// group. Any other False reason is a failure, as in Kubefleet, so that a new reason is never
// mistaken for progress.
var progressing = map[string]bool{
	placementv1beta1.OverriddenPendingReason:      true,
	placementv1beta1.WorkNotSynchronizedYetReason: true,
	placementv1beta1.ApplyPendingReason:           true,
	placementv1beta1.NotAvailableYetReason:        true,
	placementv1beta1.WorkApplyInProcessReason:     true,
}

// failedConditions are the binding's conditions whose failure lets an eviction ignore the
// budget: a cluster that does not run the placement's resources well is no availability to
// protect.
var failedConditions = []string{
	string(placementv1beta1.PerClusterOverriddenConditionType),
	string(placementv1beta1.PerClusterWorkSynchronizedConditionType),
	placementv1beta1.BindingAppliedCondition,
	placementv1beta1.BindingAvailableCondition,
}

// evictionBinding is what an eviction needs to know of a binding.
func evictionBinding(b *placementv1beta1.ClusterResourceBinding) rollout.EvictionBinding {
	gen := b.Generation
	current := func(t string) *metav1.Condition {
		c := meta.FindStatusCondition(b.Status.Conditions, t)
		if c == nil || c.ObservedGeneration != gen {
			return nil
		}
		return c
	}
	out := rollout.EvictionBinding{Deleting: !b.DeletionTimestamp.IsZero()}
	switch b.Spec.State {
	case placementv1beta1.BindingStateBound:
		out.Placed = true
	case placementv1beta1.BindingStateUnscheduled:
		out.Placed = b.Annotations[placementv1beta1.PreviousBindingStateAnnotation] == string(placementv1beta1.BindingStateBound)
	}
	if c := current(placementv1beta1.BindingAvailableCondition); c != nil && c.Status == metav1.ConditionTrue {
		out.Available = true
	}
	for _, t := range failedConditions {
		if c := current(t); c != nil && c.Status == metav1.ConditionFalse && !progressing[c.Reason] {
			out.Failed = true
		}
	}
	// A binding that only reports differences places nothing: nothing to protect either.
	if current(string(placementv1beta1.PerClusterDiffReportedConditionType)) != nil {
		out.Failed = true
	}
	return out
}
