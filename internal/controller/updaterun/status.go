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
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
)

// Every condition of a run, its stages, clusters and tasks carries the run's generation, so that
// a spec change (a state change, say) keeps the progress recorded so far.

func (ru *run) condition(conds *[]metav1.Condition, t string, s metav1.ConditionStatus, reason, msg string) {
	patch.SetConditionAt(conds, ru.now, ru.GetGeneration(), t, s, reason, msg)
}

func (ru *run) setCondition(t placementv1beta1.StagedUpdateRunConditionType, s metav1.ConditionStatus, reason, msg string) {
	ru.condition(&ru.status.Conditions, string(t), s, reason, msg)
}

func (ru *run) setStage(st *placementv1beta1.StageUpdatingStatus, t placementv1beta1.StageUpdatingConditionType, s metav1.ConditionStatus, reason, msg string) {
	if note := ru.listingNote(st); note != "" {
		msg = strings.TrimPrefix(msg+"; "+note, "; ")
	}
	ru.condition(&st.Conditions, string(t), s, reason, msg)
}

func (ru *run) setCluster(c *placementv1beta1.ClusterUpdatingStatus, t placementv1beta1.ClusterUpdatingStatusConditionType, s metav1.ConditionStatus, reason, msg string) {
	ru.condition(&c.Conditions, string(t), s, reason, msg)
}

func (ru *run) setTask(task *placementv1beta1.StageTaskStatus, t placementv1beta1.StageTaskConditionType, reason string) {
	ru.condition(&task.Conditions, string(t), metav1.ConditionTrue, reason, "")
}

func isTrue(conds []metav1.Condition, t string) bool { return meta.IsStatusConditionTrue(conds, t) }

func stageSucceeded(st *placementv1beta1.StageUpdatingStatus) bool {
	return isTrue(st.Conditions, string(placementv1beta1.StageUpdatingConditionSucceeded))
}

func clusterStarted(c *placementv1beta1.ClusterUpdatingStatus) bool {
	return isTrue(c.Conditions, string(placementv1beta1.ClusterUpdatingConditionStarted))
}

func clusterFailed(c *placementv1beta1.ClusterUpdatingStatus) bool {
	return meta.IsStatusConditionFalse(c.Conditions, string(placementv1beta1.ClusterUpdatingConditionSucceeded))
}

func clusterSucceeded(c *placementv1beta1.ClusterUpdatingStatus) bool {
	return isTrue(c.Conditions, string(placementv1beta1.ClusterUpdatingConditionSucceeded))
}

// refreshGenerations stamps every condition with the run's current generation.
func (ru *run) refreshGenerations() {
	gen := ru.GetGeneration()
	stamp := func(conds []metav1.Condition) {
		for i := range conds {
			conds[i].ObservedGeneration = gen
		}
	}
	stamp(ru.status.Conditions)
	for i := range ru.status.StagesStatus {
		st := &ru.status.StagesStatus[i]
		stamp(st.Conditions)
		for j := range st.Clusters {
			stamp(st.Clusters[j].Conditions)
		}
		for j := range st.AfterStageTaskStatus {
			stamp(st.AfterStageTaskStatus[j].Conditions)
		}
		for j := range st.BeforeStageTaskStatus {
			stamp(st.BeforeStageTaskStatus[j].Conditions)
		}
	}
	if d := ru.status.DeletionStageStatus; d != nil {
		stamp(d.Conditions)
		for j := range d.Clusters {
			stamp(d.Clusters[j].Conditions)
		}
	}
}
