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

package clusterpromotion

import (
	"context"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
)

// catchUpPhase lists, in the status of each stage the version has passed, the clusters that do
// not run it yet: paused, or catching up. Each stage's ClusterProfile keeps that stage's version,
// so a cluster that comes back, is resumed or registers late gets it from there; none of them
// counts against the stage, which is not looked at again.
func (r *Reconciler) catchUpPhase(ctx context.Context, ps *pass) error {
	if ps.state.clusters != nil {
		noteClusters(ps.st, ps.state, ps.completed)
	}
	for _, stage := range ps.p.Spec.Stages[:ps.idx] {
		st := findStageStatus(ps.p, stage.Name)
		if st == nil {
			continue
		}
		profile := &configv1beta1.ClusterProfile{}
		err := r.client.Get(ctx, client.ObjectKey{Name: ps.p.StageProfileName(stage.Name)}, profile)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		state, err := r.provisioned(ctx, profile)
		if err != nil {
			return err
		}
		if state.clusters != nil {
			noteClusters(st, state, true)
		}
	}
	return nil
}

// noteClusters writes the stage's paused clusters and those catching up to its status: the
// unreachable ones the stage skipped and, once the stage has passed, every cluster that does not
// run its version yet, unless paused.
func noteClusters(st *configv1beta1.StageStatus, state stageState, passed bool) {
	catching := state.skipped
	if passed {
		catching = slices.DeleteFunc(slices.Clone(state.behind), func(c string) bool { return slices.Contains(state.paused, c) })
	}
	st.PausedClusters = listed(state.paused)
	st.CatchingUpClusters = listed(catching)
}

// listed sorts names and keeps the first few.
func listed(names []string) []string {
	if len(names) == 0 {
		return nil
	}
	out := slices.Sorted(slices.Values(names))
	return out[:min(len(out), configv1beta1.MaxListedStageClusters)]
}
