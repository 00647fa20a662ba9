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

package dashboard

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/operate"
	"github.com/stagecoach-dev/stagecoach/internal/view"
)

// rolloutBody is one rollout as a pipeline: its stages left to right, with their clusters.
type rolloutBody struct {
	Rollout *view.Rollout
	// Base is the rollout's page, to which its actions post.
	Base   string
	Stages []stageBody
	Events []event
	// The actions the rollout offers as a whole: suspend a promotion, stop a run, resume either.
	Suspend, Stop, Resume bool
	// RollbackTo offers to roll a promotion back to this version, its last known good one.
	RollbackTo string
	// RollbackIndices offer to put a run's Placement back on one of these resource snapshot
	// indices, newest first.
	RollbackIndices []int
	Placement       string
	// History is a promotion's status.history, newest first.
	History []historyVersion
	// Retry offers to retry, with these words: the failed clusters of a promotion's stage, or a
	// failed run from its failed stage.
	Retry string
}

// stageBody is one stage of the pipeline.
type stageBody struct {
	*view.Stage
	// ID makes the stage's elements addressable in the page.
	ID          string
	Done, Total int
	// Bars split the stage's clusters by state, in proportion.
	Bars []bar
	// Groups are the clusters shown as tiles: failing, updating, not started, done. A stage
	// larger than the tile limit shows only the clusters that need attention first.
	Groups []group
	// More is how many clusters the tiles leave out.
	More int
	// Approve offers to approve the stage.
	Approve bool
}

// bar is one state's part of a stage's bar, as a percentage of its width from Offset.
type bar struct {
	State           view.State
	Count           int
	Offset, Percent float64
}

type group struct {
	Label string
	Tiles []tile
}

type tile struct {
	view.Cluster
	Href string
}

func (s *Server) promotion(r *http.Request) (*pageData, error) {
	ctx, name := r.Context(), r.PathValue("name")
	p, err := operate.Promotion(ctx, s.read(ctx), name)
	if err != nil {
		return nil, err
	}
	ro, err := view.Promotion(ctx, s.read(ctx), name, view.Options{MaxClusters: s.opts.TileLimit})
	if err != nil {
		return nil, err
	}
	body := s.rolloutBody(ro, "/promotions/"+url.PathEscape(name), sveltosClusterHref)
	body.History = timeline(view.PromotionHistoryOf(p))
	if s.actsFor(ctx) {
		for i := range body.Stages {
			body.Stages[i].Approve = approvable(p, body.Stages[i].Name)
		}
		body.Suspend, body.Resume = !p.Spec.Suspend, p.Spec.Suspend
		if rolling, err := operate.CanRollBack(p); err == nil && !rolling {
			body.RollbackTo = view.Version(p.Status.LastKnownGood.ProfileSpecHash)
		}
		if _, err := operate.RetryableClusters(ctx, s.read(ctx), p); err == nil {
			body.Retry = "Retry stage " + p.Status.CurrentStageName
		}
	}
	refs := []objectRef{{Kind: "ClusterPromotion", Name: name}}
	for _, st := range p.Spec.Stages {
		refs = append(refs, objectRef{Kind: "ClusterProfile", Name: p.StageProfileName(st.Name)})
	}
	if body.Events, err = s.events(ctx, refs); err != nil {
		return nil, err
	}
	return &pageData{Title: "ClusterPromotion " + name, Crumbs: []crumb{{Text: "ClusterPromotion " + name}}, Body: body}, nil
}

// approvable says whether the promotion waits for an approval of stage that has not been given.
func approvable(p *configv1beta1.ClusterPromotion, stage string) bool {
	i, err := operate.ApprovableStage(p, stage, false)
	if err != nil {
		return false
	}
	a := p.Spec.Stages[i].Trigger.Manual.Approved
	return a == nil || !*a
}

func (s *Server) profile(r *http.Request) (*pageData, error) {
	ctx, name := r.Context(), r.PathValue("name")
	ro, err := view.Profile(ctx, s.read(ctx), "", name, view.Options{MaxClusters: s.opts.TileLimit})
	if err != nil {
		return nil, err
	}
	body := s.rolloutBody(ro, "/profiles/"+url.PathEscape(name), sveltosClusterHref)
	if body.Events, err = s.events(ctx, []objectRef{{Kind: "ClusterProfile", Name: name}}); err != nil {
		return nil, err
	}
	return &pageData{Title: "ClusterProfile " + name, Crumbs: []crumb{{Text: "ClusterProfile " + name}}, Body: body}, nil
}

func (s *Server) run(r *http.Request) (*pageData, error) {
	ctx, namespace, name := r.Context(), r.PathValue("namespace"), r.PathValue("name")
	run, err := operate.Run(ctx, s.read(ctx), namespace, name)
	if err != nil {
		return nil, err
	}
	ro, err := view.Run(ctx, s.read(ctx), namespace, name, view.Options{MaxClusters: s.opts.TileLimit})
	if err != nil {
		return nil, err
	}
	body := s.rolloutBody(ro, runHref(namespace, name), memberClusterHref)
	if s.actsFor(ctx) {
		for i := range body.Stages {
			task, err := operate.PendingApproval(run, body.Stages[i].Name)
			body.Stages[i].Approve = err == nil && task != ""
		}
		if !ro.State.Final() {
			stopped := run.UpdateRunSpec().State == placementv1beta1.StateStop
			body.Stop, body.Resume = !stopped, stopped
		}
		if body.RollbackIndices, err = s.rollbackIndices(ctx, run); err != nil {
			return nil, err
		}
		body.Placement = placementv1beta1.FamilyOf(run).PlacementKind() + " " + run.UpdateRunSpec().PlacementName
		if stage, err := operate.RetryableStage(run); err == nil {
			body.Retry = "Retry from stage " + stage
		}
	}
	kind := placementv1beta1.FamilyOf(run).UpdateRunKind()
	if body.Events, err = s.events(ctx, []objectRef{{Kind: kind, Namespace: namespace, Name: name}}); err != nil {
		return nil, err
	}
	title := kind + " " + name
	if namespace != "" {
		title = kind + " " + namespace + "/" + name
	}
	return &pageData{Title: title, Crumbs: []crumb{{Text: title}}, Body: body}, nil
}

// rollbackIndices are the resource snapshot indices, newest first, that the run's placement can
// go back to: those below the run's own that a run of the placement rolled out to the end.
func (s *Server) rollbackIndices(ctx context.Context, run placementv1beta1.UpdateRunObj) ([]int, error) {
	current, err := strconv.Atoi(snapshotIndex(run))
	if err != nil {
		return nil, nil // the run has not resolved its index yet
	}
	runs := placementv1beta1.FamilyOf(run).NewUpdateRunList()
	if err := s.read(ctx).List(ctx, runs, client.InNamespace(run.GetNamespace())); err != nil {
		return nil, err
	}
	var out []int
	for _, r := range runs.UpdateRunObjs() {
		if r.UpdateRunSpec().PlacementName != run.UpdateRunSpec().PlacementName {
			continue
		}
		if state, _ := view.RunState(r); state != view.Succeeded {
			continue
		}
		if i, err := strconv.Atoi(snapshotIndex(r)); err == nil && i < current && !slices.Contains(out, i) {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	slices.Reverse(out)
	return out, nil
}

// snapshotIndex is the resource snapshot index the run rolls out, as it resolved it.
func snapshotIndex(run placementv1beta1.UpdateRunObj) string {
	return cmp.Or(run.UpdateRunStatus().ResourceSnapshotIndexUsed, run.UpdateRunSpec().ResourceSnapshotIndex)
}

// runHref is the page of the update run namespace/name.
func runHref(namespace, name string) string {
	if namespace == "" {
		return "/runs/" + url.PathEscape(name)
	}
	return "/namespaces/" + url.PathEscape(namespace) + "/runs/" + url.PathEscape(name)
}

// sveltosClusterHref is the page of a SveltosCluster named "<namespace>/<name>".
func sveltosClusterHref(name string) string {
	ns, n, _ := strings.Cut(name, "/")
	return "/clusters/" + url.PathEscape(ns) + "/" + url.PathEscape(n)
}

// memberClusterHref is the page of a MemberCluster.
func memberClusterHref(name string) string { return "/memberclusters/" + url.PathEscape(name) }

// stateOrder ranks states for the bars, from done to not started, failures last.
var stateOrder = []view.State{view.Succeeded, view.RolledBack, view.RollingBack, view.Progressing, view.Waiting,
	view.Suspended, view.Pending, view.Paused, view.Unreachable, view.Failed}

// rolloutBody lays the rollout out as a pipeline; href links a cluster's name to its page.
func (s *Server) rolloutBody(ro *view.Rollout, base string, href func(string) string) *rolloutBody {
	body := &rolloutBody{Rollout: ro, Base: base}
	for i := range ro.Stages {
		st := &ro.Stages[i]
		sb := stageBody{Stage: st, ID: "stage-" + st.Name, Done: st.Counts[view.Succeeded], Total: st.Total()}
		sb.More = sb.Total - len(st.Clusters)
		offset := 0.0
		for _, state := range stateOrder {
			if n := st.Counts[state]; n > 0 {
				pct := 100 * float64(n) / float64(sb.Total)
				sb.Bars = append(sb.Bars, bar{State: state, Count: n, Offset: offset, Percent: pct})
				offset += pct
			}
		}
		sb.Groups = groups(st, href, sb.More > 0)
		body.Stages = append(body.Stages, sb)
	}
	return body
}

// groups sorts a stage's tiles into what needs attention, what is updating (the wave under
// way), what has not started (the waves to come) and what is done. A stage whose tiles are
// only its first clusters (partial) keeps them in one group, in the order they came.
func groups(st *view.Stage, href func(string) string, partial bool) []group {
	tiles := func(cs []view.Cluster) []tile {
		out := make([]tile, len(cs))
		for i, c := range cs {
			out[i] = tile{Cluster: c, Href: href(c.Name)}
		}
		return out
	}
	if partial {
		return []group{{Label: fmt.Sprintf("The %d clusters that need attention first", len(st.Clusters)), Tiles: tiles(st.Clusters)}}
	}
	var failing, updating, waiting, paused, done []view.Cluster
	for _, c := range st.Clusters {
		switch c.State {
		case view.Paused:
			paused = append(paused, c)
		case view.Failed, view.Unreachable:
			failing = append(failing, c)
		case view.Progressing, view.Waiting, view.RollingBack:
			updating = append(updating, c)
		case view.Succeeded, view.RolledBack:
			done = append(done, c)
		default:
			waiting = append(waiting, c)
		}
	}
	var out []group
	add := func(label string, cs []view.Cluster) {
		if len(cs) > 0 {
			slices.SortFunc(cs, func(a, b view.Cluster) int { return cmp.Compare(a.Name, b.Name) })
			out = append(out, group{Label: label, Tiles: tiles(cs)})
		}
	}
	add("Failing", failing)
	if st.Wave > 0 {
		add(fmt.Sprintf("Updating, %d at a time", st.Wave), updating)
		add(fmt.Sprintf("Not started: %s of up to %d", view.Plural((len(waiting)+st.Wave-1)/st.Wave, "wave"), st.Wave), waiting)
	} else {
		add("Updating", updating)
		add("Not started", waiting)
	}
	add("Done", done)
	add("Paused: left out, not waited for", paused)
	return out
}
