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
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

func TestCollector(t *testing.T) {
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) *metav1.Time { return &metav1.Time{Time: now.Add(-d)} }
	waiting := "Paused: Awaiting Manual Approval (2026-11-25T09:59:00Z)"
	promo := &configv1beta1.ClusterPromotion{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec:       configv1beta1.ClusterPromotionSpec{Stages: []configv1beta1.Stage{{Name: "dev"}, {Name: "prod"}}},
		Status: configv1beta1.ClusterPromotionStatus{
			CurrentStageName: "prod", LastPromotionTime: ago(90 * time.Second),
			Stages:     []configv1beta1.StageStatus{{Name: "dev"}, {Name: "prod", CurrentStatusDescription: &waiting}},
			Conditions: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Waiting"}},
		},
	}
	run := &placementv1beta1.ClusterStagedUpdateRun{
		ObjectMeta: metav1.ObjectMeta{Name: "run-1"},
		Status: placementv1beta1.UpdateRunStatus{
			Conditions: []metav1.Condition{{Type: "Progressing", Status: metav1.ConditionTrue, Reason: "UpdateRunStarted", LastTransitionTime: *ago(time.Minute)}},
			StagesStatus: []placementv1beta1.StageUpdatingStatus{{StageName: "canary", Clusters: []placementv1beta1.ClusterUpdatingStatus{
				{ClusterName: "a", Conditions: []metav1.Condition{{Type: "Started", Status: metav1.ConditionTrue, LastTransitionTime: *ago(time.Minute)},
					{Type: "Succeeded", Status: metav1.ConditionTrue, LastTransitionTime: *ago(55 * time.Second)}}},
				{ClusterName: "b", Conditions: []metav1.Condition{{Type: "Started", Status: metav1.ConditionTrue}}},
				{ClusterName: "c"},
			}}},
		},
	}
	approval := &placementv1beta1.ClusterApprovalRequest{ObjectMeta: metav1.ObjectMeta{Name: "run-1-canary"}}
	sc := &libv1beta1.SveltosCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "dev", Name: "dev"}, Status: libv1beta1.SveltosClusterStatus{ConnectionStatus: libv1beta1.ConnectionHealthy}}
	mc := &clusterv1beta1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: "m"}}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(promo, run, approval, sc, mc).
		WithStatusSubresource(promo, run, sc).Build()

	col := &Collector{Reader: c, Log: logr.Discard(), Now: func() time.Time { return now }}
	want := `
# HELP stagecoach_approvals_waiting 1 for each approval a rollout waits for: an update run's approval request not approved yet, or a ClusterPromotion stage awaiting manual approval.
# TYPE stagecoach_approvals_waiting gauge
stagecoach_approvals_waiting{kind="ClusterApprovalRequest",name="run-1-canary",namespace=""} 1
stagecoach_approvals_waiting{kind="ClusterPromotion",name="web",namespace=""} 1
# HELP stagecoach_cluster_connected 1 if Stagecoach reaches the cluster's API server (SveltosCluster connectionStatus Healthy, MemberCluster Joined), else 0.
# TYPE stagecoach_cluster_connected gauge
stagecoach_cluster_connected{kind="MemberCluster",name="m",namespace=""} 0
stagecoach_cluster_connected{kind="SveltosCluster",name="dev",namespace="dev"} 1
# HELP stagecoach_promotion_condition A ClusterPromotion's conditions: 1 for the condition's current status and reason.
# TYPE stagecoach_promotion_condition gauge
stagecoach_promotion_condition{promotion="web",reason="Waiting",status="False",type="Ready"} 1
# HELP stagecoach_promotion_current_stage_index Index (from 0) of the stage a ClusterPromotion is deploying or waiting on.
# TYPE stagecoach_promotion_current_stage_index gauge
stagecoach_promotion_current_stage_index{promotion="web",stage="prod"} 1
# HELP stagecoach_promotion_time_in_stage_seconds Seconds since a ClusterPromotion moved to its current stage.
# TYPE stagecoach_promotion_time_in_stage_seconds gauge
stagecoach_promotion_time_in_stage_seconds{promotion="web",stage="prod"} 90
# HELP stagecoach_promotion_waiting 1 while a ClusterPromotion's current stage waits, with what it waits for as reason.
# TYPE stagecoach_promotion_waiting gauge
stagecoach_promotion_waiting{promotion="web",reason="Paused: Awaiting Manual Approval",stage="prod"} 1
# HELP stagecoach_update_run_stage_cluster_updating_duration_seconds How long the clusters of an update run took to update, from started to succeeded or failed.
# TYPE stagecoach_update_run_stage_cluster_updating_duration_seconds histogram
stagecoach_update_run_stage_cluster_updating_duration_seconds_bucket{name="run-1",namespace="",le="1"} 0
stagecoach_update_run_stage_cluster_updating_duration_seconds_bucket{name="run-1",namespace="",le="2"} 0
stagecoach_update_run_stage_cluster_updating_duration_seconds_bucket{name="run-1",namespace="",le="4"} 0
stagecoach_update_run_stage_cluster_updating_duration_seconds_bucket{name="run-1",namespace="",le="8"} 1
stagecoach_update_run_stage_cluster_updating_duration_seconds_bucket{name="run-1",namespace="",le="16"} 1
stagecoach_update_run_stage_cluster_updating_duration_seconds_bucket{name="run-1",namespace="",le="32"} 1
stagecoach_update_run_stage_cluster_updating_duration_seconds_bucket{name="run-1",namespace="",le="64"} 1
stagecoach_update_run_stage_cluster_updating_duration_seconds_bucket{name="run-1",namespace="",le="128"} 1
stagecoach_update_run_stage_cluster_updating_duration_seconds_bucket{name="run-1",namespace="",le="256"} 1
stagecoach_update_run_stage_cluster_updating_duration_seconds_bucket{name="run-1",namespace="",le="512"} 1
stagecoach_update_run_stage_cluster_updating_duration_seconds_bucket{name="run-1",namespace="",le="1024"} 1
stagecoach_update_run_stage_cluster_updating_duration_seconds_bucket{name="run-1",namespace="",le="2048"} 1
stagecoach_update_run_stage_cluster_updating_duration_seconds_bucket{name="run-1",namespace="",le="+Inf"} 1
stagecoach_update_run_stage_cluster_updating_duration_seconds_sum{name="run-1",namespace=""} 5
stagecoach_update_run_stage_cluster_updating_duration_seconds_count{name="run-1",namespace=""} 1
# HELP stagecoach_update_run_stage_clusters Clusters of an update run's stage by state: pending, updating, succeeded or failed.
# TYPE stagecoach_update_run_stage_clusters gauge
stagecoach_update_run_stage_clusters{name="run-1",namespace="",stage="canary",state="failed"} 0
stagecoach_update_run_stage_clusters{name="run-1",namespace="",stage="canary",state="pending"} 1
stagecoach_update_run_stage_clusters{name="run-1",namespace="",stage="canary",state="succeeded"} 1
stagecoach_update_run_stage_clusters{name="run-1",namespace="",stage="canary",state="updating"} 1
# HELP stagecoach_update_run_status_last_timestamp_seconds When an update run's condition last changed, in seconds since the epoch.
# TYPE stagecoach_update_run_status_last_timestamp_seconds gauge
stagecoach_update_run_status_last_timestamp_seconds{condition="Progressing",name="run-1",namespace="",reason="UpdateRunStarted",status="True"} 1.79560074e+09
`
	if err := testutil.CollectAndCompare(col, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
}

// TestDashboardUsesServedMetrics: every stagecoach_ series the chart's Grafana dashboard queries
// is one Stagecoach serves.
func TestDashboardUsesServedMetrics(t *testing.T) {
	data, err := os.ReadFile("../../charts/stagecoach/dashboards/stagecoach.json")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan *prometheus.Desc, 20)
	(&Collector{}).Describe(ch)
	for _, c := range []prometheus.Collector{deployDuration, healthCheckDuration, promotionStageClusters} {
		c.Describe(ch)
	}
	close(ch)
	served := map[string]bool{}
	for d := range ch {
		served[regexp.MustCompile(`fqName: "([^"]+)"`).FindStringSubmatch(d.String())[1]] = true
	}
	used := regexp.MustCompile(`stagecoach_[a-z_]+`).FindAllString(string(data), -1)
	if len(used) == 0 {
		t.Fatal("the dashboard queries no stagecoach_ metric")
	}
	histogram := regexp.MustCompile(`_(bucket|sum|count)$`)
	for _, m := range used {
		if !served[m] && !served[histogram.ReplaceAllString(m, "")] {
			t.Errorf("the dashboard queries %s, which is not served", m)
		}
	}
}
