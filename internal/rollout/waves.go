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
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// TargetState is where one cluster of a rolling update stands.
type TargetState int

const (
	// Pending means the cluster does not have the new revision yet.
	Pending TargetState = iota
	// Updating means the cluster has the new revision but is not yet provisioned and healthy.
	Updating
	// Updated means the cluster runs the new revision, provisioned and healthy.
	Updated
)

// Target is one cluster of a rolling update, in the order the update visits them.
type Target struct {
	Name  string
	State TargetState
	// Unavailable is set for a cluster that is paused or unreachable, with the reason. A pending
	// one cannot make progress, so it does not take a slot; an updating one keeps its slot and
	// is not done: what it runs is unknown until it answers again.
	Unavailable string
	// Paused is set for a cluster taken out of the rollout (a paused SveltosCluster): it takes
	// no slot, even while updating, and waits among the skipped until it is resumed.
	Paused bool
}

// Wave is the decision for one pass of a rolling update.
type Wave struct {
	// Start lists the pending clusters to give the new revision now.
	Start []string
	// Updating lists the clusters holding a slot: they have the new revision and are not done.
	Updating []string
	// Updated lists the clusters done with the new revision.
	Updated []string
	// Waiting lists pending clusters held back by maxUpdate.
	Waiting []string
	// Skipped lists unavailable pending clusters with the reason, "name: reason".
	Skipped []string
	// Held lists the updating clusters that became unavailable, "name: reason": they keep their
	// slot (and are in Updating too).
	Held []string
}

// Done reports whether every cluster runs the new revision, provisioned and healthy.
func (w Wave) Done() bool {
	return len(w.Start) == 0 && len(w.Updating) == 0 && len(w.Waiting) == 0 && len(w.Skipped) == 0
}

// PlanWave decides which clusters get the new revision now: at most limit clusters are
// mid-update at once (0 means no limit), visited in the given order. A cluster frees its slot
// only when Updated, even if it becomes unreachable while updating; an unavailable pending one
// is skipped without taking a slot, and so is a paused one, updating or not.
func PlanWave(targets []Target, limit int) Wave {
	var w Wave
	for _, t := range targets {
		switch {
		case t.State == Updated:
			w.Updated = append(w.Updated, t.Name)
		case t.Paused:
			w.Skipped = append(w.Skipped, t.Name+": "+cmp.Or(t.Unavailable, "paused"))
		case t.State == Updating:
			w.Updating = append(w.Updating, t.Name)
			if t.Unavailable != "" {
				w.Held = append(w.Held, t.Name+": "+t.Unavailable)
			}
		case t.Unavailable != "":
			w.Skipped = append(w.Skipped, t.Name+": "+t.Unavailable)
		}
	}
	inFlight := len(w.Updating)
	for _, t := range targets {
		if t.State != Pending || t.Unavailable != "" || t.Paused {
			continue
		}
		if limit > 0 && inFlight >= limit {
			w.Waiting = append(w.Waiting, t.Name)
			continue
		}
		w.Start = append(w.Start, t.Name)
		inFlight++
	}
	return w
}

// WaveCount is how many waves a rollout over clusters takes with at most limit of them updating
// at once (0: no limit), if each finishes before the next starts: 0 for no cluster.
func WaveCount(clusters, limit int) int {
	switch {
	case clusters == 0:
		return 0
	case limit <= 0:
		return 1
	}
	return (clusters + limit - 1) / limit
}

// MaxUpdate turns a maxUpdate value into a number of clusters out of total: an integer as is, a
// percentage rounded up (as Sveltos does: 10% of 3 clusters is 1). Nil means no limit (0), and
// so does a percentage of zero clusters. Zero and 0% are errors: they would never update a
// cluster, and Sveltos' reading of them as "no limit" would update them all at once.
func MaxUpdate(v *intstr.IntOrString, total int) (int, error) {
	if v == nil {
		return 0, nil
	}
	const zero = "maxUpdate %s would never update a cluster: set at least 1 (or 1%%), or leave maxUpdate out to update every cluster at once"
	if v.Type == intstr.Int {
		switch {
		case v.IntVal < 0:
			return 0, fmt.Errorf("maxUpdate %d is negative", v.IntVal)
		case v.IntVal == 0:
			return 0, fmt.Errorf(zero, "0")
		}
		return int(v.IntVal), nil
	}
	s := strings.TrimSpace(v.StrVal)
	pct, isPct := strings.CutSuffix(s, "%")
	n, err := strconv.Atoi(pct)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("maxUpdate %q is neither a number nor a percentage", v.StrVal)
	}
	if n == 0 {
		return 0, fmt.Errorf(zero, strconv.Quote(v.StrVal))
	}
	if !isPct {
		return n, nil
	}
	return int(math.Ceil(float64(n) * float64(total) / 100)), nil
}
