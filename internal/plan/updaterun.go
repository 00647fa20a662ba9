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

package plan

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/render"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
	"github.com/stagecoach-dev/stagecoach/internal/targets"
)

// updateRun plans a staged update run as it would freeze its stages if it started now: the
// placement's picked clusters in the strategy's stages, maxConcurrency at a time, each with a
// dry run of the snapshot the run names (or the latest); then the deletion stage.
func (p *Planner) updateRun(ctx context.Context, family placementv1beta1.Family, run placementv1beta1.UpdateRunObj) (*Plan, error) {
	spec, ns := run.UpdateRunSpec(), run.GetNamespace()
	out := &Plan{Kind: family.UpdateRunKind()}
	placement := family.NewPlacement()
	if err := p.Client.Get(ctx, family.Key(ns, spec.PlacementName), placement); err != nil {
		return nil, p.readError(err, family.Describe(family.PlacementKind(), ns, spec.PlacementName))
	}
	if t := placement.PlacementSpec().Strategy.Type; t != placementv1beta1.ExternalRolloutStrategyType {
		return nil, fmt.Errorf("%s does not have rollout strategy type External: staged update runs drive only those",
			family.Describe(family.PlacementKind(), ns, spec.PlacementName))
	}
	strategy := family.NewUpdateStrategy()
	if err := p.Client.Get(ctx, family.Key(ns, spec.StagedUpdateStrategyName), strategy); err != nil {
		return nil, p.readError(err, family.Describe(family.UpdateStrategyKind(), ns, spec.StagedUpdateStrategyName))
	}
	snapshot, err := p.snapshot(ctx, family, ns, spec)
	if err != nil {
		return nil, err
	}
	members, unscheduled, err := targets.PlacementClusters(ctx, p.Client, nil, family, ns, spec.PlacementName)
	if err != nil {
		return nil, err
	}
	stages := strategy.UpdateStrategySpec().Stages
	plans, err := rollout.PlanStages(stages, members)
	if err != nil {
		return nil, err
	}
	apply := placementv1beta1.DefaultedApplyStrategy(placement.PlacementSpec().Strategy.ApplyStrategy)
	dryRun := func(ctx context.Context, cluster string) (Change, error) {
		remote, err := p.Clusters.Get(ctx, fleet.ClusterRef{Kind: fleet.KindMemberCluster, Name: cluster})
		if err != nil {
			return Change{}, err
		}
		diffs, err := render.DryRunBinding(ctx, p.Client, family, remote, ns, spec.PlacementName, snapshot, apply)
		return objectsChange(diffs), err
	}
	for i, sp := range plans {
		limit, err := rollout.MaxConcurrency(stages[i].MaxConcurrency, len(sp.Clusters))
		if err != nil {
			return nil, fmt.Errorf("stage %s: %w", sp.Name, err)
		}
		out.Stages = append(out.Stages, Stage{Name: sp.Name, Waves: Waves(sp.Clusters, limit), Changes: p.changes(ctx, sp.Clusters, dryRun)})
	}
	if len(unscheduled) > 0 {
		st := Stage{Name: placementv1beta1.UpdateRunDeleteStageName, Waves: Waves(unscheduled, 0), Changes: map[string]Change{}}
		for _, c := range unscheduled {
			st.Changes[c] = Change{Summary: "the placement's resources are removed"}
		}
		out.Stages = append(out.Stages, st)
	}
	return out, nil
}

// snapshot names the first snapshot of the group the run would roll out.
func (p *Planner) snapshot(ctx context.Context, family placementv1beta1.Family, ns string, spec *placementv1beta1.UpdateRunSpec) (string, error) {
	placementName := family.Describe(family.PlacementKind(), ns, spec.PlacementName)
	indices, err := targets.SnapshotIndices(ctx, p.Client, family, ns, spec.PlacementName)
	if err != nil {
		return "", err
	}
	if len(indices) == 0 {
		return "", fmt.Errorf("%s has no resource snapshot yet", placementName)
	}
	index := indices[len(indices)-1]
	if spec.ResourceSnapshotIndex != "" {
		i, err := strconv.Atoi(spec.ResourceSnapshotIndex)
		if err != nil || !slices.Contains(indices, i) {
			return "", fmt.Errorf("%s has no resource snapshot with index %q", placementName, spec.ResourceSnapshotIndex)
		}
		index = i
	}
	return placementv1beta1.ResourceSnapshotName(spec.PlacementName, index), nil
}

func (p *Planner) readError(err error, what string) error {
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("%s not found", what)
	}
	return fmt.Errorf("reading %s: %w", what, err)
}
