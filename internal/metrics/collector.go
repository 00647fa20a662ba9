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

// Package metrics serves Stagecoach's rollout metrics in Prometheus form, next to
// controller-runtime's. They are derived from the objects' status at each scrape, read from the
// manager's cache: what /metrics says is what `kubectl get` says, with no counter to lose in a
// restart and nothing to keep in step in the reconcilers.
package metrics

import (
	"context"
	"regexp"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc("stagecoach_"+name, help, labels, nil)
}

var (
	promotionStage = desc("promotion_current_stage_index",
		"Index (from 0) of the stage a ClusterPromotion is deploying or waiting on.", "promotion", "stage")
	promotionStageSeconds = desc("promotion_time_in_stage_seconds",
		"Seconds since a ClusterPromotion moved to its current stage.", "promotion", "stage")
	promotionWaiting = desc("promotion_waiting",
		"1 while a ClusterPromotion's current stage waits, with what it waits for as reason.", "promotion", "stage", "reason")
	promotionCondition = desc("promotion_condition",
		"A ClusterPromotion's conditions: 1 for the condition's current status and reason.", "promotion", "type", "status", "reason")
	runTimestamp = desc("update_run_status_last_timestamp_seconds",
		"When an update run's condition last changed, in seconds since the epoch.", "namespace", "name", "condition", "status", "reason")
	runClusters = desc("update_run_stage_clusters",
		"Clusters of an update run's stage by state: pending, updating, succeeded or failed.", "namespace", "name", "stage", "state")
	runClusterUpdating = desc("update_run_stage_cluster_updating_duration_seconds",
		"How long the clusters of an update run took to update, from started to succeeded or failed.", "namespace", "name")
	approvalsWaiting = desc("approvals_waiting",
		"1 for each approval a rollout waits for: an update run's approval request not approved yet, or a ClusterPromotion stage awaiting manual approval.",
		"kind", "namespace", "name")
	clusterConnected = desc("cluster_connected",
		"1 if Stagecoach reaches the cluster's API server (SveltosCluster connectionStatus Healthy, MemberCluster Joined), else 0.",
		"kind", "namespace", "name")
)

// description strips the time Sveltos appends to a stage's status description.
var description = regexp.MustCompile(`\s*\([^()]*\)\s*$`)

// manualApproval matches the description of a stage held for its manual trigger.
var manualApproval = regexp.MustCompile(`(?i)manual approval`)

// Collector reads the status of promotions, update runs, approvals and clusters at each scrape.
// It reads them in place in the cache, never copied: a scrape of a fleet of thousands must not
// copy every cluster.
type Collector struct {
	Reader client.Reader
	Log    logr.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

var (
	registered   *Collector
	registeredMu sync.Mutex
)

// Register serves c on controller-runtime's registry, in place of a collector registered before
// (tests start several managers in one process).
func Register(c *Collector) error {
	registeredMu.Lock()
	defer registeredMu.Unlock()
	if registered != nil {
		crmetrics.Registry.Unregister(registered)
	}
	registered = c
	return crmetrics.Registry.Register(c)
}

// Describe sends every metric's description.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{promotionStage, promotionStageSeconds, promotionWaiting, promotionCondition,
		runTimestamp, runClusters, runClusterUpdating, approvalsWaiting, clusterConnected} {
		ch <- d
	}
}

// Collect reads the objects and sends the metrics; a kind that cannot be read is logged and
// left out.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	for _, f := range []func(context.Context, chan<- prometheus.Metric, time.Time) error{
		c.promotions, c.updateRuns, c.approvalRequests, c.clusters,
	} {
		if err := f(ctx, ch, now()); err != nil {
			c.Log.Error(err, "collecting rollout metrics")
		}
	}
}

func gauge(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

func (c *Collector) promotions(ctx context.Context, ch chan<- prometheus.Metric, now time.Time) error {
	var list configv1beta1.ClusterPromotionList
	if err := c.Reader.List(ctx, &list, client.UnsafeDisableDeepCopy); err != nil {
		return err
	}
	for _, p := range list.Items {
		for _, cond := range p.Status.Conditions {
			gauge(ch, promotionCondition, 1, p.Name, cond.Type, string(cond.Status), cond.Reason)
		}
		stage := p.Status.CurrentStageName
		if stage == "" {
			continue
		}
		for i, s := range p.Spec.Stages {
			if s.Name == stage {
				gauge(ch, promotionStage, float64(i), p.Name, stage)
			}
		}
		if t := p.Status.LastPromotionTime; t != nil {
			gauge(ch, promotionStageSeconds, now.Sub(t.Time).Seconds(), p.Name, stage)
		}
		if meta.IsStatusConditionTrue(p.Status.Conditions, "Ready") {
			continue
		}
		for _, st := range p.Status.Stages {
			if st.Name != stage || st.CurrentStatusDescription == nil {
				continue
			}
			reason := description.ReplaceAllString(*st.CurrentStatusDescription, "")
			gauge(ch, promotionWaiting, 1, p.Name, stage, reason)
			if manualApproval.MatchString(reason) {
				gauge(ch, approvalsWaiting, 1, "ClusterPromotion", "", p.Name)
			}
		}
	}
	return nil
}

func (c *Collector) updateRuns(ctx context.Context, ch chan<- prometheus.Metric, _ time.Time) error {
	for _, f := range placementv1beta1.Families() {
		list := f.NewUpdateRunList()
		if err := c.Reader.List(ctx, list, client.UnsafeDisableDeepCopy); err != nil {
			return err
		}
		for _, run := range list.UpdateRunObjs() {
			st := run.UpdateRunStatus()
			for _, cond := range st.Conditions {
				gauge(ch, runTimestamp, float64(cond.LastTransitionTime.Unix()), run.GetNamespace(), run.GetName(), cond.Type, string(cond.Status), cond.Reason)
			}
			updating := newHistogram(updatingBuckets)
			for _, stage := range st.StagesStatus {
				counts := map[string]int{"pending": 0, "updating": 0, "succeeded": 0, "failed": 0}
				for _, cl := range stage.Clusters {
					counts[clusterState(cl.Conditions)]++
					if d, ok := updatingTime(cl.Conditions); ok {
						updating.observe(d.Seconds())
					}
				}
				// A large stage lists some of its clusters and counts them all.
				if n := stage.ClusterCounts; n != nil {
					counts = map[string]int{"pending": int(n.NotStarted), "updating": int(n.Updating), "succeeded": int(n.Succeeded), "failed": int(n.Failed)}
				}
				for state, n := range counts {
					gauge(ch, runClusters, float64(n), run.GetNamespace(), run.GetName(), stage.StageName, state)
				}
			}
			ch <- updating.metric(runClusterUpdating, run.GetNamespace(), run.GetName())
		}
	}
	return nil
}

// updatingBuckets span a ConfigMap (a second) to a large chart that waits for its workloads.
var updatingBuckets = prometheus.ExponentialBuckets(1, 2, 12)

// updatingTime is how long a cluster that finished took, from its Started condition to its
// Succeeded one (true or false).
func updatingTime(conds []metav1.Condition) (time.Duration, bool) {
	started := meta.FindStatusCondition(conds, string(placementv1beta1.ClusterUpdatingConditionStarted))
	finished := meta.FindStatusCondition(conds, string(placementv1beta1.ClusterUpdatingConditionSucceeded))
	if started == nil || started.Status != metav1.ConditionTrue || finished == nil {
		return 0, false
	}
	return finished.LastTransitionTime.Sub(started.LastTransitionTime.Time), true
}

func clusterState(conds []metav1.Condition) string {
	succeeded := meta.FindStatusCondition(conds, string(placementv1beta1.ClusterUpdatingConditionSucceeded))
	switch {
	case succeeded != nil && succeeded.Status == metav1.ConditionTrue:
		return "succeeded"
	case succeeded != nil && succeeded.Status == metav1.ConditionFalse:
		return "failed"
	case meta.IsStatusConditionTrue(conds, string(placementv1beta1.ClusterUpdatingConditionStarted)):
		return "updating"
	}
	return "pending"
}

func (c *Collector) approvalRequests(ctx context.Context, ch chan<- prometheus.Metric, _ time.Time) error {
	var cluster placementv1beta1.ClusterApprovalRequestList
	if err := c.Reader.List(ctx, &cluster, client.UnsafeDisableDeepCopy); err != nil {
		return err
	}
	for _, a := range cluster.Items {
		if !approved(a.Status.Conditions) {
			gauge(ch, approvalsWaiting, 1, "ClusterApprovalRequest", "", a.Name)
		}
	}
	var namespaced placementv1beta1.ApprovalRequestList
	if err := c.Reader.List(ctx, &namespaced, client.UnsafeDisableDeepCopy); err != nil {
		return err
	}
	for _, a := range namespaced.Items {
		if !approved(a.Status.Conditions) {
			gauge(ch, approvalsWaiting, 1, "ApprovalRequest", a.Namespace, a.Name)
		}
	}
	return nil
}

func approved(conds []placementv1beta1.ApprovalCondition) bool {
	for _, c := range conds {
		if c.Type == "Approved" && c.Status == metav1.ConditionTrue {
			return true
		}
	}
	return false
}

func (c *Collector) clusters(ctx context.Context, ch chan<- prometheus.Metric, _ time.Time) error {
	var sveltos libv1beta1.SveltosClusterList
	if err := c.Reader.List(ctx, &sveltos, client.UnsafeDisableDeepCopy); err != nil {
		return err
	}
	for _, sc := range sveltos.Items {
		gauge(ch, clusterConnected, boolValue(sc.Status.ConnectionStatus == libv1beta1.ConnectionHealthy), "SveltosCluster", sc.Namespace, sc.Name)
	}
	var members clusterv1beta1.MemberClusterList
	if err := c.Reader.List(ctx, &members, client.UnsafeDisableDeepCopy); err != nil {
		return err
	}
	for _, mc := range members.Items {
		joined := meta.IsStatusConditionTrue(mc.Status.Conditions, string(clusterv1beta1.ConditionTypeMemberClusterJoined))
		gauge(ch, clusterConnected, boolValue(joined), "MemberCluster", "", mc.Name)
	}
	return nil
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
