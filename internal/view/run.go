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

package view

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

// RunFamily is the family of the update run in namespace: ClusterStagedUpdateRun when it is
// empty, StagedUpdateRun otherwise.
func RunFamily(namespace string) placementv1beta1.Family {
	if namespace == "" {
		return placementv1beta1.ClusterFamily
	}
	return placementv1beta1.NamespacedFamily
}

// RunState is where an update run stands, and why, from its status alone.
func RunState(run placementv1beta1.UpdateRunObj) (State, string) {
	conds := run.UpdateRunStatus().Conditions
	find := func(t placementv1beta1.StagedUpdateRunConditionType) *metav1.Condition {
		return meta.FindStatusCondition(conds, string(t))
	}
	if c := find(placementv1beta1.StagedUpdateRunConditionInitialized); c != nil && c.Status == metav1.ConditionFalse {
		return Failed, c.Message
	}
	if c := find(placementv1beta1.StagedUpdateRunConditionSucceeded); c != nil {
		if c.Status == metav1.ConditionTrue {
			return Succeeded, c.Message
		}
		if c.Status == metav1.ConditionFalse {
			return Failed, c.Message
		}
	}
	c := find(placementv1beta1.StagedUpdateRunConditionProgressing)
	switch {
	case c == nil:
		return Pending, ""
	case c.Reason == placementv1beta1.UpdateRunStoppedReason || c.Reason == placementv1beta1.UpdateRunStoppingReason:
		return Suspended, c.Message
	case c.Status == metav1.ConditionTrue:
		return Progressing, c.Message
	}
	return Waiting, c.Message
}

// Run describes the update run namespace/name (a ClusterStagedUpdateRun when namespace is
// empty): each stage with its clusters, what their bindings run and why they fail.
func Run(ctx context.Context, c client.Reader, namespace, name string, opts Options) (*Rollout, error) {
	family := RunFamily(namespace)
	run := family.NewUpdateRun()
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, run); err != nil {
		return nil, NotFound(err, family.UpdateRunKind(), namespace, name)
	}
	bindings := family.NewBindingList()
	if err := c.List(ctx, bindings, client.InNamespace(namespace), client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: run.UpdateRunSpec().PlacementName}); err != nil {
		return nil, err
	}
	byCluster := map[string]placementv1beta1.BindingObj{}
	for _, b := range bindings.BindingObjs() {
		byCluster[b.BindingSpec().TargetCluster] = b
	}
	return runRollout(run, byCluster, opts.MaxClusters), nil
}

// RunOutline describes the update run from its status alone: its state and its stages', with
// how many clusters each has in each state but not the clusters themselves. An overview of many
// rollouts lists it.
func RunOutline(run placementv1beta1.UpdateRunObj) *Rollout {
	r := runRollout(run, nil, 0)
	for i := range r.Stages {
		r.Stages[i].Clusters = []Cluster{}
	}
	return r
}

// runRollout describes the run with the bindings of its clusters, by cluster name; a stage lists
// at most limit clusters (0: all).
func runRollout(run placementv1beta1.UpdateRunObj, byCluster map[string]placementv1beta1.BindingObj, limit int) *Rollout {
	spec, status := run.UpdateRunSpec(), run.UpdateRunStatus()
	r := &Rollout{Kind: placementv1beta1.FamilyOf(run).UpdateRunKind(), Name: run.GetName(), Namespace: run.GetNamespace(), Version: status.ResourceSnapshotIndexUsed}
	if r.Version == "" {
		r.Version = spec.ResourceSnapshotIndex
	}
	r.State, r.Message = RunState(run)
	snapshot := ""
	if i, err := strconv.Atoi(r.Version); err == nil {
		snapshot = placementv1beta1.ResourceSnapshotName(spec.PlacementName, i)
	}
	active := true // the first stage not done is the one the run's message speaks of
	for i := range status.StagesStatus {
		st := runStage(&status.StagesStatus[i], byCluster, spec.PlacementName, snapshot)
		st.Wave = concurrency(status.UpdateStrategySnapshot, &status.StagesStatus[i])
		if st.State != Succeeded && active {
			active = false
			if (st.State == Waiting || st.State == Suspended) && r.Message != "" {
				st.WaitingFor = r.Message
			}
		}
		st.finish(limit)
		counted(&st, status.StagesStatus[i].ClusterCounts)
		r.Stages = append(r.Stages, st)
	}
	if d := status.DeletionStageStatus; d != nil && d.Size() > 0 {
		st := runStage(d, byCluster, spec.PlacementName, snapshot)
		st.finish(limit)
		counted(&st, d.ClusterCounts)
		r.Stages = append(r.Stages, st)
	}
	return r
}

// concurrency is how many clusters of stage st the run updates at the same time, by the
// strategy it started with; 0 when that is unknown.
func concurrency(strategy *placementv1beta1.UpdateStrategySpec, st *placementv1beta1.StageUpdatingStatus) int {
	if strategy == nil {
		return 0
	}
	for _, s := range strategy.Stages {
		if s.Name == st.StageName {
			n, _ := rollout.MaxConcurrency(s.MaxConcurrency, st.Size())
			return n
		}
	}
	return 0
}

// counted takes a large stage's counts from the run, which counts the clusters it does not list.
func counted(st *Stage, counts *placementv1beta1.StageClusterCounts) {
	if counts == nil {
		return
	}
	st.Counts = map[State]int{}
	for s, n := range map[State]int32{Pending: counts.NotStarted, Progressing: counts.Updating, Succeeded: counts.Succeeded, Failed: counts.Failed} {
		if n > 0 {
			st.Counts[s] = int(n)
		}
	}
}

// runStage is one stage of a run, its clusters with what their bindings say.
func runStage(s *placementv1beta1.StageUpdatingStatus, bindings map[string]placementv1beta1.BindingObj, placement, snapshot string) Stage {
	st := Stage{Name: s.StageName, State: Pending}
	succeeded := meta.FindStatusCondition(s.Conditions, string(placementv1beta1.StageUpdatingConditionSucceeded))
	progressing := meta.FindStatusCondition(s.Conditions, string(placementv1beta1.StageUpdatingConditionProgressing))
	switch {
	case succeeded != nil && succeeded.Status == metav1.ConditionTrue:
		st.State = Succeeded
	case succeeded != nil && succeeded.Status == metav1.ConditionFalse:
		st.State, st.WaitingFor = Failed, succeeded.Message
	case progressing == nil:
	case progressing.Reason == placementv1beta1.StageUpdatingStoppedReason || progressing.Reason == placementv1beta1.StageUpdatingStoppingReason:
		st.State, st.WaitingFor = Suspended, progressing.Message
	case progressing.Status == metav1.ConditionTrue:
		st.State = Progressing
	default:
		st.State, st.WaitingFor = Waiting, progressing.Message
	}
	if s.ProgressDeadlineTime != nil && st.State != Succeeded && st.State != Failed {
		st.WaitingFor = strings.TrimPrefix(st.WaitingFor+"; deadline "+s.ProgressDeadlineTime.UTC().Format(time.RFC3339), "; ")
	}
	cluster := func(name string, state State, reason string) {
		c := Cluster{Name: name, State: state, Reason: reason}
		if b, ok := bindings[name]; ok {
			c.Runs = BindingRuns(b, placement)
			if why := placementv1beta1.BindingFailure(b, snapshot); why != "" && state == Progressing {
				c.State, c.Reason = Failed, why
			}
		}
		st.Clusters = append(st.Clusters, c)
	}
	for i := range s.Clusters {
		c := &s.Clusters[i]
		done := meta.FindStatusCondition(c.Conditions, string(placementv1beta1.ClusterUpdatingConditionSucceeded))
		switch {
		case done != nil && done.Status == metav1.ConditionTrue:
			cluster(c.ClusterName, Succeeded, "")
		case done != nil && done.Status == metav1.ConditionFalse:
			cluster(c.ClusterName, Failed, done.Message)
		case meta.IsStatusConditionTrue(c.Conditions, string(placementv1beta1.ClusterUpdatingConditionStarted)):
			cluster(c.ClusterName, Progressing, "updating")
		default:
			cluster(c.ClusterName, Pending, "")
		}
	}
	for _, name := range s.UpdatingClusters {
		cluster(name, Progressing, "updating")
	}
	for _, name := range s.NotStartedClusters {
		cluster(name, Pending, "")
	}
	return st
}

// BindingRuns says which resource snapshot of placement a cluster's binding puts on it.
func BindingRuns(b placementv1beta1.BindingObj, placement string) string {
	spec := b.BindingSpec()
	if spec.State != placementv1beta1.BindingStateBound || spec.ResourceSnapshotName == "" {
		return ""
	}
	index := strings.TrimSuffix(strings.TrimPrefix(spec.ResourceSnapshotName, placement+"-"), "-snapshot")
	if _, err := strconv.Atoi(index); err != nil {
		return "snapshot " + spec.ResourceSnapshotName
	}
	return fmt.Sprintf("index %s", index)
}
