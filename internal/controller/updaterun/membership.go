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
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

// followMembership brings the run in line with the clusters the placement picks now. Kubefleet
// fails a run whose clusters change after it initialized (validation.go, #733); Stagecoach drops
// a cluster that left from the stages not finished, without failing the run (the deletion stage
// takes the placement's resources off it), and gives a cluster that joined what the strategy's
// joiningClusters says (rollout.DecideJoin). With stop set, no cluster joins.
func (r *kindReconciler) followMembership(ctx context.Context, ru *run, bindings map[string]placementv1beta1.BindingObj, snapshot string, stop bool) error {
	picked := func(name string) bool {
		b, ok := bindings[name]
		return ok && b.BindingSpec().State != placementv1beta1.BindingStateUnscheduled
	}
	listed := map[string]bool{}
	for i := range ru.status.StagesStatus {
		st := &ru.status.StagesStatus[i]
		if !stageSucceeded(st) {
			r.dropLeft(ru, st, picked, bindings)
		}
		for _, n := range stageNames(st) {
			listed[n] = true
		}
	}
	if d := ru.status.DeletionStageStatus; d != nil {
		for _, n := range stageNames(d) {
			listed[n] = true
		}
	}
	policy := ru.status.UpdateStrategySnapshot.JoiningClusters
	if stop || policy != placementv1beta1.JoiningClustersStageSnapshot {
		return nil
	}
	var joined []string
	for name, b := range bindings {
		if listed[name] || !picked(name) || isBoundTo(b, true, snapshot) {
			continue // in the run, leaving, or running the snapshot already
		}
		joined = append(joined, name)
	}
	if len(joined) == 0 {
		return nil
	}
	slices.Sort(joined)
	members, _, err := ru.inputs.clusters(ctx, ru.spec.PlacementName)
	if err != nil {
		return err
	}
	for _, name := range joined {
		i := slices.IndexFunc(members, func(m rollout.Member) bool { return m.Name == name })
		if i < 0 {
			continue // not a member the placement picks after all
		}
		if err := r.join(ctx, ru, members[i], bindings[name], snapshot, policy); err != nil {
			return err
		}
	}
	return nil
}

// join gives a cluster that joined during the run its stage's snapshot, as rollout.DecideJoin
// says.
func (r *kindReconciler) join(ctx context.Context, ru *run, m rollout.Member, b placementv1beta1.BindingObj, snapshot, policy string) error {
	idx, err := rollout.StageOf(ru.status.UpdateStrategySnapshot.Stages, m)
	if err != nil {
		return nil // a cluster in two stages waits for a run that says so
	}
	passed := idx >= 0 && stageSucceeded(&ru.status.StagesStatus[idx])
	switch rollout.DecideJoin(policy, idx >= 0, passed) {
	case rollout.JoinNow:
		st := &ru.status.StagesStatus[idx]
		ov, err := r.pinnedOverrides(ctx, ru, st, m.Name)
		if err != nil {
			return err
		}
		if err := r.bind(ctx, ru, b, snapshot, ov); err != nil {
			return err
		}
		r.event(ru, corev1.EventTypeNormal, "ClusterJoined", fmt.Sprintf(
			"cluster %s joined after stage %s passed: it gets resource snapshot index %s (joiningClusters: StageSnapshot)", m.Name, st.StageName, ru.status.ResourceSnapshotIndexUsed))
	case rollout.JoinStage:
		st := &ru.status.StagesStatus[idx]
		if st.ClusterCounts != nil {
			st.NotStartedClusters = append(st.NotStartedClusters, m.Name)
			st.ClusterCounts.Total++
		} else {
			st.Clusters = append(st.Clusters, placementv1beta1.ClusterUpdatingStatus{ClusterName: m.Name})
		}
		r.event(ru, corev1.EventTypeNormal, "ClusterJoined", fmt.Sprintf(
			"cluster %s joined during the run: it is updated with stage %s (joiningClusters: StageSnapshot)", m.Name, st.StageName))
	}
	return nil
}

// dropLeft takes the clusters the placement no longer picks out of a stage not finished: they are
// not waited for and do not fail it. Those still bound go to the deletion stage, which takes the
// placement's resources off them.
func (r *kindReconciler) dropLeft(ru *run, st *placementv1beta1.StageUpdatingStatus, picked func(string) bool, bindings map[string]placementv1beta1.BindingObj) {
	var left []string
	st.NotStartedClusters, left = keepPicked(st.NotStartedClusters, picked, left)
	st.UpdatingClusters, left = keepPicked(st.UpdatingClusters, picked, left)
	st.Clusters = slices.DeleteFunc(st.Clusters, func(c placementv1beta1.ClusterUpdatingStatus) bool {
		if clusterSucceeded(&c) || picked(c.ClusterName) {
			return false
		}
		left = append(left, c.ClusterName)
		return true
	})
	for _, name := range left {
		if st.ClusterCounts != nil {
			st.ClusterCounts.Total--
		}
		if d := ru.status.DeletionStageStatus; d != nil {
			if _, bound := bindings[name]; bound && !slices.Contains(stageNames(d), name) {
				if d.ClusterCounts != nil {
					d.NotStartedClusters = append(d.NotStartedClusters, name)
					d.ClusterCounts.Total++
				} else {
					d.Clusters = append(d.Clusters, placementv1beta1.ClusterUpdatingStatus{ClusterName: name})
				}
			}
		}
		r.event(ru, corev1.EventTypeNormal, "ClusterLeft", fmt.Sprintf(
			"cluster %s left %s during the run: dropped from stage %s", name, ru.spec.PlacementName, st.StageName))
	}
}

func keepPicked(names []string, picked func(string) bool, left []string) ([]string, []string) {
	kept, gone := rollout.Remaining(names, picked)
	return kept, append(left, gone...)
}

// stageNames lists every cluster a stage names.
func stageNames(st *placementv1beta1.StageUpdatingStatus) []string {
	names := slices.Concat(st.NotStartedClusters, st.UpdatingClusters)
	for _, c := range st.Clusters {
		names = append(names, c.ClusterName)
	}
	return names
}
