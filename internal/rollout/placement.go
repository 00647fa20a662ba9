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
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// PlacementBindingState is the spec.state of a placement's binding to one cluster.
type PlacementBindingState string

// States of a placement binding.
const (
	// PlacementBindingScheduled: the cluster is picked but has been given no revision yet.
	PlacementBindingScheduled PlacementBindingState = "Scheduled"
	// PlacementBindingBound: the cluster is to run the revision the binding names.
	PlacementBindingBound PlacementBindingState = "Bound"
	// PlacementBindingUnscheduled: the cluster is no longer picked.
	PlacementBindingUnscheduled PlacementBindingState = "Unscheduled"
)

// PlacementBinding is one binding of a placement as the rolling update sees it.
type PlacementBinding struct {
	Cluster string
	State   PlacementBindingState
	// HasRevision: the binding names a revision, so its cluster may be running resources.
	HasRevision bool
	// Latest: the binding names the newest revision.
	Latest bool
	// Available: the cluster reported the revision the binding names available, for the
	// binding's current generation.
	Available bool
	// Untrackable: Available only because the resources' availability cannot be checked; such
	// a cluster counts as available once it has been so for the unavailable period.
	Untrackable bool
	// AvailableSince is when Available last turned true.
	AvailableSince time.Time
	// Deleting: the binding is being deleted; its resources are being withdrawn.
	Deleting bool
}

// PlacementRollout holds the limits of one pass of a placement's rolling update.
type PlacementRollout struct {
	// Target is how many clusters the placement picked.
	Target int
	// MaxUnavailable is how many of Target may be unavailable at once (see PlacementLimit).
	MaxUnavailable int
	// MaxSurge is how many clusters above Target may hold resources at once.
	MaxSurge int
	// UnavailablePeriod is how long an Untrackable binding must have been available.
	UnavailablePeriod time.Duration
	// Now is the time of the pass.
	Now time.Time
}

// PlacementPlan is the decision for one pass of a placement's rolling update. Every list is
// sorted by cluster name.
type PlacementPlan struct {
	// Bind lists Scheduled bindings to bind to the newest revision: new clusters.
	Bind []string
	// Update lists Bound bindings to move to the newest revision.
	Update []string
	// Delete lists Unscheduled bindings to delete, which withdraws their resources.
	Delete []string
	// Waiting lists bindings held back by maxUnavailable or maxSurge, with the reason,
	// "cluster: reason".
	Waiting []string
	// RecheckAfter, when positive, is when an untrackable binding counts as available and the
	// plan may change without any event.
	RecheckAfter time.Duration
	// Done: every picked cluster runs the newest revision, available, and no other cluster
	// holds resources.
	Done bool
}

// PlanPlacementRollout decides which bindings of a RollingUpdate placement move now.
//
// Availability is counted over every binding that may run resources, Unscheduled ones included
// (they still serve until removed). Updating or removing an available cluster makes it
// unavailable, so it is allowed only while more than Target-MaxUnavailable clusters are
// available; clusters already unavailable move at once. New clusters (Scheduled bindings)
// take nothing away, so only MaxSurge limits them: at most Target+MaxSurge bindings hold
// resources at a time.
func PlanPlacementRollout(bindings []PlacementBinding, r PlacementRollout) PlacementPlan {
	sorted := slices.Clone(bindings)
	slices.SortFunc(sorted, func(a, b PlacementBinding) int { return strings.Compare(a.Cluster, b.Cluster) })

	var plan PlacementPlan
	ready := func(b PlacementBinding) bool {
		if b.Deleting || !b.HasRevision || !b.Available {
			return false
		}
		if !b.Untrackable {
			return true
		}
		wait := b.AvailableSince.Add(r.UnavailablePeriod).Sub(r.Now)
		if wait <= 0 {
			return true
		}
		if plan.RecheckAfter == 0 || wait < plan.RecheckAfter {
			plan.RecheckAfter = wait
		}
		return false
	}
	readyCount := 0
	isReady := make([]bool, len(sorted))
	for i, b := range sorted {
		isReady[i] = ready(b)
		if isReady[i] {
			readyCount++
		}
	}
	// budget is how many available clusters may turn unavailable in this pass.
	budget := readyCount - max(r.Target-r.MaxUnavailable, 0)
	wait := func(cluster, why string) { plan.Waiting = append(plan.Waiting, cluster+": "+why) }
	heldBack := fmt.Sprintf("maxUnavailable allows %d of %d clusters to be unavailable at once", r.MaxUnavailable, r.Target)

	occupied, done := 0, true
	for i, b := range sorted {
		switch {
		case b.State != PlacementBindingUnscheduled:
			continue
		case b.Deleting:
			occupied++ // withdrawing its resources
		case !isReady[i]:
			plan.Delete = append(plan.Delete, b.Cluster)
		case budget > 0:
			plan.Delete = append(plan.Delete, b.Cluster)
			budget--
		default:
			occupied++
			wait(b.Cluster, heldBack)
		}
		done = false
	}
	for i, b := range sorted {
		if b.State != PlacementBindingBound {
			continue
		}
		occupied++
		switch {
		case b.Latest:
			done = done && isReady[i]
			continue
		case !isReady[i]:
			plan.Update = append(plan.Update, b.Cluster)
		case budget > 0:
			plan.Update = append(plan.Update, b.Cluster)
			budget--
		default:
			wait(b.Cluster, heldBack)
		}
		done = false
	}
	for _, b := range sorted {
		if b.State != PlacementBindingScheduled {
			continue
		}
		done = false
		if occupied < r.Target+r.MaxSurge {
			plan.Bind = append(plan.Bind, b.Cluster)
			occupied++
			continue
		}
		wait(b.Cluster, fmt.Sprintf("maxSurge allows %d clusters above the %d picked to hold resources at once", r.MaxSurge, r.Target))
	}
	plan.Done = done
	return plan
}

// PlacementLimit turns maxUnavailable or maxSurge into a number of clusters out of total: an
// integer as is, a percentage of total rounded up. Nil gives def.
func PlacementLimit(v *intstr.IntOrString, total int, def string) (int, error) {
	if v == nil {
		d := intstr.FromString(def)
		v = &d
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(v, total, true)
	if err != nil {
		return 0, fmt.Errorf("%q is neither a number nor a percentage", v.String())
	}
	if n < 0 {
		return 0, fmt.Errorf("%q is negative", v.String())
	}
	return n, nil
}
