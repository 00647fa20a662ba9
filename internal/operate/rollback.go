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
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/targets"
	"github.com/stagecoach-dev/stagecoach/internal/view"
)

// RollbackPromotion asks the controller to roll the version the ClusterPromotion name is rolling
// out back to status.lastKnownGood, as onFailure: Rollback does when a stage fails: the stages
// that received the version go back in reverse order, and the promotion then stops until a new
// version starts. It sets the stagecoach.dev/rollback annotation to the version's hash.
func RollbackPromotion(ctx context.Context, c client.Client, name string) (string, error) {
	p, err := Promotion(ctx, c, name)
	if err != nil {
		return "", err
	}
	current := p.Status.ProfileSpecHash
	rolling, err := CanRollBack(p)
	if err != nil {
		return "", err
	}
	if rolling {
		return fmt.Sprintf("ClusterPromotion %s is already rolling back version %s", p.Name, view.Version(current)), nil
	}
	patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, configv1beta1.RollbackAnnotation, hex.EncodeToString(current))
	if err := c.Patch(ctx, p, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return "", err
	}
	msg := fmt.Sprintf("rolling back ClusterPromotion %s from version %s to %s", p.Name, view.Version(current), view.Version(p.Status.LastKnownGood.ProfileSpecHash))
	if p.Spec.Suspend {
		msg += " (once it is resumed: it is suspended)"
	}
	return msg, nil
}

// CanRollBack says why the version the promotion rolls out cannot be rolled back to its last
// known good version, or, with rolling, that it is being rolled back already.
func CanRollBack(p *configv1beta1.ClusterPromotion) (rolling bool, err error) {
	current, lkg := p.Status.ProfileSpecHash, p.Status.LastKnownGood
	switch {
	case len(current) == 0:
		return false, fmt.Errorf("ClusterPromotion %s has not started rolling anything out", p.Name)
	case lkg == nil:
		return false, fmt.Errorf("ClusterPromotion %s has no last known good version: no version has gone through every stage yet", p.Name)
	case slices.Equal(lkg.ProfileSpecHash, current):
		return false, fmt.Errorf("ClusterPromotion %s runs its last known good version %s: there is nothing to roll back", p.Name, view.Version(current))
	}
	return p.Status.Rollback != nil && p.Status.Failure != nil && slices.Equal(p.Status.Failure.ProfileSpecHash, current), nil
}

// RollbackPlacement creates an update run that puts the placement namespace/placement (a
// ClusterResourcePlacement when namespace is empty) back on its resource snapshot index, stage
// by stage, with strategy, or else the strategy of the placement's latest run. It returns what
// it did in words, and the run.
func RollbackPlacement(ctx context.Context, c client.Client, namespace, placement string, index int, strategy string) (string, placementv1beta1.UpdateRunObj, error) {
	family := view.RunFamily(namespace)
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: placement}, family.NewPlacement()); err != nil {
		return "", nil, view.NotFound(err, family.PlacementKind(), namespace, placement)
	}
	indices, err := targets.SnapshotIndices(ctx, c, family, namespace, placement)
	if err != nil {
		return "", nil, err
	}
	if !slices.Contains(indices, index) {
		have := make([]string, len(indices))
		for i, n := range indices {
			have[i] = strconv.Itoa(n)
		}
		if len(have) == 0 {
			have = []string{"none"}
		}
		return "", nil, fmt.Errorf("%s %s has no resource snapshot index %d; it has %s", family.PlacementKind(), placement, index, strings.Join(have, ", "))
	}
	if strategy == "" {
		if strategy, err = latestStrategy(ctx, c, family, namespace, placement); err != nil {
			return "", nil, err
		}
	}
	run := family.NewUpdateRun()
	// Run names end up in label values (63 characters at most) with a stage's name.
	run.SetGenerateName(placement[:min(len(placement), 30)] + "-rollback-")
	run.SetNamespace(namespace)
	// Back to the overrides the clusters ran with that index, not the latest ones.
	run.SetAnnotations(map[string]string{placementv1beta1.RestoreOverridesAnnotation: "true"})
	*run.UpdateRunSpec() = placementv1beta1.UpdateRunSpec{PlacementName: placement, ResourceSnapshotIndex: strconv.Itoa(index),
		StagedUpdateStrategyName: strategy, State: placementv1beta1.StateRun}
	if err := c.Create(ctx, run); err != nil {
		return "", nil, err
	}
	return fmt.Sprintf("created %s %s: %s %s back to resource snapshot index %d with strategy %s",
		family.UpdateRunKind(), run.GetName(), family.PlacementKind(), placement, index, strategy), run, nil
}

// latestStrategy is the strategy of the placement's most recent update run.
func latestStrategy(ctx context.Context, c client.Reader, family placementv1beta1.Family, namespace, placement string) (string, error) {
	list := family.NewUpdateRunList()
	if err := c.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return "", err
	}
	var latest placementv1beta1.UpdateRunObj
	for _, r := range list.UpdateRunObjs() {
		if r.UpdateRunSpec().PlacementName == placement && (latest == nil || r.GetCreationTimestamp().After(latest.GetCreationTimestamp().Time)) {
			latest = r
		}
	}
	if latest == nil {
		return "", fmt.Errorf("no update run of %s %s names a strategy: say which with --strategy", family.PlacementKind(), placement)
	}
	return latest.UpdateRunSpec().StagedUpdateStrategyName, nil
}
