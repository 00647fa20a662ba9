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

package operate

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/view"
)

// RetryPromotion asks the controller to deploy the version the ClusterPromotion name rolls out
// again to the failed clusters of the stage it is at, or to the one cluster ("namespace/name")
// given, and to clear the stage's failure if it failed. It sets the stagecoach.dev/retry
// annotation to a new token (with the cluster); the controller acts on each token once.
func RetryPromotion(ctx context.Context, c client.Client, name, cluster string) (string, error) {
	p, err := Promotion(ctx, c, name)
	if err != nil {
		return "", err
	}
	failed, err := RetryableClusters(ctx, c, p)
	if err != nil {
		return "", err
	}
	stage := p.Status.CurrentStageName
	if cluster != "" {
		if _, _, err := ClusterName(cluster); err != nil {
			return "", err
		}
		if !slices.Contains(failed, cluster) {
			return "", fmt.Errorf("cluster %s has not failed in stage %s of ClusterPromotion %s: there is nothing to retry there%s",
				cluster, stage, p.Name, failedWords(failed))
		}
		failed = []string{cluster}
	}
	if token, _ := configv1beta1.ParseRetry(p.Annotations[configv1beta1.RetryAnnotation]); token != "" && (p.Status.Retry == nil || p.Status.Retry.Token != token) {
		return fmt.Sprintf("ClusterPromotion %s already has a retry the controller has not acted on yet", p.Name), nil
	}
	if err := retryUnderWay(ctx, c, p); err != nil {
		return "", err
	}
	value := configv1beta1.FormatRetry(strconv.FormatInt(time.Now().UnixNano(), 36), cluster)
	patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, configv1beta1.RetryAnnotation, value)
	if err := c.Patch(ctx, p, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return "", err
	}
	msg := fmt.Sprintf("retrying stage %s of ClusterPromotion %s on version %s", stage, p.Name, view.Version(p.Status.ProfileSpecHash))
	if len(failed) > 0 {
		msg += ": " + strings.Join(failed, ", ")
	}
	if p.FailedVersion() != nil {
		msg += "; its stage failure is cleared, and the failure budget counts again"
	}
	return msg, nil
}

// retryUnderWay refuses a retry while a summary of the stage has not taken the last one the
// controller acted on: the stage's ClusterProfile carries one retry at a time, so a new one would
// replace it there before that summary saw it, and its cluster would not be retried.
func retryUnderWay(ctx context.Context, c client.Reader, p *configv1beta1.ClusterPromotion) error {
	rt := p.Status.Retry
	if rt == nil || rt.Stage != p.Status.CurrentStageName || !slices.Equal(rt.ProfileSpecHash, p.Status.ProfileSpecHash) {
		return nil
	}
	var list configv1beta1.ClusterSummaryList
	if err := c.List(ctx, &list, client.MatchingLabels{configv1beta1.ClusterProfileNameLabel: p.StageProfileName(rt.Stage)}); err != nil {
		return err
	}
	value := configv1beta1.FormatRetry(rt.Token, rt.Cluster)
	for i := range list.Items {
		if cs := &list.Items[i]; cs.RetryNotTaken(value) {
			what := rt.Cluster
			if what == "" {
				what = "the failed clusters of stage " + rt.Stage
			}
			return fmt.Errorf("a retry of %s is still under way (ClusterSummary %s/%s has not taken it); wait until it is taken, then retry again",
				what, cs.Namespace, cs.Name)
		}
	}
	return nil
}

// RetryableClusters lists the clusters ("namespace/name") whose deployment or health checks fail
// in the stage the promotion is at; an error says why there is nothing to retry.
func RetryableClusters(ctx context.Context, c client.Reader, p *configv1beta1.ClusterPromotion) ([]string, error) {
	f := p.FailedVersion()
	switch {
	case len(p.Status.ProfileSpecHash) == 0 || p.Status.CurrentStageName == "":
		return nil, fmt.Errorf("ClusterPromotion %s has not started rolling anything out: there is nothing to retry", p.Name)
	case f != nil && (f.Requested || p.Status.Rollback != nil):
		return nil, fmt.Errorf("ClusterPromotion %s rolled version %s back (or is rolling it back): there is nothing to retry on it; a new version starts a new rollout",
			p.Name, view.Version(p.Status.ProfileSpecHash))
	}
	var list configv1beta1.ClusterSummaryList
	if err := c.List(ctx, &list, client.MatchingLabels{configv1beta1.ClusterProfileNameLabel: p.StageProfileName(p.Status.CurrentStageName)}); err != nil {
		return nil, err
	}
	var failed []string
	for i := range list.Items {
		cs := &list.Items[i]
		if cs.Failure() != "" {
			failed = append(failed, cs.Spec.ClusterNamespace+"/"+cs.Spec.ClusterName)
		}
	}
	slices.Sort(failed)
	if len(failed) == 0 && f == nil {
		return nil, fmt.Errorf("stage %s of ClusterPromotion %s has no failed cluster and has not failed: there is nothing to retry", p.Status.CurrentStageName, p.Name)
	}
	return failed, nil
}

func failedWords(failed []string) string {
	if len(failed) == 0 {
		return ""
	}
	return "; its failed clusters are " + strings.Join(failed, ", ")
}

// RetryRun creates an update run that resumes the failed run namespace/name (a
// ClusterStagedUpdateRun when namespace is empty) from the first stage that did not succeed,
// with the same resource snapshot, strategy copy and override snapshots: Kubefleet forbids
// changing a run's spec, so a retry is a new run, marked stagecoach.dev/retry-of (and
// stagecoach.dev/rollback-of when it retries a rollback run). It refuses when a run of the
// placement was created since: the retry would put the placement back on an older snapshot. It
// returns what it did in words, and the run.
func RetryRun(ctx context.Context, c client.Client, namespace, name string) (string, placementv1beta1.UpdateRunObj, error) {
	old, err := Run(ctx, c, namespace, name)
	if err != nil {
		return "", nil, err
	}
	stage, err := RetryableStage(old)
	if err != nil {
		return "", nil, err
	}
	family := placementv1beta1.FamilyOf(old)
	spec := old.UpdateRunSpec()
	index := old.UpdateRunStatus().ResourceSnapshotIndexUsed
	other, retried, newer, err := otherRuns(ctx, c, old)
	switch {
	case err != nil:
		return "", nil, err
	case retried != "":
		return "", nil, fmt.Errorf("%s %s was retried already, by %s: retry that one if it failed", family.UpdateRunKind(), name, retried)
	case newer != nil:
		return "", nil, fmt.Errorf("%s %s was created after %s on %s %s (resource snapshot index %s): retrying %s would put the placement back on resource snapshot index %s; create a new run instead",
			family.UpdateRunKind(), newer.GetName(), name, family.PlacementKind(), spec.PlacementName, runIndex(newer), name, index)
	case other != "":
		return "", nil, fmt.Errorf("%s %s is under way on %s %s: retrying %s alongside it would take its clusters from it; stop it or wait for it",
			family.UpdateRunKind(), other, family.PlacementKind(), spec.PlacementName, name)
	}
	run := family.NewUpdateRun()
	run.SetGenerateName(name[:min(len(name), 30)] + "-retry-")
	run.SetNamespace(namespace)
	marks := map[string]string{placementv1beta1.RetryOfAnnotation: name}
	// A retried rollback run is still one: never rolled back in turn, nor held by deny windows,
	// and its success told as rollback.finished.
	if of := old.GetAnnotations()[placementv1beta1.RollbackOfAnnotation]; of != "" {
		marks[placementv1beta1.RollbackOfAnnotation] = of
	}
	run.SetAnnotations(marks)
	*run.UpdateRunSpec() = placementv1beta1.UpdateRunSpec{PlacementName: spec.PlacementName, ResourceSnapshotIndex: index,
		StagedUpdateStrategyName: spec.StagedUpdateStrategyName, State: placementv1beta1.StateRun}
	if err := c.Create(ctx, run); err != nil {
		return "", nil, err
	}
	return fmt.Sprintf("created %s %s: it resumes %s from stage %s with resource snapshot index %s and the same override snapshots",
		family.UpdateRunKind(), run.GetName(), name, stage, index), run, nil
}

// RetryableStage is the stage a retry of the run starts at: its first stage that did not
// succeed; an error says why the run cannot be retried.
func RetryableStage(run placementv1beta1.UpdateRunObj) (string, error) {
	kind := placementv1beta1.FamilyOf(run).UpdateRunKind()
	st := run.UpdateRunStatus()
	state, msg := view.RunState(run)
	init := meta.FindStatusCondition(st.Conditions, string(placementv1beta1.StagedUpdateRunConditionInitialized))
	switch {
	case state != view.Failed:
		return "", fmt.Errorf("%s %s has not failed (%s): only a failed run can be retried", kind, run.GetName(), state)
	case init == nil || init.Status != "True":
		return "", fmt.Errorf("%s %s failed before it started (%s): fix that and create a new run; there is nothing to resume", kind, run.GetName(), msg)
	case st.RollbackRunName != "":
		return "", fmt.Errorf("%s %s was rolled back by %s: retrying it would undo that; create a new run instead", kind, run.GetName(), st.RollbackRunName)
	}
	for _, s := range st.StagesStatus {
		if !meta.IsStatusConditionTrue(s.Conditions, string(placementv1beta1.StageUpdatingConditionSucceeded)) {
			return s.StageName, nil
		}
	}
	return placementv1beta1.UpdateRunDeleteStageName, nil
}

// otherRuns names a run of old's placement that has not finished, a run that retries old, and
// returns a run of the placement created since old (at the same second or later: the API server
// stamps creation to the second), if any: retrying old would put the placement back on old's
// resource snapshot, below what that run rolled out.
func otherRuns(ctx context.Context, c client.Reader, old placementv1beta1.UpdateRunObj) (unfinished, retry string, newer placementv1beta1.UpdateRunObj, _ error) {
	list := placementv1beta1.FamilyOf(old).NewUpdateRunList()
	if err := c.List(ctx, list, client.InNamespace(old.GetNamespace())); err != nil {
		return "", "", nil, err
	}
	created := old.GetCreationTimestamp()
	for _, r := range list.UpdateRunObjs() {
		if r.UpdateRunSpec().PlacementName != old.UpdateRunSpec().PlacementName || r.GetName() == old.GetName() {
			continue
		}
		if r.GetAnnotations()[placementv1beta1.RetryOfAnnotation] == old.GetName() {
			retry = r.GetName()
		}
		if ts := r.GetCreationTimestamp(); !ts.Before(&created) && (newer == nil || ts.After(newer.GetCreationTimestamp().Time)) {
			newer = r
		}
		if state, _ := view.RunState(r); !state.Final() {
			unfinished = r.GetName()
		}
	}
	return unfinished, retry, newer, nil
}

// runIndex is the resource snapshot index a run rolls out: the one it used, or else the one it
// names ("" for the latest).
func runIndex(r placementv1beta1.UpdateRunObj) string {
	if i := r.UpdateRunStatus().ResourceSnapshotIndexUsed; i != "" {
		return i
	}
	if i := r.UpdateRunSpec().ResourceSnapshotIndex; i != "" {
		return i
	}
	return "latest"
}
