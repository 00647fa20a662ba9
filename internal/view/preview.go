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

package view

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

// namesShown is how many cluster names a stage's note spells out.
const namesShown = 5

// selectedClusters is each registered cluster sel picks, not started: paused, unreachable or
// pending. An empty selector picks none, as a stage's does.
func selectedClusters(sel *libv1beta1.Selector, fleet map[string]*libv1beta1.SveltosCluster) []Cluster {
	s, err := sel.ToSelector()
	if err != nil || sel.IsEmpty() {
		return nil
	}
	var out []Cluster
	for name, cl := range fleet {
		if cl.DeletionTimestamp.IsZero() && s.Matches(labels.Set(cl.Labels)) {
			out = append(out, unstarted(name, cl))
		}
	}
	return out
}

// unstarted is the cluster name before a rollout reaches it: paused, unreachable, or pending.
func unstarted(name string, cl *libv1beta1.SveltosCluster) Cluster {
	switch why := WhyUnreachable(cl); {
	case cl != nil && cl.Spec.Paused:
		return Cluster{Name: name, State: Paused, Reason: "paused: nothing is deployed to it and no stage waits for it"}
	case why != "":
		return Cluster{Name: name, State: Unreachable, Reason: why}
	}
	return Cluster{Name: name, State: Pending}
}

// preview says what a stage not reached yet will cover: its clusters, in how many waves of
// maxUpdate, which it leaves out for now (paused; unreachable, with maxUpdate), and which
// unreachable ones it will wait for (without maxUpdate).
func preview(st *Stage, maxUpdate *intstr.IntOrString) {
	var paused, unreachable []string
	for _, c := range st.Clusters {
		switch c.State {
		case Paused:
			paused = append(paused, c.Name)
		case Unreachable:
			unreachable = append(unreachable, c.Name)
		}
	}
	limit, _ := rollout.MaxUpdate(maxUpdate, len(st.Clusters))
	// Without maxUpdate every cluster is in the one wave that starts with the stage, unreachable
	// ones too, and they hold it; with maxUpdate, one unreachable when its wave is picked is left
	// out of it and catches up when it answers.
	inWaves := len(st.Clusters) - len(paused)
	if limit > 0 {
		inWaves -= len(unreachable)
	}
	st.Waves = rollout.WaveCount(inWaves, limit)
	msg := fmt.Sprintf("not reached yet: %s, %s", Plural(len(st.Clusters), "cluster"), Plural(st.Waves, "wave"))
	if limit > 0 {
		msg += fmt.Sprintf(" of up to %d", limit)
	}
	if len(paused) > 0 {
		msg += "; paused, left out: " + nameList(paused)
	}
	switch {
	case len(unreachable) > 0 && limit > 0:
		msg += "; unreachable, left out of its wave and will catch up: " + nameList(unreachable)
	case len(unreachable) > 0:
		msg += "; unreachable, the stage will wait for it: " + nameList(unreachable)
	}
	st.WaitingFor = strings.TrimPrefix(st.WaitingFor+"; "+msg, "; ")
}

// outOfStep marks the clusters of a stage under way or passed that its status lists as paused
// or catching up, and says so in what the stage waits for.
func outOfStep(st *Stage, status *configv1beta1.StageStatus) {
	if status == nil {
		return
	}
	st.CatchingUp = status.CatchingUpClusters
	for i := range st.Clusters {
		c := &st.Clusters[i]
		if slices.Contains(status.CatchingUpClusters, c.Name) && c.State != Paused {
			c.Reason = strings.TrimSuffix("catching up; "+c.Reason, "; ")
		}
	}
	var parts []string
	if st.WaitingFor != "" {
		parts = append(parts, st.WaitingFor)
	}
	if len(status.PausedClusters) > 0 {
		parts = append(parts, "paused, not waited for: "+nameList(status.PausedClusters))
	}
	if len(status.CatchingUpClusters) > 0 {
		parts = append(parts, "catching up, not waited for: "+nameList(status.CatchingUpClusters))
	}
	st.WaitingFor = strings.Join(parts, "; ")
}

// nameList spells out the first few names, sorted, and counts the rest.
func nameList(names []string) string {
	sorted := slices.Sorted(slices.Values(names))
	out := strings.Join(sorted[:min(len(sorted), namesShown)], ", ")
	if more := len(sorted) - namesShown; more > 0 {
		out += fmt.Sprintf(" and %d more", more)
	}
	return out
}
