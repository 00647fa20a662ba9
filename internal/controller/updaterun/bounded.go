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

package updaterun

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// DefaultMaxListedClusters is how many clusters a stage lists with their conditions. A larger
// stage lists its started clusters only, up to this many, names the others that are not done in
// notStartedClusters and updatingClusters, and counts the rest, so that a run over a fleet of
// tens of thousands of clusters keeps a status of a few hundred kilobytes (docs/performance.md).
const DefaultMaxListedClusters = 100

func (r *Reconciler) maxListedClusters() int { return cmp.Or(r.maxListed, DefaultMaxListedClusters) }

// newStage is a stage's status before it starts: every cluster listed, or, past max, named in
// notStartedClusters and counted.
func newStage(name string, clusters []string, max int) placementv1beta1.StageUpdatingStatus {
	st := placementv1beta1.StageUpdatingStatus{StageName: name, Clusters: []placementv1beta1.ClusterUpdatingStatus{}}
	if len(clusters) > max {
		st.NotStartedClusters = slices.Clone(clusters)
		st.ClusterCounts = &placementv1beta1.StageClusterCounts{Total: int32(len(clusters))}
		countClusters(&st)
		return st
	}
	for _, c := range clusters {
		st.Clusters = append(st.Clusters, placementv1beta1.ClusterUpdatingStatus{ClusterName: c})
	}
	return st
}

// startCluster moves a cluster of a bounded stage from notStartedClusters to clusters, making
// room by dropping the earliest succeeded cluster listed (it stays counted), or, when every
// listed cluster is still at work, to updatingClusters. It returns the cluster's entry in
// clusters, nil when it is not listed. An unbounded stage lists every cluster already.
func startCluster(st *placementv1beta1.StageUpdatingStatus, name string, max int) *placementv1beta1.ClusterUpdatingStatus {
	if st.ClusterCounts == nil {
		return clusterStatus(st, name)
	}
	if i := slices.Index(st.NotStartedClusters, name); i >= 0 {
		st.NotStartedClusters = slices.Delete(st.NotStartedClusters, i, i+1)
	}
	if len(st.Clusters) >= max {
		if i := slices.IndexFunc(st.Clusters, func(c placementv1beta1.ClusterUpdatingStatus) bool { return clusterSucceeded(&c) }); i >= 0 {
			st.Clusters = slices.Delete(st.Clusters, i, i+1)
		}
	}
	if len(st.Clusters) >= max {
		st.UpdatingClusters = append(st.UpdatingClusters, name)
		return nil
	}
	st.Clusters = append(st.Clusters, placementv1beta1.ClusterUpdatingStatus{ClusterName: name})
	return &st.Clusters[len(st.Clusters)-1]
}

// listUpdating moves an updating cluster named in updatingClusters into clusters, even past
// the limit: its failure is to be read there.
func listUpdating(st *placementv1beta1.StageUpdatingStatus, name string) *placementv1beta1.ClusterUpdatingStatus {
	st.UpdatingClusters = slices.DeleteFunc(slices.Clone(st.UpdatingClusters), func(n string) bool { return n == name })
	st.Clusters = append(st.Clusters, placementv1beta1.ClusterUpdatingStatus{ClusterName: name})
	return &st.Clusters[len(st.Clusters)-1]
}

// countClusters recounts a bounded stage. Succeeded clusters no longer listed are those the
// lists do not name: the total is fixed at initialization and a cluster leaves the lists only
// once it succeeded, which it stays.
func countClusters(st *placementv1beta1.StageUpdatingStatus) {
	if st.ClusterCounts == nil {
		return
	}
	total, named := st.ClusterCounts.Total, int32(len(st.Clusters)+len(st.NotStartedClusters)+len(st.UpdatingClusters))
	n := placementv1beta1.StageClusterCounts{Total: total, Succeeded: total - named,
		NotStarted: int32(len(st.NotStartedClusters)), Updating: int32(len(st.UpdatingClusters))}
	for i := range st.Clusters {
		c := &st.Clusters[i]
		switch {
		case clusterSucceeded(c):
			n.Succeeded++
		case clusterFailed(c):
			n.Failed++
		case clusterStarted(c):
			n.Updating++
		default:
			n.NotStarted++
		}
	}
	*st.ClusterCounts = n
}

// countStages recounts every bounded stage of the run.
func (ru *run) countStages() {
	for i := range ru.status.StagesStatus {
		countClusters(&ru.status.StagesStatus[i])
	}
	if ru.status.DeletionStageStatus != nil {
		countClusters(ru.status.DeletionStageStatus)
	}
}

// bounded reports whether a stage of the run does not list every cluster.
func (ru *run) bounded() bool {
	d := ru.status.DeletionStageStatus
	return slices.ContainsFunc(ru.status.StagesStatus, func(st placementv1beta1.StageUpdatingStatus) bool { return st.ClusterCounts != nil }) ||
		d != nil && d.ClusterCounts != nil
}

// listingNote says, in a bounded stage's conditions, that clusters is not the whole stage and
// where every cluster is to be found.
func (ru *run) listingNote(st *placementv1beta1.StageUpdatingStatus) string {
	if st.ClusterCounts == nil {
		return ""
	}
	ns := ""
	if n := ru.GetNamespace(); n != "" {
		ns = " -n " + n
	}
	return fmt.Sprintf("clusters lists at most %d of the stage's %d clusters (clusterCounts counts them all); "+
		"every cluster's binding: kubectl get %ss%s -l %s=%s", ru.maxListed, st.ClusterCounts.Total,
		strings.ToLower(ru.inputs.family.BindingKind()), ns, placementv1beta1.PlacementTrackingLabel, ru.spec.PlacementName)
}

// maxNamed is how many clusters a condition message of a bounded stage names.
const maxNamed = 10

// someNames names a few clusters and counts the others.
func someNames(names []string, max int) string {
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:max], ", "), len(names)-max)
}
