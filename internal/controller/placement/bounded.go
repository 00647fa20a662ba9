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
	"cmp"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// DefaultMaxListedClusters is how many entries a placement's placementStatuses lists. Past it,
// the clusters that need attention are listed first and clusterCounts counts them all, so that a
// placement over tens of thousands of clusters keeps a status of a few hundred kilobytes
// (docs/performance.md); every cluster has its binding.
const DefaultMaxListedClusters = 500

func (r *Reconciler) maxListedClusters() int { return cmp.Or(r.maxListed, DefaultMaxListedClusters) }

// Where a placement stands on a cluster, in the order a cut list keeps them.
const (
	clusterFailed = iota
	clusterNotScheduled
	clusterPending
	clusterAvailable
)

func clusterStanding(st *placementv1beta1.PerClusterPlacementStatus) int {
	if c := meta.FindStatusCondition(st.Conditions, string(placementv1beta1.PerClusterScheduledConditionType)); c != nil && c.Status != metav1.ConditionTrue {
		return clusterNotScheduled
	}
	for _, t := range []placementv1beta1.PerClusterPlacementConditionType{placementv1beta1.PerClusterAppliedConditionType,
		placementv1beta1.PerClusterAvailableConditionType, placementv1beta1.PerClusterDiffReportedConditionType} {
		if meta.IsStatusConditionFalse(st.Conditions, string(t)) {
			return clusterFailed
		}
	}
	// With apply type ReportDiff, a cluster whose differences are reported is done, as the
	// rollout counts it.
	if meta.IsStatusConditionTrue(st.Conditions, string(placementv1beta1.PerClusterAvailableConditionType)) ||
		meta.IsStatusConditionTrue(st.Conditions, string(placementv1beta1.PerClusterDiffReportedConditionType)) {
		return clusterAvailable
	}
	return clusterPending
}

// boundStatuses lists at most max entries, the failed clusters first, and counts them all when
// there are more; it returns the counts, nil when every entry is listed.
func boundStatuses(statuses []placementv1beta1.PerClusterPlacementStatus, max int) ([]placementv1beta1.PerClusterPlacementStatus, *placementv1beta1.PlacementClusterCounts) {
	if len(statuses) <= max {
		return statuses, nil
	}
	n := &placementv1beta1.PlacementClusterCounts{Total: int32(len(statuses))}
	standing := make(map[*placementv1beta1.PerClusterPlacementStatus]int, len(statuses))
	sorted := make([]*placementv1beta1.PerClusterPlacementStatus, 0, len(statuses))
	for i := range statuses {
		s := clusterStanding(&statuses[i])
		standing[&statuses[i]] = s
		sorted = append(sorted, &statuses[i])
		switch s {
		case clusterFailed:
			n.Failed++
		case clusterNotScheduled:
			n.NotScheduled++
		case clusterPending:
			n.Pending++
		case clusterAvailable:
			n.Available++
		}
	}
	slices.SortStableFunc(sorted, func(a, b *placementv1beta1.PerClusterPlacementStatus) int { return standing[a] - standing[b] })
	out := make([]placementv1beta1.PerClusterPlacementStatus, 0, max)
	for _, s := range sorted[:max] {
		out = append(out, *s)
	}
	return out, n
}

// listingNote says, in the conditions, that placementStatuses is cut and where every cluster is
// to be found.
func (r *kindReconciler) listingNote(p placementv1beta1.PlacementObj, total int) string {
	return fmt.Sprintf("; placementStatuses lists %d of %d clusters, those that need attention first (clusterCounts counts them all); %s",
		r.maxListedClusters(), total, r.bindingsHint(p))
}

// bindingsHint says how to list every binding of the placement.
func (r *kindReconciler) bindingsHint(p placementv1beta1.PlacementObj) string {
	ns := ""
	if p.GetNamespace() != "" {
		ns = " -n " + p.GetNamespace()
	}
	return fmt.Sprintf("every cluster's binding: kubectl get %ss%s -l %s=%s", strings.ToLower(r.family.BindingKind()), ns,
		placementv1beta1.PlacementTrackingLabel, p.GetName())
}
