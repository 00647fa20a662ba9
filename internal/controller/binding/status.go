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
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
)

// maxFailedPlacements is the API's limit on status.failedPlacements.
const maxFailedPlacements = 100

// maxMessage bounds condition messages: a snapshot of many broken objects must not make the
// status too big to write.
const maxMessage = 4096

func truncate(msg string) string { return patch.Truncate(msg, maxMessage) }

// setCondition sets one condition for generation gen and returns the one it replaced (the zero
// Condition when there was none), for callers to tell transitions worth an event.
func setCondition(st *placementv1beta1.ResourceBindingStatus, gen int64, typ string, status metav1.ConditionStatus, reason, msg string) metav1.Condition {
	return patch.SetCondition(&st.Conditions, gen, typ, status, reason, truncate(msg))
}

// setApplied records that every resource of the snapshot is applied.
func setApplied(st *placementv1beta1.ResourceBindingStatus, gen int64, snapshot string, objects int) {
	st.ObservedResourceSnapshotName = snapshot
	setCondition(st, gen, placementv1beta1.BindingAppliedCondition, metav1.ConditionTrue, placementv1beta1.AllWorkAppliedReason,
		plural(objects, "resource")+" of the snapshot applied")
}

// setNotApplied records why the snapshot is not applied and reports whether that is news (worth
// an event). Availability is not evaluated then: the Available condition goes, as in Kubefleet,
// where a condition is only set once the one before it is True.
func setNotApplied(st *placementv1beta1.ResourceBindingStatus, gen int64, snapshot, reason, msg string, failed []placementv1beta1.FailedResourcePlacement) bool {
	st.ObservedResourceSnapshotName = snapshot
	prev := setCondition(st, gen, placementv1beta1.BindingAppliedCondition, metav1.ConditionFalse, reason, msg)
	meta.RemoveStatusCondition(&st.Conditions, placementv1beta1.BindingAvailableCondition)
	setFailedPlacements(st, failed)
	st.DriftedPlacements = nil
	return prev.Status != metav1.ConditionFalse || prev.ObservedGeneration != gen || prev.Message != truncate(msg)
}

// clearApplied forgets what the status said about applied resources, once they are withdrawn.
func clearApplied(st *placementv1beta1.ResourceBindingStatus) {
	meta.RemoveStatusCondition(&st.Conditions, placementv1beta1.BindingOverriddenCondition)
	meta.RemoveStatusCondition(&st.Conditions, placementv1beta1.BindingAppliedCondition)
	meta.RemoveStatusCondition(&st.Conditions, placementv1beta1.BindingAvailableCondition)
	meta.RemoveStatusCondition(&st.Conditions, placementv1beta1.BindingDiffReportedCondition)
	st.ObservedResourceSnapshotName = ""
	st.FailedPlacements, st.DiffedPlacements, st.DriftedPlacements = nil, nil, nil
}

// setFailedPlacements replaces the list, keeping the transition time of entries that did not
// change so that a resource staying unavailable does not rewrite the status at every check.
func setFailedPlacements(st *placementv1beta1.ResourceBindingStatus, failed []placementv1beta1.FailedResourcePlacement) {
	if len(failed) > maxFailedPlacements {
		failed = failed[:maxFailedPlacements]
	}
	for i := range failed {
		f := &failed[i]
		for _, prev := range st.FailedPlacements {
			if sameResource(prev.ResourceIdentifier, f.ResourceIdentifier) && prev.Condition.Type == f.Condition.Type &&
				prev.Condition.Status == f.Condition.Status && prev.Condition.Reason == f.Condition.Reason {
				f.Condition.LastTransitionTime = prev.Condition.LastTransitionTime
			}
		}
		if f.Condition.LastTransitionTime.IsZero() {
			f.Condition.LastTransitionTime = metav1.Now()
		}
		f.Condition.Message = truncate(f.Condition.Message)
	}
	st.FailedPlacements = failed
}

// sameResource compares identifiers by value, envelope included.
func sameResource(a, b placementv1beta1.ResourceIdentifier) bool {
	ea, eb := a.Envelope, b.Envelope
	a.Envelope, b.Envelope = nil, nil
	return a == b && (ea == nil) == (eb == nil) && (ea == nil || *ea == *eb)
}

// failure is one resource's failed condition for status.failedPlacements.
func failure(ref manifests.ObjectRef, gen int64, typ, reason, msg string) placementv1beta1.FailedResourcePlacement {
	return placementv1beta1.FailedResourcePlacement{
		ResourceIdentifier: placementv1beta1.ResourceIdentifier{
			Group: ref.Group, Version: ref.Version, Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name,
		},
		Condition: metav1.Condition{
			Type: typ, Status: metav1.ConditionFalse, Reason: reason, Message: msg, ObservedGeneration: gen,
		},
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
