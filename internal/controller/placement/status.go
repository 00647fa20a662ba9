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
	"fmt"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// maxListed caps the clusters a condition message names.
const maxListed = 5

// setStatus writes everything but the Scheduled condition (set while scheduling) from what the
// pass learnt: per-cluster statuses copied from the bindings, the resource index the placement
// reports on, and the RolloutStarted, Applied and Available conditions aggregated over the
// picked clusters.
func (r *kindReconciler) setStatus(ps *pass) {
	p, ct := ps.p, r.family.PlacementConditions()
	external := ps.spec.Strategy.Type == placementv1beta1.ExternalRolloutStrategyType
	picked := ps.pickedBindings()

	var statuses []placementv1beta1.PerClusterPlacementStatus
	indices := map[string]bool{}
	previous := previousClusterStatuses(p)
	for _, b := range picked {
		st := r.clusterStatus(ps, b, external, previous[b.BindingSpec().TargetCluster])
		indices[st.ObservedResourceIndex] = true
		statuses = append(statuses, st)
	}
	statuses = append(statuses, unfilledStatuses(ps, metav1.NewTime(r.now()))...)
	// The conditions are computed over every cluster; the list may name only some of them.
	listed, counts := boundStatuses(statuses, r.maxListedClusters())
	p.PlacementStatus().PerClusterPlacementStatuses, p.PlacementStatus().ClusterCounts = listed, counts
	note := ""
	if counts != nil {
		note = r.listingNote(p, len(statuses))
	}
	setConditionFrom := func(p placementv1beta1.PlacementObj, c metav1.Condition) {
		setCondition(p, c.Type, c.Status, c.Reason, c.Message+note)
	}

	// RolloutStarted and what follows describe one resource index. A rolling update reports on
	// the newest; with update runs the clusters may run different ones, and then there is none to
	// report on.
	var started metav1.Condition
	switch {
	case !external:
		p.PlacementStatus().ObservedResourceIndex = strconv.Itoa(ps.index)
		p.PlacementStatus().SelectedResources = identifiersOfObjects(ps.selection)
		started = aggregate(ct.RolloutStarted, picked, statuses, placementv1beta1.PerClusterRolloutStartedConditionType, outcomeText{
			trueReason: placementv1beta1.RolloutStartedReason, otherReason: placementv1beta1.RolloutNotStartedYetReason,
			trueText: "The rollout of resource snapshot index %s has started on all %d picked clusters",
			waitText: "The rollout of resource snapshot index %s has not started yet on %s",
		}, p.PlacementStatus().ObservedResourceIndex)
		if started.Status == metav1.ConditionUnknown {
			started.Status = metav1.ConditionFalse
		}
	case len(picked) > 0 && len(indices) == 1 && !indices[""]:
		p.PlacementStatus().ObservedResourceIndex = statuses[0].ObservedResourceIndex
		p.PlacementStatus().SelectedResources = r.selectedResourcesOfIndex(ps, statuses[0].ObservedResourceIndex)
		started = aggregate(ct.RolloutStarted, picked, statuses, placementv1beta1.PerClusterRolloutStartedConditionType, outcomeText{
			trueReason: placementv1beta1.RolloutStartedReason, otherReason: placementv1beta1.RolloutControlledByExternalControllerReason,
			trueText: "Resource snapshot index %s has been rolled out to all %d picked clusters by update runs",
			waitText: "Resource snapshot index %s is rolling out by an update run; not started yet on %s",
		}, p.PlacementStatus().ObservedResourceIndex)
		if started.Status != metav1.ConditionTrue {
			started.Status, started.Reason = metav1.ConditionUnknown, placementv1beta1.RolloutControlledByExternalControllerReason
		}
	default:
		p.PlacementStatus().ObservedResourceIndex = ""
		p.PlacementStatus().SelectedResources = nil
		started = metav1.Condition{Type: ct.RolloutStarted, Status: metav1.ConditionUnknown,
			Reason:  placementv1beta1.RolloutControlledByExternalControllerReason,
			Message: externalRolloutMessage(ps, indices)}
	}
	setConditionFrom(p, started)

	// Applied follows once RolloutStarted is True, and Available once Applied is; with apply
	// type ReportDiff, DiffReported instead of both. Overridden comes first once bindings report
	// it (see overriddenStep).
	prev := started
	overridden := r.overriddenStep(p, statuses)
	followers := []chainStep{
		overridden,
		{ct.Applied, placementv1beta1.PerClusterAppliedConditionType, outcomeText{
			trueReason: placementv1beta1.ApplySucceededReason, falseReason: placementv1beta1.ApplyFailedReason,
			otherReason: placementv1beta1.ApplyPendingReason,
			trueText:    "Resource snapshot index %s is applied on all %d picked clusters",
			falseText:   "Resource snapshot index %s failed to apply on %s",
			waitText:    "Resource snapshot index %s is not applied yet on %s",
		}},
		{ct.Available, placementv1beta1.PerClusterAvailableConditionType, outcomeText{
			trueReason: placementv1beta1.AvailableReason, falseReason: placementv1beta1.NotAvailableYetReason,
			otherReason: placementv1beta1.AvailableUnknownReason,
			trueText:    "Resource snapshot index %s is available on all %d picked clusters",
			falseText:   "Resource snapshot index %s is not available yet on %s",
			waitText:    "The availability of resource snapshot index %s is not known yet on %s",
		}},
	}
	if reportsDiff(ps.spec) {
		meta.RemoveStatusCondition(&p.PlacementStatus().Conditions, ct.Applied)
		meta.RemoveStatusCondition(&p.PlacementStatus().Conditions, ct.Available)
		followers = []chainStep{overridden, {ct.DiffReported, placementv1beta1.PerClusterDiffReportedConditionType, outcomeText{
			trueReason: placementv1beta1.DiffReportedStatusTrueReason, falseReason: placementv1beta1.DiffReportedStatusFalseReason,
			otherReason: placementv1beta1.DiffReportedStatusUnknownReason,
			trueText:    "The differences of resource snapshot index %s are reported on all %d picked clusters",
			falseText:   "The differences of resource snapshot index %s could not be reported on %s",
			waitText:    "The differences of resource snapshot index %s are not reported yet on %s",
		}}}
	} else {
		meta.RemoveStatusCondition(&p.PlacementStatus().Conditions, ct.DiffReported)
	}
	for _, next := range followers {
		if next.condType == "" {
			continue
		}
		if prev.Status != metav1.ConditionTrue {
			meta.RemoveStatusCondition(&p.PlacementStatus().Conditions, next.condType)
			continue
		}
		prev = aggregate(next.condType, picked, statuses, next.perCluster, next.text, p.PlacementStatus().ObservedResourceIndex)
		setConditionFrom(p, prev)
	}
}

// outcomeText words an aggregated condition.
type outcomeText struct {
	trueReason, falseReason, otherReason string
	// trueText takes the index and the number of clusters; falseText and waitText the index
	// and the clusters concerned.
	trueText, falseText, waitText string
}

// aggregate folds one per-cluster condition over the picked clusters: True when it is True on
// all, False when it is False on any, Unknown otherwise.
func aggregate(condType string, picked []placementv1beta1.BindingObj, statuses []placementv1beta1.PerClusterPlacementStatus,
	perCluster placementv1beta1.PerClusterPlacementConditionType, text outcomeText, index string) metav1.Condition {
	var failed, waiting []string
	for i := range picked {
		c := meta.FindStatusCondition(statuses[i].Conditions, string(perCluster))
		switch {
		case c != nil && c.Status == metav1.ConditionTrue:
		case c != nil && c.Status == metav1.ConditionFalse && text.falseReason != "":
			failed = append(failed, describeCluster(statuses[i].ClusterName, c))
		default:
			waiting = append(waiting, describeCluster(statuses[i].ClusterName, c))
		}
	}
	switch {
	case len(failed) > 0:
		return metav1.Condition{Type: condType, Status: metav1.ConditionFalse, Reason: text.falseReason,
			Message: fmt.Sprintf(text.falseText, index, listClusters(failed))}
	case len(waiting) > 0:
		return metav1.Condition{Type: condType, Status: metav1.ConditionUnknown, Reason: text.otherReason,
			Message: fmt.Sprintf(text.waitText, index, listClusters(waiting))}
	}
	return metav1.Condition{Type: condType, Status: metav1.ConditionTrue, Reason: text.trueReason,
		Message: fmt.Sprintf(text.trueText, index, len(picked))}
}

func describeCluster(name string, c *metav1.Condition) string {
	if c == nil || c.Message == "" {
		return name
	}
	return name + " (" + c.Message + ")"
}

func listClusters(names []string) string {
	if len(names) <= maxListed {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxListed], ", "), len(names)-maxListed)
}

// externalRolloutMessage explains why an External placement reports on no resource index.
func externalRolloutMessage(ps *pass, indices map[string]bool) string {
	const see = "check the staged update runs whose placementName is this placement"
	switch {
	case len(ps.pickedBindings()) == 0:
		return "No cluster is picked; update runs roll resource snapshots out to picked clusters"
	case len(indices) > 1:
		return "The picked clusters run different resource snapshot indices; " + see
	}
	return "No resource snapshot has been rolled out to the picked clusters yet; " + see
}

// clusterStatus is the status of the placement on one picked cluster: Scheduled, then the
// binding's conditions in order, up to the first that is not True.
func (r *kindReconciler) clusterStatus(ps *pass, b placementv1beta1.BindingObj, external bool, previous []metav1.Condition) placementv1beta1.PerClusterPlacementStatus {
	gen := ps.p.GetGeneration()
	st := placementv1beta1.PerClusterPlacementStatus{ClusterName: b.BindingSpec().TargetCluster}
	if idx, ok := snapshotIndex(ps.snapshots, ps.p.GetName(), b.BindingSpec().ResourceSnapshotName); ok && b.BindingSpec().State == placementv1beta1.BindingStateBound {
		st.ObservedResourceIndex = strconv.Itoa(idx)
	}
	old := map[string]metav1.Condition{}
	for _, c := range previous {
		old[c.Type] = c
	}
	add := func(c metav1.Condition) bool {
		c.ObservedGeneration = gen
		if o, ok := old[c.Type]; ok && o.Status == c.Status {
			c.LastTransitionTime = o.LastTransitionTime
		}
		if c.LastTransitionTime.IsZero() {
			c.LastTransitionTime = metav1.NewTime(r.now())
		}
		st.Conditions = append(st.Conditions, c)
		return c.Status == metav1.ConditionTrue
	}
	add(metav1.Condition{Type: string(placementv1beta1.PerClusterScheduledConditionType), Status: metav1.ConditionTrue,
		Reason: placementv1beta1.ScheduleSucceededReason, Message: b.BindingSpec().ClusterDecision.Reason})

	started := bindingCondition(b, placementv1beta1.BindingRolloutStartedCondition, false)
	switch {
	case started != nil && b.BindingSpec().State == placementv1beta1.BindingStateBound:
	case external:
		started = &metav1.Condition{Status: metav1.ConditionUnknown, Reason: placementv1beta1.RolloutControlledByExternalControllerReason,
			Message: "An update run decides when this cluster gets which resource snapshot"}
	case started == nil:
		started = &metav1.Condition{Status: metav1.ConditionUnknown, Reason: placementv1beta1.RolloutStartedUnknownReason,
			Message: "The rollout to this cluster has not been decided yet"}
	}
	if b.BindingSpec().State == placementv1beta1.BindingStateBound {
		st.ApplicableClusterResourceOverrides = b.BindingSpec().ClusterResourceOverrideSnapshots
		st.ApplicableResourceOverrides = b.BindingSpec().ResourceOverrideSnapshots
	}
	started.Type = string(placementv1beta1.PerClusterRolloutStartedConditionType)
	if !add(*started) {
		return st
	}
	// Overridden, once the binding controller reported it for this generation.
	if c := bindingCondition(b, placementv1beta1.BindingOverriddenCondition, false); c != nil {
		c.Type = string(placementv1beta1.PerClusterOverriddenConditionType)
		if !add(*c) {
			return st
		}
	}
	type follower struct {
		binding    string
		perCluster placementv1beta1.PerClusterPlacementConditionType
		pending    string
	}
	followers := []follower{
		{placementv1beta1.BindingAppliedCondition, placementv1beta1.PerClusterAppliedConditionType, placementv1beta1.ApplyPendingReason},
		{placementv1beta1.BindingAvailableCondition, placementv1beta1.PerClusterAvailableConditionType, placementv1beta1.AvailableUnknownReason},
	}
	if b.BindingStatus().ObservedResourceSnapshotName == b.BindingSpec().ResourceSnapshotName {
		st.DiffedPlacements, st.DriftedPlacements = b.BindingStatus().DiffedPlacements, b.BindingStatus().DriftedPlacements
	}
	if reportsDiff(ps.spec) {
		followers = []follower{{placementv1beta1.BindingDiffReportedCondition, placementv1beta1.PerClusterDiffReportedConditionType,
			placementv1beta1.DiffReportedStatusUnknownReason}}
	}
	for _, t := range followers {
		c := bindingCondition(b, t.binding, true)
		reported := c != nil
		if !reported {
			c = &metav1.Condition{Status: metav1.ConditionUnknown, Reason: t.pending,
				Message: "Waiting for the cluster to report on resource snapshot " + b.BindingSpec().ResourceSnapshotName}
		}
		c.Type = string(t.perCluster)
		if !add(*c) {
			if reported {
				// As in Kubefleet, the resources to blame, each with its envelope if it came in
				// one; never those of an older snapshot the binding still lists.
				for _, f := range b.BindingStatus().FailedPlacements {
					st.FailedPlacements = append(st.FailedPlacements, *f.DeepCopy())
				}
			}
			return st
		}
	}
	return st
}

// reportsDiff: the placement's apply type is ReportDiff, which applies nothing and reports the
// differences instead of Applied and Available.
func reportsDiff(spec placementv1beta1.PlacementSpec) bool {
	s := spec.Strategy.ApplyStrategy
	return s != nil && s.Type == placementv1beta1.ApplyStrategyTypeReportDiff
}

// bindingCondition is a binding condition for the binding's current generation (and, for what
// the cluster reports, for the snapshot it names), or nil.
func bindingCondition(b placementv1beta1.BindingObj, condType string, forSnapshot bool) *metav1.Condition {
	c := meta.FindStatusCondition(b.BindingStatus().Conditions, condType)
	if c == nil || c.ObservedGeneration != b.GetGeneration() {
		return nil
	}
	if forSnapshot && b.BindingStatus().ObservedResourceSnapshotName != b.BindingSpec().ResourceSnapshotName {
		return nil
	}
	out := *c
	out.LastTransitionTime = metav1.Time{}
	return &out
}

// previousClusterStatuses are the conditions of each cluster the status lists, by cluster: a
// cluster keeps the transition times of conditions that did not change. One that was not
// listed gets the time it is listed at.
func previousClusterStatuses(p placementv1beta1.PlacementObj) map[string][]metav1.Condition {
	out := map[string][]metav1.Condition{}
	for _, s := range p.PlacementStatus().PerClusterPlacementStatuses {
		if _, dup := out[s.ClusterName]; !dup {
			out[s.ClusterName] = s.Conditions
		}
	}
	return out
}

// unfilledStatuses are entries for the clusters a PickN or PickFixed policy asks for but could
// not get: nameless ones for PickN, the named clusters for PickFixed.
func unfilledStatuses(ps *pass, now metav1.Time) []placementv1beta1.PerClusterPlacementStatus {
	var out []placementv1beta1.PerClusterPlacementStatus
	notScheduled := func(name, why string) {
		out = append(out, placementv1beta1.PerClusterPlacementStatus{ClusterName: name, Conditions: []metav1.Condition{{
			Type: string(placementv1beta1.PerClusterScheduledConditionType), Status: metav1.ConditionFalse,
			Reason: placementv1beta1.ResourceScheduleFailedReason, Message: why, ObservedGeneration: ps.p.GetGeneration(),
			LastTransitionTime: now,
		}}})
	}
	switch ps.spec.Policy.PlacementType {
	case placementv1beta1.PickNPlacementType:
		for range ps.schedule.Shortfall {
			notScheduled("", ps.schedule.Message)
		}
	case placementv1beta1.PickFixedPlacementType:
		for _, d := range ps.schedule.Unpicked {
			notScheduled(d.ClusterName, d.Reason)
		}
	}
	// Keep the transition times of entries that did not change.
	for i := range out {
		for _, o := range ps.p.PlacementStatus().PerClusterPlacementStatuses {
			if o.ClusterName == out[i].ClusterName && len(o.Conditions) == 1 && o.Conditions[0].Status == metav1.ConditionFalse {
				out[i].Conditions[0].LastTransitionTime = o.Conditions[0].LastTransitionTime
			}
		}
	}
	return out
}

func identifiersOfObjects(sel *selection) []placementv1beta1.ResourceIdentifier {
	out := make([]placementv1beta1.ResourceIdentifier, 0, len(sel.objects))
	for _, o := range sel.objects {
		out = append(out, identifierOf(o))
	}
	return out
}

// selectedResourcesOfIndex lists the resources of snapshot group index.
func (r *kindReconciler) selectedResourcesOfIndex(ps *pass, index string) []placementv1beta1.ResourceIdentifier {
	if index == strconv.Itoa(ps.index) {
		return identifiersOfObjects(ps.selection)
	}
	var group []placementv1beta1.ResourceSnapshotObj
	for _, s := range ps.snapshots {
		if s.GetLabels()[placementv1beta1.ResourceIndexLabel] == index {
			group = append(group, s)
		}
	}
	// The first snapshot first, then the others by subindex.
	slices.SortFunc(group, func(a, b placementv1beta1.ResourceSnapshotObj) int {
		return subindexOf(a) - subindexOf(b)
	})
	var out []placementv1beta1.ResourceIdentifier
	for _, s := range group {
		out = append(out, identifiersOfContents(s.ResourceSnapshotSpec().SelectedResources)...)
	}
	return out
}

func subindexOf(s placementv1beta1.ResourceSnapshotObj) int {
	if isMaster(s) {
		return -1
	}
	n, _ := strconv.Atoi(s.GetAnnotations()[placementv1beta1.SubindexOfResourceSnapshotAnnotation])
	return n
}

// chainStep is a placement condition folded from a per-cluster one.
type chainStep struct {
	condType   string
	perCluster placementv1beta1.PerClusterPlacementConditionType
	text       outcomeText
}

// overriddenStep is the placement's Overridden condition as a step of the chain, when a cluster's
// binding reports Overridden (bindings applied before overrides existed do not); otherwise the
// condition goes and the step is empty, which the chain skips.
func (r *kindReconciler) overriddenStep(p placementv1beta1.PlacementObj, statuses []placementv1beta1.PerClusterPlacementStatus) chainStep {
	condType := string(placementv1beta1.ClusterResourcePlacementOverriddenConditionType)
	if r.family.Namespaced {
		condType = string(placementv1beta1.ResourcePlacementOverriddenConditionType)
	}
	reported := false
	for _, st := range statuses {
		reported = reported || meta.FindStatusCondition(st.Conditions, string(placementv1beta1.PerClusterOverriddenConditionType)) != nil
	}
	if !reported {
		meta.RemoveStatusCondition(&p.PlacementStatus().Conditions, condType)
		return chainStep{}
	}
	return chainStep{condType: condType, perCluster: placementv1beta1.PerClusterOverriddenConditionType, text: outcomeText{
		trueReason: placementv1beta1.OverriddenSucceededReason, falseReason: placementv1beta1.OverriddenFailedReason,
		otherReason: placementv1beta1.OverriddenPendingReason,
		trueText:    "The overrides of resource snapshot index %s are applied on all %d picked clusters",
		falseText:   "The overrides of resource snapshot index %s failed to apply on %s",
		waitText:    "The overrides of resource snapshot index %s are not applied yet on %s",
	}}
}
