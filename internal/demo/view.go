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

package demo

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// snapshot is what the promotion and its clusters look like at one moment.
type snapshot struct {
	ready            bool
	awaitingApproval bool
	// stalled is the Stalled condition's message, when it is True.
	stalled string
	// visit identifies the current stage and when the rollout reached it.
	visit  string
	stages []stageView
}

type stageView struct {
	name, state   string
	current, done bool
	clusters      []clusterView
}

type clusterView struct {
	name, version, state string
}

// observe reads the promotion, its stage profiles and their ClusterSummaries.
func observe(ctx context.Context, c client.Client) (*snapshot, error) {
	p := &configv1beta1.ClusterPromotion{}
	if err := c.Get(ctx, client.ObjectKey{Name: promotionName}, p); err != nil {
		return nil, err
	}
	snap := &snapshot{ready: meta.IsStatusConditionTrue(p.Status.Conditions, configv1beta1.PromotionReadyCondition)}
	if cond := meta.FindStatusCondition(p.Status.Conditions, configv1beta1.PromotionStalledCondition); cond != nil && cond.Status == "True" {
		snap.stalled = cond.Message
	}
	if p.Status.LastPromotionTime != nil {
		snap.visit = p.Status.CurrentStageName + "@" + p.Status.LastPromotionTime.String()
	}
	current := slices.IndexFunc(p.Spec.Stages, func(s configv1beta1.Stage) bool { return s.Name == p.Status.CurrentStageName })
	for i, s := range p.Spec.Stages {
		v := stageView{name: s.Name, current: i == current && !snap.ready, state: "waiting for the stages before it"}
		for _, st := range p.Status.Stages {
			if st.Name == s.Name && st.CurrentStatusDescription != nil {
				v.state = unstamped(*st.CurrentStatusDescription)
				if st.FailureMessage != nil && v.current {
					v.state += " — " + *st.FailureMessage
				}
			}
		}
		if i < current {
			v.done, v.state = true, "promoted"
		}
		if v.current && strings.HasPrefix(v.state, "Paused: Awaiting Manual Approval") {
			snap.awaitingApproval = true
		}
		var list configv1beta1.ClusterSummaryList
		if err := c.List(ctx, &list, client.MatchingLabels{configv1beta1.ClusterProfileNameLabel: p.StageProfileName(s.Name)}); err != nil {
			return nil, err
		}
		for i := range list.Items {
			v.clusters = append(v.clusters, clusterOf(&list.Items[i]))
		}
		slices.SortFunc(v.clusters, func(a, b clusterView) int { return strings.Compare(a.name, b.name) })
		snap.stages = append(snap.stages, v)
	}
	return snap, nil
}

func clusterOf(cs *configv1beta1.ClusterSummary) clusterView {
	v := clusterView{name: cs.Spec.ClusterName, state: "Provisioning"}
	if charts := cs.Spec.ClusterProfileSpec.HelmCharts; len(charts) > 0 {
		v.version = charts[0].ChartVersion
	}
	switch {
	case cs.Provisioned():
		v.state = "Provisioned, healthy"
	case cs.Status.FailureMessage != nil:
		v.state = *cs.Status.FailureMessage
	default:
		for _, f := range cs.Status.FeatureSummaries {
			if f.FeatureID != libv1beta1.FeatureHelm {
				continue
			}
			v.state = string(f.Status)
			if f.FailureMessage != nil {
				v.state += ": " + *f.FailureMessage
			}
		}
	}
	return v
}

// stamp is the " (2026-01-02T15:04:05Z)" that ends upstream's status descriptions.
var stamp = regexp.MustCompile(` \(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)$`)

func unstamped(s string) string { return stamp.ReplaceAllString(s, "") }

// lines renders the snapshot as a small table, a line per stage and per cluster.
func (s *snapshot) lines() []string {
	var out []string
	for _, st := range s.stages {
		mark := " "
		switch {
		case st.current:
			mark = "▶"
		case st.done || strings.HasPrefix(st.state, "Successfully provisioned"):
			mark = "✓"
		}
		out = append(out, fmt.Sprintf(" %s %-8s %s", mark, st.name, st.state))
		for _, c := range st.clusters {
			out = append(out, fmt.Sprintf("     └ %-8s webapp %-6s %s", c.name, c.version, c.state))
		}
	}
	if s.stalled != "" {
		out = append(out, "   stalled: "+s.stalled)
	}
	return out
}

// screen shows successive snapshots: on a terminal it redraws them in place; elsewhere (a log,
// CI) it prints a snapshot only when it differs from the last one.
type screen struct {
	out      io.Writer
	terminal bool
	// width cuts lines on a terminal, so that none wraps and redrawing stays in place.
	width int
	last  []string
	// height is how many terminal lines the last block took.
	height int
}

func (sc *screen) show(header string, lines []string) {
	if !sc.terminal && slices.Equal(lines, sc.last) {
		return
	}
	if sc.terminal && sc.height > 0 {
		fmt.Fprintf(sc.out, "\x1b[%dA\x1b[J", sc.height)
	}
	block := append(strings.Split(header, "\n"), lines...)
	for _, l := range block {
		if r := []rune(l); sc.terminal && sc.width > 1 && len(r) >= sc.width {
			l = string(r[:sc.width-2]) + "…"
		}
		fmt.Fprintln(sc.out, l)
	}
	sc.last, sc.height = lines, len(block)
}

// reset makes the next snapshot start a new block instead of redrawing the previous one.
func (sc *screen) reset() { sc.last, sc.height = nil, 0 }
