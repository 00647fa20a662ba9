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

package clusterprofile

import (
	"context"

	"github.com/stagecoach-dev/stagecoach/internal/targets"
)

// clusterKey is namespace/name of a SveltosCluster, as the profile's clusters are keyed.
type clusterKey = targets.ClusterKey

// matchPhase finds the clusters the profile targets and lists them in the status. The lists are
// computed whole and cut once the pass is over (summarise); a list the pass leaves as it was
// keeps its count.
func (r *Reconciler) matchPhase(ctx context.Context, ps *pass) error {
	matching, unavailable, err := targets.ProfileClusters(ctx, r.client, r.informers, ps.profile)
	if err != nil {
		return err
	}
	ps.matching, ps.unavailable = matching, unavailable
	counts := listedCounts(ps.status)
	counts.Matching = int32(len(matching))
	ps.counts = &counts
	ps.status.MatchingClusterRefs = nil
	for _, k := range matching {
		ps.status.MatchingClusterRefs = append(ps.status.MatchingClusterRefs, k.Ref())
	}
	return nil
}
