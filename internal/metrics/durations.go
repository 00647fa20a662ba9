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
	"time"

	"github.com/prometheus/client_golang/prometheus"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Durations are measured where the work happens; the rest of the rollout metrics come from
// status (Collector).
var (
	deployDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "stagecoach_deploy_duration_seconds",
		Help:    "Time to deploy one feature's content to one cluster (a Helm release, or a set of manifests), by feature and result.",
		Buckets: prometheus.ExponentialBuckets(0.05, 2, 12),
	}, []string{"feature", "result"})
	healthCheckDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "stagecoach_health_check_duration_seconds",
		Help:    "Time to evaluate a feature's health checks on one cluster, by kind (validate, pre-deploy) and result (healthy, unhealthy).",
		Buckets: prometheus.ExponentialBuckets(0.005, 2, 12),
	}, []string{"kind", "result"})
)

func init() {
	crmetrics.Registry.MustRegister(deployDuration, healthCheckDuration)
}

// ObserveDeploy records a deploy of feature that started at start and ended with err.
func ObserveDeploy(feature string, start time.Time, err error) {
	result := "succeeded"
	if err != nil {
		result = "failed"
	}
	deployDuration.WithLabelValues(feature, result).Observe(time.Since(start).Seconds())
}

// ObserveHealthCheck records an evaluation of health checks that started at start; pre says
// they are pre-deploy checks.
func ObserveHealthCheck(pre bool, start time.Time, err error) {
	kind, result := "validate", "healthy"
	if pre {
		kind = "pre-deploy"
	}
	if err != nil {
		result = "unhealthy"
	}
	healthCheckDuration.WithLabelValues(kind, result).Observe(time.Since(start).Seconds())
}
