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

package rollout

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// JoinAction is what an update run does with a cluster the placement picked after the run
// froze its stages.
type JoinAction int

const (
	// JoinNextRun means the run gives it nothing; it waits for the next run.
	JoinNextRun JoinAction = iota
	// JoinNow means its stage has passed, and it gets the run's snapshot at once, without holding the
	// run or counting against the stage.
	JoinNow
	// JoinStage means its stage is under way or not reached yet, and it becomes one of the stage's
	// clusters, updated in its turn under maxConcurrency.
	JoinStage
)

// DecideJoin decides for a cluster that joined during a run, from the strategy's
// joiningClusters and whether the cluster's stage has passed. Without a stage for it, it waits.
func DecideJoin(policy string, hasStage, stagePassed bool) JoinAction {
	switch {
	case policy != placementv1beta1.JoiningClustersStageSnapshot || !hasStage:
		return JoinNextRun
	case stagePassed:
		return JoinNow
	}
	return JoinStage
}

// StageOf is the index of the stage whose labelSelector selects the member, or -1 when none
// does. A member two stages select is an error, as when the run started.
func StageOf(stages []placementv1beta1.StageConfig, m Member) (int, error) {
	found := -1
	for i, st := range stages {
		if st.LabelSelector == nil {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(st.LabelSelector)
		if err != nil {
			return -1, fmt.Errorf("stage %s: invalid labelSelector: %w", st.Name, err)
		}
		if !sel.Matches(labels.Set(m.Labels)) {
			continue
		}
		if found >= 0 {
			return -1, fmt.Errorf("cluster %s is selected by both stage %s and stage %s; a cluster must be in one stage only", m.Name, stages[found].Name, st.Name)
		}
		found = i
	}
	return found, nil
}

// Remaining splits the clusters of a stage into those still picked and those that left: a run
// drops a cluster that left without failing.
func Remaining(names []string, picked func(string) bool) (kept, left []string) {
	for _, n := range names {
		if picked(n) {
			kept = append(kept, n)
		} else {
			left = append(left, n)
		}
	}
	return kept, left
}
