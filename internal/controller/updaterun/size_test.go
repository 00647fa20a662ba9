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

package updaterun

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// TestStatusSizeAt20000Clusters plays a run over 20,000 clusters (stages of 200, 1,800 and
// 18,000, maxConcurrency 10%, cluster names of 20 characters) through the status functions the
// controller uses and measures the status as written after every wave.
func TestStatusSizeAt20000Clusters(t *testing.T) {
	obj := &placementv1beta1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: "fleet-wide-run", Generation: 1}}
	obj.Spec.PlacementName = "fleet-wide-placement"
	ru := &run{UpdateRunObj: obj, spec: &obj.Spec, status: &obj.Status, maxListed: DefaultMaxListedClusters,
		now: metav1.NewTime(time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC))}
	ru.inputs.family = placementv1beta1.ClusterFamily
	ten := intstr.FromString("10%")
	strategy := &placementv1beta1.UpdateStrategySpec{}
	next := 0
	for i, size := range []int{200, 1800, 18000} {
		name := fmt.Sprintf("stage-%d", i)
		var clusters []string
		for range size {
			clusters = append(clusters, fmt.Sprintf("member-cluster-%05d", next))
			next++
		}
		strategy.Stages = append(strategy.Stages, placementv1beta1.StageConfig{Name: name, MaxConcurrency: &ten,
			AfterStageTasks: []placementv1beta1.StageTask{{Type: placementv1beta1.StageTaskTypeTimedWait, WaitTime: &metav1.Duration{Duration: time.Hour}}}})
		obj.Status.StagesStatus = append(obj.Status.StagesStatus, newStage(name, clusters, ru.maxListed))
	}
	obj.Status.UpdateStrategySnapshot = strategy
	deletion := newStage(placementv1beta1.UpdateRunDeleteStageName, nil, ru.maxListed)
	obj.Status.DeletionStageStatus = &deletion
	ru.setCondition(placementv1beta1.StagedUpdateRunConditionInitialized, metav1.ConditionTrue, placementv1beta1.UpdateRunInitializeSucceededReason, "initialized")

	largest, at := size(t, obj), "initialization"
	for i := range obj.Status.StagesStatus {
		st := &obj.Status.StagesStatus[i]
		limit := st.Size() / 10
		for wave := 0; ; wave++ {
			// The clusters in flight succeed, and the next ones start.
			for j := range st.Clusters {
				if c := &st.Clusters[j]; clusterStarted(c) && !clusterSucceeded(c) {
					ru.setCluster(c, placementv1beta1.ClusterUpdatingConditionSucceeded, metav1.ConditionTrue, placementv1beta1.ClusterUpdatingSucceededReason, "")
				}
			}
			st.UpdatingClusters = nil
			if len(st.NotStartedClusters) == 0 {
				break
			}
			for _, name := range append([]string(nil), st.NotStartedClusters[:min(limit, len(st.NotStartedClusters))]...) {
				if c := startCluster(st, name, ru.maxListed); c != nil {
					ru.setCluster(c, placementv1beta1.ClusterUpdatingConditionStarted, metav1.ConditionTrue, placementv1beta1.ClusterUpdatingStartedReason, "")
				}
			}
			ru.setStage(st, placementv1beta1.StageUpdatingConditionProgressing, metav1.ConditionTrue, placementv1beta1.StageUpdatingStartedReason, "")
			ru.countStages()
			if n := size(t, obj); n > largest {
				largest, at = n, fmt.Sprintf("stage %d, wave %d", i, wave)
			}
		}
		ru.countStages()
		if got := *st.ClusterCounts; got.Succeeded != got.Total || got.NotStarted+got.Updating+got.Failed != 0 {
			t.Fatalf("stage %d counts %+v", i, got)
		}
	}
	t.Logf("largest status: %d bytes, at %s; finished: %d bytes", largest, at, size(t, obj))
	if largest > 600_000 {
		t.Errorf("the status reaches %d bytes", largest)
	}
}

func size(t *testing.T, obj *placementv1beta1.ClusterStagedUpdateRun) int {
	data, err := json.Marshal(obj.Status)
	if err != nil {
		t.Fatal(err)
	}
	return len(data)
}
