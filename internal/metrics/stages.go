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

package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Where a cluster of a promotion's current stage stands.
const (
	ClusterDone        = "done"
	ClusterUpdating    = "updating"
	ClusterFailed      = "failed"
	ClusterUnreachable = "unreachable"
)

// promotionStageClusters is set by the promotion controller as it judges a stage, with the
// counts its decision rests on; the other promotion series are read from status (Collector).
var promotionStageClusters = prometheus.NewGaugeVec(prometheus.GaugeOpts{
	Name: "stagecoach_promotion_stage_clusters",
	Help: "Clusters of a ClusterPromotion's current stage by state: done, updating, failed or unreachable.",
}, []string{"promotion", "stage", "state"})

func init() {
	crmetrics.Registry.MustRegister(promotionStageClusters)
}

// NoClusters returns counts of zero for every state, to be incremented.
func NoClusters() map[string]int {
	return map[string]int{ClusterDone: 0, ClusterUpdating: 0, ClusterFailed: 0, ClusterUnreachable: 0}
}

// SetPromotionStageClusters publishes the counts of promotion's current stage, dropping those
// of the stage before.
func SetPromotionStageClusters(promotion, stage string, counts map[string]int) {
	promotionStageClusters.DeletePartialMatch(prometheus.Labels{"promotion": promotion})
	for state, n := range counts {
		promotionStageClusters.WithLabelValues(promotion, stage, state).Set(float64(n))
	}
}

// ForgetPromotion drops the series of a promotion being deleted.
func ForgetPromotion(promotion string) {
	promotionStageClusters.DeletePartialMatch(prometheus.Labels{"promotion": promotion})
}

// histogram accumulates observations into a constant histogram, for series computed from
// status at each scrape.
type histogram struct {
	upper   []float64
	buckets map[float64]uint64
	count   uint64
	sum     float64
}

func newHistogram(upper []float64) *histogram {
	h := &histogram{upper: upper, buckets: map[float64]uint64{}}
	for _, u := range upper {
		h.buckets[u] = 0 // every bucket is served, empty or not
	}
	return h
}

func (h *histogram) observe(v float64) {
	h.count++
	h.sum += v
	for _, u := range h.upper {
		if v <= u {
			h.buckets[u]++ // cumulative, as Prometheus counts them
		}
	}
}

func (h *histogram) metric(d *prometheus.Desc, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstHistogram(d, h.count, h.sum, h.buckets, labels...)
}
