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

package clusterprofile

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
)

// Condition reasons of a ClusterProfile.
const (
	reasonInvalidSpec = "InvalidSpec"
	reasonProvisioned = "Provisioned"
	reasonRollingOut  = "RollingOut"
	reasonValid       = "SpecValid"
	// reasonUnreadable: content the profile references could not be read; retried.
	reasonUnreadable = "ContentUnreadable"
	// reasonNamespaceIgnored: a Profile's reference named another namespace (an Event only).
	reasonNamespaceIgnored = "NamespaceIgnored"
)

// summarise derives the conditions from what the pass learnt, and cuts the status lists to
// their bound. Stalled says whether the spec can be rolled out, Ready how far its rollout has
// got. A pass that ended before it could tell leaves both as they were.
func (r *Reconciler) summarise(ps *pass) {
	if ps.counts == nil {
		return // the matching clusters are not known: the status is as it was read
	}
	bound := r.maxListedClusters()
	switch {
	case ps.invalid != "":
		setCondition(ps, configv1beta1.ProfileStalledCondition, metav1.ConditionTrue, reasonInvalidSpec, ps.invalid)
		setCondition(ps, configv1beta1.ProfileReadyCondition, metav1.ConditionFalse, reasonInvalidSpec, ps.invalid)
	case ps.unreadable != "":
		// Nothing new is rolled out; what the summaries deploy stays as it is.
		setCondition(ps, configv1beta1.ProfileReadyCondition, metav1.ConditionFalse, reasonUnreadable, ps.unreadable)
	case ps.rolledOut:
		note := listingNote(ps, *ps.counts, bound)
		if ps.held && !ps.wave.Done() {
			note += "; the rollout is held (" + configv1beta1.HoldRolloutAnnotation + "): no other cluster starts"
		}
		setReady(ps, note)
		r.warned.Clear(ps.profile.GetUID(), reasonInvalidSpec)
		r.warned.Clear(ps.profile.GetUID(), reasonUnreadable)
	}
	boundLists(ps.status, *ps.counts, bound)
}

// warnInvalid emits a Warning Event about a spec that cannot be rolled out, each time the
// message is new.
func (r *Reconciler) warnInvalid(ps *pass, msg string) {
	c := meta.FindStatusCondition(ps.status.Conditions, configv1beta1.ProfileStalledCondition)
	if (c == nil || c.Status != metav1.ConditionTrue || c.Message != msg) && r.warned.New(ps.profile.GetUID(), reasonInvalidSpec, msg) {
		r.recorder.Eventf(ps.profile, nil, corev1.EventTypeWarning, reasonInvalidSpec, "Validate", "%s", msg)
	}
}

// warnUnreadable emits a Warning Event about content that could not be read, each time the
// message is new.
func (r *Reconciler) warnUnreadable(ps *pass) {
	if r.warned.New(ps.profile.GetUID(), reasonUnreadable, ps.unreadable) {
		r.recorder.Eventf(ps.profile, nil, corev1.EventTypeWarning, reasonUnreadable, "Freeze", "%s", ps.unreadable)
	}
}

// setReady says how far the rollout of the current spec has got over the matching clusters;
// note, when the status lists are cut, says so. Stalled says too which references of a Profile
// were read from its own namespace instead of the one they name.
func setReady(ps *pass, note string) {
	wave, failed, total := ps.wave, ps.failed, len(ps.matching)
	valid := "the spec can be rolled out"
	if n := namespaceNote(ps); n != "" {
		valid += "; " + n
	}
	setCondition(ps, configv1beta1.ProfileStalledCondition, metav1.ConditionFalse, reasonValid, valid)
	if wave.Done() && len(failed) == 0 {
		setCondition(ps, configv1beta1.ProfileReadyCondition, metav1.ConditionTrue, reasonProvisioned,
			fmt.Sprintf("every matching cluster (%d) runs the current spec", total)+note)
		return
	}
	// The note comes before the failure, which a long message would cut.
	msg := fmt.Sprintf("%d of %d matching clusters run the current spec", len(wave.Updated), total) + note
	if len(failed) > 0 {
		f := failed[0]
		msg += fmt.Sprintf("; cluster %s/%s: %s", f.ClusterRef.Namespace, f.ClusterRef.Name, f.FailureMessage)
	}
	setCondition(ps, configv1beta1.ProfileReadyCondition, metav1.ConditionFalse, reasonRollingOut, msg)
}

func setCondition(ps *pass, t string, s metav1.ConditionStatus, reason, msg string) {
	patch.SetCondition(&ps.status.Conditions, ps.profile.GetGeneration(), t, s, reason, msg)
}
