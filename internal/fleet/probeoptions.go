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

package fleet

import (
	"time"

	"github.com/stagecoach-dev/stagecoach/internal/shard"
)

// Defaults of ProbeOptions.
const (
	DefaultProbeInterval       = 10 * time.Second
	DefaultProbeTimeout        = 5 * time.Second
	DefaultMaxConcurrentProbes = 16
	// DefaultFailureThreshold is how many probes in a row must fail before a cluster is reported
	// down (SveltosCluster's spec.consecutiveFailureThreshold overrides it per cluster).
	DefaultFailureThreshold = 3
	// DefaultMaxProbeRate is how many probes per second each probing controller makes at most.
	DefaultMaxProbeRate = 100
)

// ProberOptions are what a controller that probes clusters (SveltosClusters, MemberClusters) is
// given. Clusters is required.
type ProberOptions struct {
	// Clusters reaches the clusters; the controllers that deploy to them share it.
	Clusters *Cache
	// Shard is the shard whose clusters this replica probes.
	Shard shard.Key
	// Probe tunes the probes; the zero value gives the defaults.
	Probe ProbeOptions
}

// ProbeOptions tune the controllers that probe clusters' API servers. The zero value gives the
// defaults.
type ProbeOptions struct {
	// ProbeInterval is how often each cluster is probed.
	ProbeInterval time.Duration
	// ProbeTimeout is how long a probe waits for the API server to answer.
	ProbeTimeout time.Duration
	// MaxConcurrentProbes is how many clusters are probed at once. A cluster that does not answer
	// holds one for ProbeTimeout, so a few dead clusters must not starve the rest.
	MaxConcurrentProbes int
	// FailureThreshold is how many probes in a row must fail before a cluster whose API has no
	// threshold of its own (a MemberCluster) is reported down.
	FailureThreshold int
	// MaxProbeRate caps the probes per second: once the fleet has more clusters than
	// ProbeInterval allows at this rate, clusters that answered their last probe are probed
	// less often (see Interval).
	MaxProbeRate float64
}

// Interval is how long a cluster waits for its next probe, in a fleet of clusters clusters. A
// small fleet is probed every ProbeInterval. A large one would spend the controller on probes,
// so a cluster whose last probe succeeded waits for its turn at MaxProbeRate instead (20,000
// clusters at 100 per second: every 200 s); one whose last probe failed keeps ProbeInterval, so
// that it is reported down, or back, as promptly as in a small fleet. Deployments notice a dead
// cluster on their own, at once.
func (o ProbeOptions) Interval(clusters int, lastFailed bool) time.Duration {
	if lastFailed {
		return o.ProbeInterval
	}
	return max(o.ProbeInterval, time.Duration(float64(clusters)/o.MaxProbeRate*float64(time.Second)))
}

// WithDefaults fills the unset fields.
func (o ProbeOptions) WithDefaults() ProbeOptions {
	if o.ProbeInterval <= 0 {
		o.ProbeInterval = DefaultProbeInterval
	}
	if o.ProbeTimeout <= 0 {
		o.ProbeTimeout = DefaultProbeTimeout
	}
	if o.MaxConcurrentProbes <= 0 {
		o.MaxConcurrentProbes = DefaultMaxConcurrentProbes
	}
	if o.FailureThreshold <= 0 {
		o.FailureThreshold = DefaultFailureThreshold
	}
	if o.MaxProbeRate <= 0 {
		o.MaxProbeRate = DefaultMaxProbeRate
	}
	return o
}
