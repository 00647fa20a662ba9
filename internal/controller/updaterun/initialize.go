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
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

// initialize freezes what the run will do: the placement's apply strategy, the resource
// snapshot, a copy of the strategy, and each stage's clusters in update order. Anything the user
// must fix (a missing placement, strategy or snapshot; a placement that is not External; a
// cluster in no stage) is an abortError.
func (r *kindReconciler) initialize(ctx context.Context, ru *run) error {
	if of := ru.GetAnnotations()[placementv1beta1.RetryOfAnnotation]; of != "" {
		return r.initializeRetry(ctx, ru, of)
	}
	s, spec := ru.inputs, ru.spec
	placementName := s.describe(r.family.PlacementKind(), spec.PlacementName)
	placement, scheduled, err := s.placement(ctx, spec.PlacementName)
	if err != nil {
		return err
	}
	if placement == nil {
		return r.missing(ctx, r.family.NewPlacement(), s.family.Key(s.namespace, spec.PlacementName), placementName)
	}
	if t := placement.Strategy.Type; t != placementv1beta1.ExternalRolloutStrategyType {
		if t == "" {
			t = placementv1beta1.RollingUpdateRolloutStrategyType
		}
		return abort(fmt.Sprintf("%s has rollout strategy %s; staged update runs drive placements whose strategy type is External", placementName, t))
	}
	if !scheduled {
		// The run's clusters are the placement's picks: freezing them halfway through scheduling
		// would leave clusters out for good.
		return errNotScheduled(placementName + " has not finished scheduling its clusters yet")
	}
	// Defaulted as the placement's own bindings are, so that bindings compare equal.
	ru.status.ApplyStrategy = placementv1beta1.DefaultedApplyStrategy(placement.Strategy.ApplyStrategy)

	strategy, err := s.strategy(ctx, spec.StagedUpdateStrategyName)
	if err != nil {
		return err
	}
	if strategy == nil {
		return r.missing(ctx, r.family.NewUpdateStrategy(), s.family.Key(s.namespace, spec.StagedUpdateStrategyName),
			s.describe(r.family.UpdateStrategyKind(), spec.StagedUpdateStrategyName))
	}

	index, err := r.resourceIndex(ctx, ru, placementName)
	if err != nil {
		return err
	}
	policyIndex, err := s.latestPolicyIndex(ctx, spec.PlacementName)
	if err != nil {
		return err
	}

	members, unscheduled, err := s.clusters(ctx, spec.PlacementName)
	if err != nil {
		return err
	}
	if len(members) == 0 && len(unscheduled) == 0 {
		return abort(placementName + " has not picked any cluster; check its policy and the MemberClusters")
	}
	strategy = strategy.DeepCopy()
	if _, ok := ru.GetAnnotations()[placementv1beta1.RollbackOfAnnotation]; ok {
		asRollback(strategy)
	}
	plans, err := rollout.PlanStages(strategy.Stages, members)
	if err != nil {
		return abort(err.Error())
	}

	ru.status.PolicySnapshotIndexUsed = policyIndex
	ru.status.PolicyObservedClusterCount = int32(len(members))
	ru.status.ResourceSnapshotIndexUsed = strconv.Itoa(index)
	ru.status.UpdateStrategySnapshot = strategy
	ru.status.StagesStatus = nil
	for i, plan := range plans {
		cfg := strategy.Stages[i]
		st := newStage(plan.Name, plan.Clusters, ru.maxListed)
		st.BeforeStageTaskStatus = tasks(cfg.BeforeStageTasks, placementv1beta1.BeforeStageApprovalTaskNameFmt, ru.GetName(), plan.Name)
		st.AfterStageTaskStatus = tasks(cfg.AfterStageTasks, placementv1beta1.AfterStageApprovalTaskNameFmt, ru.GetName(), plan.Name)
		ru.status.StagesStatus = append(ru.status.StagesStatus, st)
	}
	deletion := newStage(placementv1beta1.UpdateRunDeleteStageName, unscheduled, ru.maxListed)
	ru.status.DeletionStageStatus = &deletion
	return r.recordOverrides(ctx, ru, index)
}

func tasks(cfg []placementv1beta1.StageTask, approvalNameFmt, run, stage string) []placementv1beta1.StageTaskStatus {
	var out []placementv1beta1.StageTaskStatus
	for _, t := range cfg {
		ts := placementv1beta1.StageTaskStatus{Type: t.Type}
		if t.Type == placementv1beta1.StageTaskTypeApproval {
			ts.ApprovalRequestName = fmt.Sprintf(approvalNameFmt, run, stage)
		}
		out = append(out, ts)
	}
	return out
}

// resourceIndex resolves the run's resource snapshot index: the one it names, or the latest.
func (r *kindReconciler) resourceIndex(ctx context.Context, ru *run, placementName string) (int, error) {
	want := -1
	if ru.spec.ResourceSnapshotIndex != "" {
		i, err := strconv.Atoi(ru.spec.ResourceSnapshotIndex)
		if err != nil || i < 0 {
			return 0, abort(fmt.Sprintf("resourceSnapshotIndex %q is not a non-negative integer", ru.spec.ResourceSnapshotIndex))
		}
		want = i
	}
	indices, err := ru.inputs.snapshotIndices(ctx, ru.inputs, ru.spec.PlacementName)
	if err != nil {
		return 0, err
	}
	found := func(indices []int) bool {
		return len(indices) > 0 && (want < 0 || slices.Contains(indices, want))
	}
	if !found(indices) && r.reader != nil {
		// The snapshot may have been written just before the run, and the cache not have it yet.
		live, err := ru.inputs.snapshotIndices(ctx, r.reader, ru.spec.PlacementName)
		if err != nil {
			return 0, err
		}
		if found(live) {
			return 0, &waitError{"WaitingForCache", "the resource snapshots of " + placementName + " are not in the controller's cache yet"}
		}
		indices = live
	}
	switch {
	case len(indices) == 0:
		return 0, abort(placementName + " has no resource snapshot yet")
	case want < 0:
		return indices[len(indices)-1], nil
	case !slices.Contains(indices, want):
		return 0, abort(fmt.Sprintf("%s has no resource snapshot with index %d (it has: %s)", placementName, want, joinInts(indices)))
	}
	return want, nil
}

// missing fails the run on an object its cache does not have, named name, unless the API server
// has it: the cache may not have seen an object created just before the run (in the same
// kubectl apply, say), and the run then waits for it.
func (r *kindReconciler) missing(ctx context.Context, obj client.Object, key client.ObjectKey, name string) error {
	if r.reader != nil {
		err := r.reader.Get(ctx, key, obj)
		if err == nil {
			return &waitError{"WaitingForCache", name + " is not in the controller's cache yet"}
		}
		if !apierrors.IsNotFound(err) {
			return err
		}
	}
	return abort(name + " not found")
}

// waitError: the run cannot initialize yet, and will once what it waits for is there; reason
// says what (the Initialized condition's reason meanwhile).
type waitError struct{ reason, msg string }

func (e *waitError) Error() string { return e.msg }

func errNotScheduled(msg string) error { return &waitError{"WaitingForScheduling", msg} }
