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
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/render"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
	"github.com/stagecoach-dev/stagecoach/internal/targets"
)

// promotion plans each stage as the ClusterProfile the promotion would give it.
func (p *Planner) promotion(ctx context.Context, pr *configv1beta1.ClusterPromotion) (*Plan, error) {
	out := &Plan{Kind: configv1beta1.ClusterPromotionKind}
	for i := range pr.Spec.Stages {
		stage := &pr.Spec.Stages[i]
		profile := &configv1beta1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Name: pr.StageProfileName(stage.Name)}}
		profile.Spec = pr.Spec.ProfileSpec.ToSpec(stage.ClusterSelector)
		st, err := p.profileStage(ctx, stage.Name, profile)
		if err != nil {
			return nil, fmt.Errorf("stage %s: %w", stage.Name, err)
		}
		out.Stages = append(out.Stages, st)
	}
	return out, nil
}

func (p *Planner) profile(ctx context.Context, profile configv1beta1.ProfileObj) (*Plan, error) {
	st, err := p.profileStage(ctx, profile.GetName(), profile)
	if err != nil {
		return nil, err
	}
	return &Plan{Kind: configv1beta1.ProfileFamilyOf(profile).Kind(), Stages: []Stage{st}}, nil
}

// profileStage plans the profile's rollout: its matching clusters in the order its controller
// visits them, maxUpdate at a time, and each one's dry run of the profile's summary (a
// Profile's with its references scoped to its namespace, as its controller writes it).
func (p *Planner) profileStage(ctx context.Context, name string, profile configv1beta1.ProfileObj) (Stage, error) {
	st := Stage{Name: name}
	family, spec := configv1beta1.ProfileFamilyOf(profile), configv1beta1.DeployedSpec(profile)
	refs, fleetUnavailable, err := targets.MatchingClusters(ctx, p.Client, nil, profile)
	if err != nil {
		return st, err
	}
	limit, err := rollout.MaxUpdate(spec.MaxUpdate, len(refs))
	if err != nil {
		return st, fmt.Errorf("spec.maxUpdate: %w", err)
	}
	var ready []string
	for _, r := range refs {
		key := r.Namespace + "/" + r.Name
		if why, ok := fleetUnavailable[key]; ok {
			if st.Unavailable == nil {
				st.Unavailable = map[string]string{}
			}
			st.Unavailable[key] = why
			continue
		}
		ready = append(ready, key)
	}
	st.Waves = Waves(ready, limit)
	st.Changes = p.changes(ctx, ready, func(ctx context.Context, cluster string) (Change, error) {
		ns, n, _ := strings.Cut(cluster, "/")
		remote, err := p.Clusters.Get(ctx, fleet.ClusterRef{Kind: fleet.KindSveltosCluster, Namespace: ns, Name: n})
		if err != nil {
			return Change{}, err
		}
		cs := &configv1beta1.ClusterSummary{
			ObjectMeta: metav1.ObjectMeta{Name: family.SummaryName(profile.GetName(), n), Namespace: ns,
				Labels: map[string]string{family.NameLabel(): profile.GetName()}},
			Spec: configv1beta1.ClusterSummarySpec{
				ClusterNamespace: ns, ClusterName: n, ClusterType: libv1beta1.ClusterTypeSveltos, ClusterProfileSpec: *spec,
			},
		}
		pv, err := render.DryRunSummary(ctx, p.Client, p.Helm, remote, cs)
		return summaryChange(pv), err
	})
	return st, nil
}
