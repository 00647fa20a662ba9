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
	"cmp"
	"fmt"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
)

// DefaultMaxListedClusters is how many clusters each list of a profile's status names. Past it,
// the lists name the first clusters only and clusterCounts counts them all, so that a profile
// matching tens of thousands of clusters keeps a status of a few hundred kilobytes
// (docs/performance.md); every cluster has its ClusterSummary.
const DefaultMaxListedClusters = 500

// pickNamespaceFlag is where a profile's summaries are: a Profile's in its namespace.
func pickNamespaceFlag(ps *pass) string {
	if ps.family.Namespaced {
		return "-n " + ps.profile.GetNamespace()
	}
	return "-A"
}

func (r *Reconciler) maxListedClusters() int { return cmp.Or(r.maxListed, DefaultMaxListedClusters) }

// listedCounts are the lengths of the status lists as the previous pass computed them, before
// they were cut: the counts a pass that does not recompute a list keeps.
func listedCounts(st *configv1beta1.Status) configv1beta1.ProfileClusterCounts {
	if st.ClusterCounts != nil {
		return *st.ClusterCounts
	}
	return configv1beta1.ProfileClusterCounts{Matching: int32(len(st.MatchingClusterRefs)), Updating: int32(len(st.UpdatingClusters.Clusters)),
		Updated: int32(len(st.UpdatedClusters.Clusters)), Failed: int32(len(st.FailedClusters))}
}

func overflows(n configv1beta1.ProfileClusterCounts, max int) bool {
	return int(max32(n.Matching, n.Updating, n.Updated, n.Failed)) > max
}

func max32(v ...int32) int32 {
	var m int32
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// boundLists cuts each status list to max clusters, and counts them when one was longer.
func boundLists(st *configv1beta1.Status, counts configv1beta1.ProfileClusterCounts, max int) {
	if !overflows(counts, max) {
		st.ClusterCounts = nil
		return
	}
	st.ClusterCounts = &counts
	st.MatchingClusterRefs = st.MatchingClusterRefs[:min(len(st.MatchingClusterRefs), max)]
	st.UpdatingClusters.Clusters = st.UpdatingClusters.Clusters[:min(len(st.UpdatingClusters.Clusters), max)]
	st.UpdatedClusters.Clusters = st.UpdatedClusters.Clusters[:min(len(st.UpdatedClusters.Clusters), max)]
	st.FailedClusters = st.FailedClusters[:min(len(st.FailedClusters), max)]
}

// listingNote says, in the Ready condition, that the status lists are cut and where every
// cluster is to be found; empty when they are not.
func listingNote(ps *pass, counts configv1beta1.ProfileClusterCounts, max int) string {
	if !overflows(counts, max) {
		return ""
	}
	return fmt.Sprintf("; the status lists at most %d clusters in each list (clusterCounts counts them all); every cluster's ClusterSummary: "+
		"kubectl get clustersummaries %s -l %s=%s", max, pickNamespaceFlag(ps), ps.family.NameLabel(), ps.profile.GetName())
}
