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
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// Member is a cluster as staged update planning sees it.
type Member struct {
	Name   string
	Labels map[string]string
}

// StagePlan is one stage of a staged update run and its clusters, in update order.
type StagePlan struct {
	Name     string
	Clusters []string
}

// PlanStages puts every member into the strategy stage whose labelSelector matches it, in
// update order: by the integer value of the stage's sortingLabelKey (members without the label
// come after those with it), then by name. A nil selector matches nothing, an empty one
// everything. A member matched by two stages, or by none, is an error naming it, and so is a
// sorting label that is not an integer.
func PlanStages(stages []placementv1beta1.StageConfig, members []Member) ([]StagePlan, error) {
	stageOf := map[string]string{}
	plans := make([]StagePlan, 0, len(stages))
	for _, st := range stages {
		plan := StagePlan{Name: st.Name}
		sel := labels.Nothing()
		if st.LabelSelector != nil {
			s, err := metav1.LabelSelectorAsSelector(st.LabelSelector)
			if err != nil {
				return nil, fmt.Errorf("stage %s: invalid labelSelector: %w", st.Name, err)
			}
			sel = s
		}
		var picked []Member
		for _, m := range members {
			if !sel.Matches(labels.Set(m.Labels)) {
				continue
			}
			if other, ok := stageOf[m.Name]; ok {
				return nil, fmt.Errorf("cluster %s is selected by both stage %s and stage %s; a cluster must be in one stage only", m.Name, other, st.Name)
			}
			stageOf[m.Name] = st.Name
			picked = append(picked, m)
		}
		if err := sortMembers(picked, st.SortingLabelKey); err != nil {
			return nil, fmt.Errorf("stage %s: %w", st.Name, err)
		}
		for _, m := range picked {
			plan.Clusters = append(plan.Clusters, m.Name)
		}
		plans = append(plans, plan)
	}
	var missing []string
	for _, m := range members {
		if _, ok := stageOf[m.Name]; !ok {
			missing = append(missing, m.Name)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, fmt.Errorf("%d clusters are in no stage of the strategy: %s; add a stage that selects them", len(missing), strings.Join(missing, ", "))
	}
	return plans, nil
}

func sortMembers(ms []Member, key *string) error {
	type sortable struct {
		Member
		order    int
		hasOrder bool
	}
	items := make([]sortable, len(ms))
	for i, m := range ms {
		items[i].Member = m
		if key == nil {
			continue
		}
		v, ok := m.Labels[*key]
		if !ok {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("the sorting label %s=%q on cluster %s is not an integer", *key, v, m.Name)
		}
		items[i].order, items[i].hasOrder = n, true
	}
	slices.SortStableFunc(items, func(a, b sortable) int {
		switch {
		case a.hasOrder && !b.hasOrder:
			return -1
		case !a.hasOrder && b.hasOrder:
			return 1
		case a.order != b.order:
			return a.order - b.order
		}
		return strings.Compare(a.Name, b.Name)
	})
	for i := range items {
		ms[i] = items[i].Member
	}
	return nil
}

// MaxConcurrency turns a stage's maxConcurrency into a number of clusters out of total, as
// Kubefleet does: an integer as is, a percentage rounded down; never less than 1. Nil means 1.
func MaxConcurrency(v *intstr.IntOrString, total int) (int, error) {
	if v == nil {
		return 1, nil
	}
	if v.Type == intstr.Int {
		if v.IntVal < 1 {
			return 0, fmt.Errorf("maxConcurrency %d must be at least 1", v.IntVal)
		}
		return int(v.IntVal), nil
	}
	pct, isPct := strings.CutSuffix(strings.TrimSpace(v.StrVal), "%")
	n, err := strconv.Atoi(pct)
	if err != nil || n < 1 || (isPct && n > 100) {
		return 0, fmt.Errorf("maxConcurrency %q is neither a positive number nor a percentage from 1%% to 100%%", v.StrVal)
	}
	if !isPct {
		return n, nil
	}
	return max(1, int(math.Floor(float64(n)*float64(total)/100))), nil
}

// AfterStageTasks is the state of a stage's after-stage tasks once all its clusters are updated.
type AfterStageTasks struct {
	// WaitingSince is when the stage's clusters were all updated: TimedWait tasks count from the
	// end of that second.
	WaitingSince time.Time
	// WaitTimes are the waitTimes of the TimedWait tasks.
	WaitTimes []time.Duration
	// Approvals says, for each Approval task, whether it is approved.
	Approvals []bool
}

// soakEnd is when a wait of d that started at since ends. A condition's lastTransitionTime is
// stored truncated to the second, so since may be up to a second earlier than the moment it
// records: counting from the end of that second keeps a wait from ever being cut short.
// (A promotion stores its lastSuccessfulAppliedTime rounded up instead.)
func soakEnd(since time.Time, d time.Duration) time.Time {
	return since.Truncate(time.Second).Add(time.Second + d)
}

// TasksDecision says whether a stage's after-stage tasks are complete.
type TasksDecision struct {
	// WaitsElapsed says, for each TimedWait task, whether its wait is over.
	WaitsElapsed []bool
	// Done: every task is complete; the stage is finished.
	Done bool
	// RequeueAt is when the next wait ends, when one is still running.
	RequeueAt time.Time
}

// DecideAfterStageTasks evaluates every after-stage task together, so that a wait and an
// approval run side by side rather than one after the other.
func DecideAfterStageTasks(t AfterStageTasks, now time.Time) TasksDecision {
	d := TasksDecision{Done: true}
	for _, w := range t.WaitTimes {
		end := soakEnd(t.WaitingSince, w)
		elapsed := !now.Before(end)
		d.WaitsElapsed = append(d.WaitsElapsed, elapsed)
		if !elapsed {
			d.Done = false
			if d.RequeueAt.IsZero() || end.Before(d.RequeueAt) {
				d.RequeueAt = end
			}
		}
	}
	for _, ok := range t.Approvals {
		if !ok {
			d.Done = false
		}
	}
	return d
}
