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

// Package view describes a rollout as an operator reads it: its stages in order, each with its
// clusters, what they run and how they are, and what the stage waits for. The command line's
// status tree and the dashboard show the same description.
package view

import (
	"cmp"
	"slices"
)

// State is where a rollout, a stage or a cluster stands.
type State string

// States of rollouts, stages and clusters.
const (
	// Pending: not reached yet.
	Pending State = "Pending"
	// Progressing: at work, nothing blocks it.
	Progressing State = "Progressing"
	// Waiting: held by a soak, a window, an approval or clusters still deploying.
	Waiting State = "Waiting"
	// Suspended: held by the operator (a suspended promotion, a stopped run).
	Suspended State = "Suspended"
	// Failed: a cluster, a stage or the whole rollout failed; the reason says why.
	Failed State = "Failed"
	// RollingBack: going back to the last known good version.
	RollingBack State = "RollingBack"
	// RolledBack: back on the last known good version after a failure.
	RolledBack State = "RolledBack"
	// Succeeded: done; for a cluster, it runs the rollout's version, deployed and healthy.
	Succeeded State = "Succeeded"
	// Unreachable: a cluster the management cluster cannot reach.
	Unreachable State = "Unreachable"
	// Paused: a cluster taken out of rollouts (SveltosCluster spec.paused): nothing is deployed
	// to it and no stage waits for it.
	Paused State = "Paused"
)

// Final says whether nothing more happens to a rollout in this state without a change to it.
func (s State) Final() bool { return s == Succeeded || s == Failed || s == RolledBack }

// Rollout is one ClusterPromotion, ClusterProfile or update run.
type Rollout struct {
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	// Version is what is being rolled out: the first bytes of a promotion's profile-spec hash,
	// or a run's resource snapshot index.
	Version string `json:"version,omitempty"`
	State   State  `json:"state"`
	// Message says, in words, why the rollout is in its state.
	Message string  `json:"message,omitempty"`
	Stages  []Stage `json:"stages"`
}

// Stage is a stage of a rollout, with its clusters.
type Stage struct {
	Name  string `json:"name"`
	State State  `json:"state"`
	// WaitingFor says what the stage waits for, or why it failed.
	WaitingFor string `json:"waitingFor,omitempty"`
	// Wave is how many of the stage's clusters are updated at the same time (maxUpdate,
	// maxConcurrency); 0 when they all are.
	Wave int `json:"wave,omitempty"`
	// Waves is, for a stage not reached yet, how many waves its clusters will take (maxUpdate
	// at a time), paused and unreachable ones left out.
	Waves int `json:"waves,omitempty"`
	// CatchingUp lists clusters that do not run the stage's version yet and that the stage does
	// not wait for: they get it as soon as they can (from the promotion's status).
	CatchingUp []string `json:"catchingUp,omitempty"`
	// Counts counts the stage's clusters by state, listed or not.
	Counts map[State]int `json:"counts"`
	// Clusters lists the stage's clusters: failing and unreachable first, then updating, then
	// the rest, by name. A large stage lists only some; Counts counts them all.
	Clusters []Cluster `json:"clusters"`
}

// Cluster is one cluster of a stage.
type Cluster struct {
	// Name is "<namespace>/<name>" for a SveltosCluster, the name of a MemberCluster.
	Name  string `json:"name"`
	State State  `json:"state"`
	// Runs says what the cluster runs of the rollout: Helm releases and chart versions, or a
	// resource snapshot index.
	Runs string `json:"runs,omitempty"`
	// Reason says why a cluster fails, is unreachable or still updates.
	Reason string `json:"reason,omitempty"`
}

// Total is how many clusters the stage has.
func (s *Stage) Total() int {
	n := 0
	for _, c := range s.Counts {
		n += c
	}
	return n
}

// clusterOrder ranks cluster states for listing: what needs attention first.
var clusterOrder = []State{Failed, Unreachable, Progressing, Waiting, Suspended, Paused, Pending, RollingBack, RolledBack, Succeeded}

// finish counts the stage's clusters and keeps at most limit of them, those that need attention
// first; limit 0 keeps them all.
func (s *Stage) finish(limit int) {
	s.Counts = map[State]int{}
	for _, c := range s.Clusters {
		s.Counts[c.State]++
	}
	slices.SortFunc(s.Clusters, func(a, b Cluster) int {
		return cmp.Or(cmp.Compare(slices.Index(clusterOrder, a.State), slices.Index(clusterOrder, b.State)), cmp.Compare(a.Name, b.Name))
	})
	if limit > 0 && len(s.Clusters) > limit {
		s.Clusters = s.Clusters[:limit]
	}
	if s.Clusters == nil {
		s.Clusters = []Cluster{}
	}
}
