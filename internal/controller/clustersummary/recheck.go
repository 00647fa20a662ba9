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

package clustersummary

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/inplace"
)

// DefaultMaxRecheckRate is how many passing health checks of promotion stages are run again
// per second, at most, by default.
const DefaultMaxRecheckRate = 20

// watchedTTL is how long a count of the summaries whose health is watched is used before it is
// taken again.
const watchedTTL = 30 * time.Second

// recheckPace counts the summaries whose passing checks are run again, to space those runs.
type recheckPace struct {
	// rate is the Options' MaxRecheckRate; informers hold the summaries, counted in place (nil
	// lists them through the client).
	rate      float64
	informers cache.Informers

	mu      sync.Mutex
	count   int
	counted time.Time

	// checked holds the UIDs of the summaries whose checks this process ran or put off once
	// (due).
	checked sync.Map
}

// ran records that the summary's checks ran in this process.
func (p *recheckPace) ran(uid types.UID) { p.checked.Store(uid, struct{}{}) }

// due reports whether a provisioned summary's passing checks are to run again now: not the
// first time this process sees it, unless it ran them itself. That first time is recorded, so
// that they run on its next pass, a paced interval later.
func (p *recheckPace) due(uid types.UID) bool {
	_, seen := p.checked.LoadOrStore(uid, struct{}{})
	return seen
}

// forget drops what is kept about a summary that is gone.
func (p *recheckPace) forget(uid types.UID) { p.checked.Delete(uid) }

// recheckInterval is how long until the checks of a summary whose checks pass run again: the
// health interval, or, when this replica watches the health of more summaries than
// MaxRecheckRate lets it check every health interval, the time it takes to check them all at
// that rate. A promotion over 20,000 clusters would otherwise check 4,000 of them a second,
// every one through its own cluster's API server, and its deploys would wait behind the
// checks. Checks that do not pass yet are not spaced out: rollouts wait for them. The paced
// interval is drawn around its mean, so that summaries deployed together (or all of them,
// after a restart) do not come back together.
func (r *Reconciler) recheckInterval(ctx context.Context) time.Duration {
	if r.recheck.rate <= 0 {
		return r.healthInterval
	}
	paced := time.Duration(float64(r.watched(ctx)) / r.recheck.rate * float64(time.Second))
	if paced <= r.healthInterval {
		return r.healthInterval
	}
	return max(r.healthInterval, paced/2+rand.N(paced))
}

// watched is how many summaries of this replica's clusters have their health watched, as the
// cache holds them, counted at most every watchedTTL; 0 when they cannot be counted.
func (r *Reconciler) watched(ctx context.Context) int {
	p := &r.recheck
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.counted.IsZero() && time.Since(p.counted) < watchedTTL {
		return p.count
	}
	if n, err := r.countWatched(ctx); err == nil {
		p.count, p.counted = n, time.Now()
	}
	return p.count
}

// countWatched counts, in place, the summaries of a promotion's stages whose cluster is in this
// replica's shard: the other shards' replicas check theirs, at their own pace.
func (r *Reconciler) countWatched(ctx context.Context) (int, error) {
	clusters, err := inplace.List[libv1beta1.SveltosCluster](ctx, r.recheck.informers, r.client, &libv1beta1.SveltosClusterList{}, nil)
	if err != nil {
		return 0, err
	}
	owned := make(map[string]bool, len(clusters))
	for _, cl := range clusters {
		if r.shard.Owns(cl) {
			owned[cl.Namespace+"/"+cl.Name] = true
		}
	}
	summaries, err := inplace.List[configv1beta1.ClusterSummary](ctx, r.recheck.informers, r.client, &configv1beta1.ClusterSummaryList{}, nil)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, cs := range summaries {
		if cs.Labels[configv1beta1.PromotionNameLabel] != "" && owned[cs.Spec.ClusterNamespace+"/"+cs.Spec.ClusterName] {
			n++
		}
	}
	return n, nil
}
