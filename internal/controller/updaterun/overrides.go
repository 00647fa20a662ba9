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
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/override"
	"github.com/stagecoach-dev/stagecoach/internal/render"
	"github.com/stagecoach-dev/stagecoach/internal/targets"
)

// A run pins, at initialization, the override snapshots each of its clusters gets, in the
// cluster's status, just as it pins the resource snapshot: an override edited during the run
// reaches only a later run. An ordinary run takes the latest applicable snapshots, whatever
// resource snapshot it names, as Kubefleet does. A rollback run (started by onFailure: Rollback,
// or carrying RestoreOverridesAnnotation as `stagecoach rollback placement` writes it) gives each
// cluster the snapshots the most recent earlier run of that resource index gave it, when that
// run still lists the cluster and those snapshots still exist.

// recordOverrides pins the override snapshots of every cluster the stages list.
func (r *kindReconciler) recordOverrides(ctx context.Context, ru *run, index int) error {
	var clusters []string
	for i := range ru.status.StagesStatus {
		for _, c := range ru.status.StagesStatus[i].Clusters {
			clusters = append(clusters, c.ClusterName)
		}
	}
	latest, err := r.latestOverrides(ctx, ru, index, clusters)
	if err != nil {
		return err
	}
	var earlier map[string]override.Names
	if restoresOverrides(ru) {
		if earlier, err = r.earlierOverrides(ctx, ru, index); err != nil {
			return err
		}
	}
	for i := range ru.status.StagesStatus {
		for j := range ru.status.StagesStatus[i].Clusters {
			c := &ru.status.StagesStatus[i].Clusters[j]
			n, ok := earlier[c.ClusterName]
			if !ok {
				n = latest[c.ClusterName]
			}
			c.ClusterResourceOverrideSnapshots, c.ResourceOverrideSnapshots = n.Cluster, n.Namespaced
		}
	}
	return nil
}

// latestOverrides names the latest override snapshots that concern the resource snapshot
// index, per cluster.
func (r *kindReconciler) latestOverrides(ctx context.Context, ru *run, index int, clusters []string) (map[string]override.Names, error) {
	return r.overridesAt(ctx, ru, nil, index, clusters)
}

// overridesAt is latestOverrides with the snapshots that were latest at a time (nil: now).
func (r *kindReconciler) overridesAt(ctx context.Context, ru *run, at *time.Time, index int, clusters []string) (map[string]override.Names, error) {
	s := ru.inputs
	objs := func() ([]*unstructured.Unstructured, error) {
		objs, err := render.SnapshotObjects(ctx, s, s.family, s.namespace, ru.spec.PlacementName,
			placementv1beta1.ResourceSnapshotName(ru.spec.PlacementName, index))
		var in *render.InputError
		switch {
		case errors.As(err, &in) && in.Reason == placementv1beta1.WorkApplyInProcessReason:
			return nil, &waitError{"WaitingForCache", in.Message}
		case errors.As(err, &in):
			return nil, abort(in.Message)
		}
		return objs, err
	}
	return targets.ClusterOverridesAt(ctx, s, at, s.namespace, ru.spec.PlacementName, objs, clusters)
}

// restoresOverrides reports whether the run puts clusters back on their earlier overrides.
func restoresOverrides(ru *run) bool {
	a := ru.GetAnnotations()
	return a[placementv1beta1.RollbackOfAnnotation] != "" || a[placementv1beta1.RestoreOverridesAnnotation] == "true"
}

// earlierOverrides names, per cluster, the override snapshots the most recent earlier run of the
// placement that rolled the resource index out gave the cluster, for the clusters that run
// lists as started and whose snapshots all still exist.
func (r *kindReconciler) earlierOverrides(ctx context.Context, ru *run, index int) (map[string]override.Names, error) {
	list := r.family.NewUpdateRunList()
	if err := ru.inputs.List(ctx, list, client.InNamespace(ru.inputs.namespace)); err != nil {
		return nil, err
	}
	var runs []placementv1beta1.UpdateRunObj
	for _, o := range list.UpdateRunObjs() {
		if o.GetName() != ru.GetName() && o.UpdateRunSpec().PlacementName == ru.spec.PlacementName &&
			o.UpdateRunStatus().ResourceSnapshotIndexUsed == strconv.Itoa(index) &&
			!o.GetCreationTimestamp().After(ru.GetCreationTimestamp().Time) {
			runs = append(runs, o)
		}
	}
	slices.SortFunc(runs, func(a, b placementv1beta1.UpdateRunObj) int {
		return cmp.Or(b.GetCreationTimestamp().Compare(a.GetCreationTimestamp().Time), cmp.Compare(b.GetName(), a.GetName()))
	})
	out := map[string]override.Names{}
	for _, o := range runs {
		for i := range o.UpdateRunStatus().StagesStatus {
			for _, c := range o.UpdateRunStatus().StagesStatus[i].Clusters {
				if _, seen := out[c.ClusterName]; seen || !clusterStarted(&c) {
					continue
				}
				out[c.ClusterName] = override.Names{Cluster: c.ClusterResourceOverrideSnapshots, Namespaced: c.ResourceOverrideSnapshots}
			}
		}
	}
	for name, n := range out {
		ok, err := overridesExist(ctx, ru.inputs, n)
		if err != nil {
			return nil, err
		}
		if !ok {
			delete(out, name) // beyond the history limit: the latest ones then
		}
	}
	return out, nil
}

func overridesExist(ctx context.Context, c client.Reader, n override.Names) (bool, error) {
	for _, name := range n.Cluster {
		if err := c.Get(ctx, client.ObjectKey{Name: name}, &placementv1beta1.ClusterResourceOverrideSnapshot{}); err != nil {
			return false, client.IgnoreNotFound(err)
		}
	}
	for _, nn := range n.Namespaced {
		if err := c.Get(ctx, client.ObjectKey{Namespace: nn.Namespace, Name: nn.Name}, &placementv1beta1.ResourceOverrideSnapshot{}); err != nil {
			return false, client.IgnoreNotFound(err)
		}
	}
	return true, nil
}

// pinnedOverrides names the override snapshots a cluster of the stage starts with: those its
// status pinned, or, for a cluster a stage too large to list every cluster did not list at
// initialization, those that were latest when the run was initialized (to the second).
func (r *kindReconciler) pinnedOverrides(ctx context.Context, ru *run, st *placementv1beta1.StageUpdatingStatus, name string) (override.Names, error) {
	if c := clusterStatus(st, name); c != nil {
		return override.Names{Cluster: c.ClusterResourceOverrideSnapshots, Namespaced: c.ResourceOverrideSnapshots}, nil
	}
	index, _ := strconv.Atoi(ru.status.ResourceSnapshotIndexUsed)
	var at *time.Time
	if c := meta.FindStatusCondition(ru.status.Conditions, string(placementv1beta1.StagedUpdateRunConditionInitialized)); c != nil {
		at = &c.LastTransitionTime.Time
	}
	pinned, err := r.overridesAt(ctx, ru, at, index, []string{name})
	return pinned[name], err
}

// overridesAsPinned reports whether a started cluster's binding still names the override
// snapshots the run pinned for it; another run changing them has taken the cluster over. A
// cluster the stage does not list has nothing pinned to compare.
func overridesAsPinned(st *placementv1beta1.StageUpdatingStatus, name string, b placementv1beta1.BindingObj) bool {
	c := clusterStatus(st, name)
	if c == nil {
		return true
	}
	pinned := override.Names{Cluster: c.ClusterResourceOverrideSnapshots, Namespaced: c.ResourceOverrideSnapshots}
	return pinned.Equal(b.BindingSpec().ClusterResourceOverrideSnapshots, b.BindingSpec().ResourceOverrideSnapshots)
}
