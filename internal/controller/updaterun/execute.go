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
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
	"github.com/stagecoach-dev/stagecoach/internal/override"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

// stageResult is what one pass over a stage came to.
type stageResult struct {
	done    bool
	requeue time.Duration
}

// execute moves the run on: the first unfinished stage, then the deletion stage. With stop set,
// no cluster is started and no task is waited on: the clusters already updating finish, then
// the run reports itself stopped.
func (r *kindReconciler) execute(ctx context.Context, ru *run, stop bool) (ctrl.Result, error) {
	bindings, err := ru.inputs.bindings(ctx, ru.spec.PlacementName)
	if err != nil {
		return ctrl.Result{}, err
	}
	index, _ := strconv.Atoi(ru.status.ResourceSnapshotIndexUsed)
	snapshot := placementv1beta1.ResourceSnapshotName(ru.spec.PlacementName, index)
	if err := r.followMembership(ctx, ru, bindings, snapshot, stop); err != nil {
		return ctrl.Result{}, err
	}
	for i := range ru.status.StagesStatus {
		if stageSucceeded(&ru.status.StagesStatus[i]) {
			continue
		}
		res, err := r.executeStage(ctx, ru, i, bindings, snapshot, stop)
		if err != nil || !res.done {
			return ctrl.Result{RequeueAfter: res.requeue}, err
		}
	}
	if stop {
		r.stopped(ru, nil)
		return ctrl.Result{}, nil
	}
	done, err := r.executeDeletion(ctx, ru, bindings)
	if err != nil || !done {
		return ctrl.Result{RequeueAfter: time.Second}, err
	}
	msg := fmt.Sprintf("every stage is updated to resource snapshot index %s", ru.status.ResourceSnapshotIndexUsed)
	ru.setCondition(placementv1beta1.StagedUpdateRunConditionSucceeded, metav1.ConditionTrue, placementv1beta1.UpdateRunSucceededReason, msg)
	r.event(ru, corev1.EventTypeNormal, placementv1beta1.UpdateRunSucceededReason, msg)
	return ctrl.Result{}, nil
}

// executeStage makes one pass over stage i.
func (r *kindReconciler) executeStage(ctx context.Context, ru *run, i int, bindings map[string]placementv1beta1.BindingObj, snapshot string, stop bool) (stageResult, error) {
	st := &ru.status.StagesStatus[i]
	cfg := ru.status.UpdateStrategySnapshot.Stages[i]
	if st.Size() == 0 {
		// An empty stage is skipped with its tasks: there is nothing to wait or approve for.
		st.StartTime, st.EndTime = &ru.now, &ru.now
		ru.setStage(st, placementv1beta1.StageUpdatingConditionProgressing, metav1.ConditionFalse, placementv1beta1.StageUpdatingSkippedNoClustersReason, "the stage has no clusters")
		ru.setStage(st, placementv1beta1.StageUpdatingConditionSucceeded, metav1.ConditionTrue, placementv1beta1.StageUpdatingSkippedNoClustersReason, "the stage has no clusters")
		return stageResult{done: true}, nil
	}
	if stop {
		return r.stopStage(ctx, ru, st, bindings, snapshot)
	}
	resumeWaits(ru, st)
	if msg, wait, err := r.frozen(ctx, ru, st); err != nil || msg != "" {
		if msg != "" {
			ru.setStage(st, placementv1beta1.StageUpdatingConditionProgressing, metav1.ConditionFalse, placementv1beta1.StageUpdatingWaitingReason, msg)
			r.waiting(ru, msg)
		}
		return stageResult{requeue: wait}, err
	}
	for j := range st.BeforeStageTaskStatus {
		task := &st.BeforeStageTaskStatus[j]
		approved, err := r.approved(ctx, ru, st.StageName, placementv1beta1.BeforeStageTaskLabelValue, task)
		if err != nil || !approved {
			ru.setStage(st, placementv1beta1.StageUpdatingConditionProgressing, metav1.ConditionFalse, placementv1beta1.StageUpdatingWaitingReason,
				"waiting for approval request "+task.ApprovalRequestName)
			r.waiting(ru, fmt.Sprintf("stage %s waits for approval request %s before it starts", st.StageName, task.ApprovalRequestName))
			return stageResult{}, err
		}
	}
	updated, err := r.updateClusters(ctx, ru, st, cfg, bindings, snapshot)
	if err != nil || !updated {
		return stageResult{requeue: r.recheck}, err
	}
	return r.afterStage(ctx, ru, st, cfg)
}

// updateClusters starts the stage's clusters in order, at most maxConcurrency at a time, and
// marks those whose binding is available with the snapshot. It reports whether all are updated.
func (r *kindReconciler) updateClusters(ctx context.Context, ru *run, st *placementv1beta1.StageUpdatingStatus, cfg placementv1beta1.StageConfig,
	bindings map[string]placementv1beta1.BindingObj, snapshot string) (bool, error) {
	limit, err := rollout.MaxConcurrency(cfg.MaxConcurrency, st.Size())
	if err != nil {
		return false, abort(fmt.Sprintf("stage %s: %v", st.StageName, err))
	}
	targets, failing, err := r.checkClusters(ctx, ru, st, bindings, snapshot)
	if err != nil {
		return false, err
	}
	wave := rollout.PlanWave(targets, limit)
	why, err := stageFailure(ru, st, cfg, failing, wave.Done())
	if err != nil {
		return false, err
	}
	if why != "" {
		return false, r.failStage(ctx, ru, st, why)
	}
	for _, name := range wave.Start {
		if _, ok := bindings[name]; !ok {
			return false, abort(fmt.Sprintf("cluster %s of stage %s has no binding to %s any more", name, st.StageName, ru.spec.PlacementName))
		}
	}
	// A wave of hundreds of clusters bound one after the other would take seconds, during which
	// the run sees none of its clusters finish: the bindings are written a few at a time, and
	// those written are recorded as started, in order, even if another failed.
	bound := make([]bool, len(wave.Start))
	var g errgroup.Group
	g.SetLimit(concurrentStarts)
	for k, name := range wave.Start {
		ov, err := r.pinnedOverrides(ctx, ru, st, name)
		if err != nil {
			return false, err
		}
		g.Go(func() error {
			if err := r.bind(ctx, ru, bindings[name], snapshot, ov); err != nil {
				return err
			}
			bound[k] = true
			return nil
		})
	}
	err = g.Wait()
	for k, name := range wave.Start {
		if !bound[k] {
			continue
		}
		if c := startCluster(st, name, ru.maxListed); c != nil {
			ru.setCluster(c, placementv1beta1.ClusterUpdatingConditionStarted, metav1.ConditionTrue, placementv1beta1.ClusterUpdatingStartedReason, "")
		}
		if st.StartTime == nil {
			st.StartTime = &ru.now
		}
		ru.setStage(st, placementv1beta1.StageUpdatingConditionProgressing, metav1.ConditionTrue, placementv1beta1.StageUpdatingStartedReason, "")
		ru.setCondition(placementv1beta1.StagedUpdateRunConditionProgressing, metav1.ConditionTrue, placementv1beta1.UpdateRunStartedReason, "")
	}
	return err == nil && wave.Done(), err
}

// concurrentStarts is how many bindings of a wave are written at once.
const concurrentStarts = 16

// checkClusters marks the started clusters whose binding is available with the snapshot as
// succeeded, and returns the state of every cluster not counted as succeeded, in update order,
// for the wave planner, and the started clusters that fail, "name: reason". A started cluster
// whose binding another run has taken over ends the run.
func (r *kindReconciler) checkClusters(ctx context.Context, ru *run, st *placementv1beta1.StageUpdatingStatus, bindings map[string]placementv1beta1.BindingObj,
	snapshot string) (targets []rollout.Target, failing []string, _ error) {
	targets = make([]rollout.Target, 0, len(st.Clusters)+len(st.UpdatingClusters)+len(st.NotStartedClusters))
	fails := func(name, why string) {
		if why != "" {
			failing = append(failing, name+": "+why)
		}
	}
	for j := range st.Clusters {
		c := &st.Clusters[j]
		t := rollout.Target{Name: c.ClusterName}
		switch {
		case clusterSucceeded(c):
			t.State = rollout.Updated
		case clusterStarted(c):
			t.State = rollout.Updating
			done, why, err := r.checkStarted(ctx, ru, st, c.ClusterName, func() *placementv1beta1.ClusterUpdatingStatus { return c }, bindings, snapshot)
			if err != nil {
				return nil, nil, err
			}
			fails(c.ClusterName, why)
			if done {
				ru.setCluster(c, placementv1beta1.ClusterUpdatingConditionSucceeded, metav1.ConditionTrue, placementv1beta1.ClusterUpdatingSucceededReason, "")
				t.State = rollout.Updated
			}
		}
		targets = append(targets, t)
	}
	// A bounded stage's clusters that are updating without being listed: once succeeded, they
	// are counted and no longer named.
	var updating []string
	for _, name := range st.UpdatingClusters {
		done, why, err := r.checkStarted(ctx, ru, st, name, func() *placementv1beta1.ClusterUpdatingStatus {
			c := listUpdating(st, name)
			ru.setCluster(c, placementv1beta1.ClusterUpdatingConditionStarted, metav1.ConditionTrue, placementv1beta1.ClusterUpdatingStartedReason, "")
			return c
		}, bindings, snapshot)
		if err != nil {
			return nil, nil, err
		}
		fails(name, why)
		if !done {
			updating = append(updating, name)
			targets = append(targets, rollout.Target{Name: name, State: rollout.Updating})
		}
	}
	st.UpdatingClusters = updating
	for _, name := range st.NotStartedClusters {
		targets = append(targets, rollout.Target{Name: name})
	}
	return targets, failing, nil
}

// checkStarted reports whether a started cluster's binding is available with the snapshot, and
// if not, why it fails, if it does. A binding that another run has taken over fails the cluster
// (entry gives its status entry), the stage and the run.
func (r *kindReconciler) checkStarted(ctx context.Context, ru *run, st *placementv1beta1.StageUpdatingStatus, name string,
	entry func() *placementv1beta1.ClusterUpdatingStatus, bindings map[string]placementv1beta1.BindingObj, snapshot string) (bool, string, error) {
	b, ok := bindings[name]
	inSync := func(b placementv1beta1.BindingObj, ok bool) bool {
		return isBoundTo(b, ok, snapshot) && overridesAsPinned(st, name, b)
	}
	if !inSync(b, ok) {
		// The cache may not have the binding this run patched yet while it already has the
		// run's status saying so (two watches, no order between them): only the API
		// server can tell a lagging cache from another run's write.
		live, err := r.liveBinding(ctx, b, ok)
		if err != nil {
			return false, "", err
		}
		b, ok = live, live != nil
	}
	if !inSync(b, ok) {
		msg := fmt.Sprintf("the binding of cluster %s was changed by someone else while this run was updating it (another update run on %s?)",
			name, ru.spec.PlacementName)
		if !ok {
			// An eviction deletes the binding; so does a cluster that leaves the fleet.
			msg = fmt.Sprintf("the binding of cluster %s was deleted while this run was updating it (an eviction, or the cluster left)", name)
		}
		ru.setCluster(entry(), placementv1beta1.ClusterUpdatingConditionSucceeded, metav1.ConditionFalse, placementv1beta1.ClusterUpdatingFailedReason, msg)
		ru.setStage(st, placementv1beta1.StageUpdatingConditionSucceeded, metav1.ConditionFalse, placementv1beta1.StageUpdatingFailedReason, msg)
		return false, "", abort(msg)
	}
	if available(b, snapshot) {
		return true, "", nil
	}
	return false, placementv1beta1.BindingFailure(b, snapshot), nil
}

func isBoundTo(b placementv1beta1.BindingObj, ok bool, snapshot string) bool {
	return ok && b.BindingSpec().State == placementv1beta1.BindingStateBound && b.BindingSpec().ResourceSnapshotName == snapshot
}

// liveBinding reads a binding from the API server rather than the cache; nil if there is none.
func (r *kindReconciler) liveBinding(ctx context.Context, cached placementv1beta1.BindingObj, ok bool) (placementv1beta1.BindingObj, error) {
	if !ok {
		return nil, nil // a binding missing from the cache is not created by this run
	}
	var reader client.Reader = r.client
	if r.reader != nil {
		reader = r.reader
	}
	live := r.family.NewBinding()
	if err := reader.Get(ctx, client.ObjectKeyFromObject(cached), live); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	return live, nil
}

// available: the binding controller has applied the snapshot at the binding's current
// generation and every resource is available, or, with apply type ReportDiff, has reported the
// differences (as in Kubefleet).
func available(b placementv1beta1.BindingObj, snapshot string) bool {
	c := meta.FindStatusCondition(b.BindingStatus().Conditions, placementv1beta1.BindingAvailableCondition)
	if c == nil {
		c = meta.FindStatusCondition(b.BindingStatus().Conditions, placementv1beta1.BindingDiffReportedCondition)
	}
	return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == b.GetGeneration() &&
		b.BindingStatus().ObservedResourceSnapshotName == snapshot
}

func clusterStatus(st *placementv1beta1.StageUpdatingStatus, name string) *placementv1beta1.ClusterUpdatingStatus {
	for j := range st.Clusters {
		if st.Clusters[j].ClusterName == name {
			return &st.Clusters[j]
		}
	}
	return nil
}

// bind points the binding at the run's snapshot and apply strategy, and records that the rollout
// to its cluster started.
func (r *kindReconciler) bind(ctx context.Context, ru *run, b placementv1beta1.BindingObj, snapshot string, ov override.Names) error {
	// b may be the cache's own: it is written on a copy.
	b = b.DeepCopyObject().(placementv1beta1.BindingObj)
	// The binding controller writes the binding's status all the time: a conflict is retried on
	// the binding as it is now, rather than ending the pass and the other clusters' starts with it.
	for attempt := 0; ; attempt++ {
		err := r.bindOnce(ctx, ru, b, snapshot, ov)
		if !apierrors.IsConflict(err) || attempt == 4 {
			return err
		}
		live, err := r.liveBinding(ctx, b, true)
		if err != nil || live == nil {
			return err
		}
		b = live
	}
}

func (r *kindReconciler) bindOnce(ctx context.Context, ru *run, b placementv1beta1.BindingObj, snapshot string, ov override.Names) error {
	base := b.DeepCopyObject().(client.Object)
	// A binding that failed on this very snapshot (a retried run's cluster) is tried again now,
	// and its old failure is not counted against the new attempt: clearing Applied and
	// Available wakes the binding controller.
	failedBefore := placementv1beta1.BindingFailure(b, snapshot) != ""
	spec := b.BindingSpec()
	spec.State, spec.ResourceSnapshotName = placementv1beta1.BindingStateBound, snapshot
	spec.ClusterResourceOverrideSnapshots, spec.ResourceOverrideSnapshots = ov.Cluster, ov.Namespaced
	spec.ApplyStrategy = ru.status.ApplyStrategy.DeepCopy()
	if err := r.client.Patch(ctx, b, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		return err
	}
	msg := fmt.Sprintf("Detected the new changes on the resources and started the rollout process, resourceSnapshotIndex: %s, updateRun: %s",
		ru.status.ResourceSnapshotIndexUsed, ru.GetName())
	// The lock keeps the binding controller's Applied and Available, written meanwhile, from
	// being replaced with the condition list read before.
	return patch.ChangeStatus(ctx, r.client, b, func() {
		patch.SetConditionAt(&b.BindingStatus().Conditions, ru.now, b.GetGeneration(), placementv1beta1.BindingRolloutStartedCondition,
			metav1.ConditionTrue, "RolloutStarted", msg)
		if failedBefore && b.GetGeneration() == base.GetGeneration() {
			meta.RemoveStatusCondition(&b.BindingStatus().Conditions, placementv1beta1.BindingAppliedCondition)
			meta.RemoveStatusCondition(&b.BindingStatus().Conditions, placementv1beta1.BindingAvailableCondition)
		}
	}, patch.WithOptimisticLock())
}

// afterStage runs once every cluster of the stage is updated: the stage waits for its
// after-stage tasks, all evaluated together, then succeeds.
func (r *kindReconciler) afterStage(ctx context.Context, ru *run, st *placementv1beta1.StageUpdatingStatus, cfg placementv1beta1.StageConfig) (stageResult, error) {
	ru.setStage(st, placementv1beta1.StageUpdatingConditionProgressing, metav1.ConditionFalse, placementv1beta1.StageUpdatingWaitingReason, "")
	since := meta.FindStatusCondition(st.Conditions, string(placementv1beta1.StageUpdatingConditionProgressing)).LastTransitionTime.Time
	tasks := rollout.AfterStageTasks{WaitingSince: since}
	var waits []*placementv1beta1.StageTaskStatus
	var pending []string
	for j := range st.AfterStageTaskStatus {
		task := &st.AfterStageTaskStatus[j]
		switch task.Type {
		case placementv1beta1.StageTaskTypeTimedWait:
			tasks.WaitTimes = append(tasks.WaitTimes, waitTime(cfg, j))
			waits = append(waits, task)
		case placementv1beta1.StageTaskTypeApproval:
			approved, err := r.approved(ctx, ru, st.StageName, placementv1beta1.AfterStageTaskLabelValue, task)
			if err != nil {
				return stageResult{}, err
			}
			tasks.Approvals = append(tasks.Approvals, approved)
			if !approved {
				pending = append(pending, "approval request "+task.ApprovalRequestName)
			}
		}
	}
	d := rollout.DecideAfterStageTasks(tasks, ru.now.Time)
	for j, elapsed := range d.WaitsElapsed {
		if elapsed {
			ru.setTask(waits[j], placementv1beta1.StageTaskConditionWaitTimeElapsed, placementv1beta1.AfterStageTaskWaitTimeElapsedReason)
		} else {
			pending = append(pending, "the wait until "+d.RequeueAt.UTC().Format(time.RFC3339))
		}
	}
	if !d.Done {
		r.waiting(ru, fmt.Sprintf("stage %s is updated and waits for %s", st.StageName, strings.Join(pending, " and ")))
		var requeue time.Duration
		if !d.RequeueAt.IsZero() {
			requeue = max(d.RequeueAt.Sub(ru.now.Time), time.Millisecond)
		}
		return stageResult{requeue: requeue}, nil
	}
	st.EndTime = &ru.now
	ru.setStage(st, placementv1beta1.StageUpdatingConditionSucceeded, metav1.ConditionTrue, placementv1beta1.StageUpdatingSucceededReason, "")
	ru.setCondition(placementv1beta1.StagedUpdateRunConditionProgressing, metav1.ConditionTrue, placementv1beta1.UpdateRunStartedReason, "")
	r.event(ru, corev1.EventTypeNormal, placementv1beta1.StageUpdatingSucceededReason, "stage "+st.StageName+" succeeded")
	return stageResult{done: true}, nil
}

// resumeWaits moves the start of the stage's after-stage waits, and its progress deadline, on by
// the time the run was stopped, so that the time served before the stop counts and the stop does
// not.
func resumeWaits(ru *run, st *placementv1beta1.StageUpdatingStatus) {
	if st.StoppedTime == nil {
		return
	}
	if c := meta.FindStatusCondition(st.Conditions, string(placementv1beta1.StageUpdatingConditionProgressing)); c != nil && c.Status == metav1.ConditionFalse {
		c.LastTransitionTime = metav1.NewTime(rollout.ResumeClock(c.LastTransitionTime.Time, st.StoppedTime.Time, ru.now.Time))
	}
	if dl := st.ProgressDeadlineTime; dl != nil {
		moved := metav1.NewTime(rollout.ResumeClock(dl.Time, st.StoppedTime.Time, ru.now.Time))
		st.ProgressDeadlineTime = &moved
	}
	st.StoppedTime = nil
}

// waitTime is the waitTime of the j-th after-stage task of the stage.
func waitTime(cfg placementv1beta1.StageConfig, j int) time.Duration {
	if j < len(cfg.AfterStageTasks) && cfg.AfterStageTasks[j].WaitTime != nil {
		return cfg.AfterStageTasks[j].WaitTime.Duration
	}
	return 0
}

// waiting says the run waits, with an Event when what it waits for changes.
func (r *kindReconciler) waiting(ru *run, msg string) {
	if c := meta.FindStatusCondition(ru.status.Conditions, string(placementv1beta1.StagedUpdateRunConditionProgressing)); c == nil || c.Message != msg {
		r.event(ru, corev1.EventTypeNormal, placementv1beta1.UpdateRunWaitingReason, msg)
	}
	ru.setCondition(placementv1beta1.StagedUpdateRunConditionProgressing, metav1.ConditionFalse, placementv1beta1.UpdateRunWaitingReason, msg)
}

// stopStage lets the clusters already updating finish, then reports the run stopped.
func (r *kindReconciler) stopStage(ctx context.Context, ru *run, st *placementv1beta1.StageUpdatingStatus, bindings map[string]placementv1beta1.BindingObj, snapshot string) (stageResult, error) {
	targets, _, err := r.checkClusters(ctx, ru, st, bindings, snapshot)
	if err != nil {
		return stageResult{}, err
	}
	var inFlight []string
	for _, t := range targets {
		if t.State == rollout.Updating {
			inFlight = append(inFlight, t.Name)
		}
	}
	if len(inFlight) == 0 && st.StartTime != nil && st.StoppedTime == nil {
		// The stage is under way: its waits and deadline stop counting here.
		st.StoppedTime = &ru.now
	}
	if len(inFlight) > 0 {
		names := strings.Join(inFlight, ", ")
		if st.ClusterCounts != nil {
			names = someNames(inFlight, maxNamed)
		}
		msg := "stopping: waiting for " + names + " to finish updating"
		ru.setStage(st, placementv1beta1.StageUpdatingConditionProgressing, metav1.ConditionUnknown, placementv1beta1.StageUpdatingStoppingReason, msg)
		ru.setCondition(placementv1beta1.StagedUpdateRunConditionProgressing, metav1.ConditionUnknown, placementv1beta1.UpdateRunStoppingReason, msg)
		return stageResult{requeue: r.recheck}, nil
	}
	r.stopped(ru, st)
	return stageResult{}, nil
}

func (r *kindReconciler) stopped(ru *run, st *placementv1beta1.StageUpdatingStatus) {
	const msg = "the run is stopped; set spec.state to Run to resume it"
	if st != nil {
		ru.setStage(st, placementv1beta1.StageUpdatingConditionProgressing, metav1.ConditionFalse, placementv1beta1.StageUpdatingStoppedReason, msg)
	}
	if !meta.IsStatusConditionPresentAndEqual(ru.status.Conditions, string(placementv1beta1.StagedUpdateRunConditionProgressing), metav1.ConditionFalse) ||
		meta.FindStatusCondition(ru.status.Conditions, string(placementv1beta1.StagedUpdateRunConditionProgressing)).Reason != placementv1beta1.UpdateRunStoppedReason {
		r.event(ru, corev1.EventTypeNormal, placementv1beta1.UpdateRunStoppedReason, msg)
	}
	ru.setCondition(placementv1beta1.StagedUpdateRunConditionProgressing, metav1.ConditionFalse, placementv1beta1.UpdateRunStoppedReason, msg)
}

// executeDeletion removes the bindings of clusters the placement no longer picks; their
// finalizer takes the resources off the clusters. It reports whether they are all gone.
func (r *kindReconciler) executeDeletion(ctx context.Context, ru *run, bindings map[string]placementv1beta1.BindingObj) (bool, error) {
	st := ru.status.DeletionStageStatus
	if st.StartTime == nil {
		st.StartTime = &ru.now
	}
	ru.setStage(st, placementv1beta1.StageUpdatingConditionProgressing, metav1.ConditionTrue, placementv1beta1.StageUpdatingStartedReason, "")
	// Every cluster starts at once; a bounded stage lists as many as it may.
	for _, name := range slices.Clone(st.NotStartedClusters) {
		startCluster(st, name, ru.maxListed)
	}
	remaining := 0
	// gone: the cluster's binding is deleted (or the cluster was picked again since the run
	// started, and keeps its binding); otherwise its deletion is asked for.
	gone := func(name string) (bool, error) {
		b, ok := bindings[name]
		if !ok || b.BindingSpec().State != placementv1beta1.BindingStateUnscheduled {
			return true, nil
		}
		remaining++
		if !b.GetDeletionTimestamp().IsZero() {
			return false, nil
		}
		if err := r.client.Delete(ctx, b); err != nil && !apierrors.IsNotFound(err) {
			return false, err
		}
		return false, nil
	}
	for j := range st.Clusters {
		c := &st.Clusters[j]
		ru.setCluster(c, placementv1beta1.ClusterUpdatingConditionStarted, metav1.ConditionTrue, placementv1beta1.ClusterUpdatingStartedReason, "")
		done, err := gone(c.ClusterName)
		if err != nil {
			return false, err
		}
		if done {
			ru.setCluster(c, placementv1beta1.ClusterUpdatingConditionSucceeded, metav1.ConditionTrue, placementv1beta1.ClusterUpdatingSucceededReason, "")
		}
	}
	var deleting []string
	for _, name := range st.UpdatingClusters {
		done, err := gone(name)
		if err != nil {
			return false, err
		}
		if !done {
			deleting = append(deleting, name)
		}
	}
	st.UpdatingClusters = deleting
	if remaining > 0 {
		return false, nil
	}
	st.EndTime = &ru.now
	ru.setStage(st, placementv1beta1.StageUpdatingConditionSucceeded, metav1.ConditionTrue, placementv1beta1.StageUpdatingSucceededReason, "")
	return true, nil
}
