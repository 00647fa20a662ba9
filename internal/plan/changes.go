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

package plan

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/stagecoach-dev/stagecoach/internal/deploy/helm"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/render"
)

// Change is what a rollout would change on one cluster, from a dry run against it.
type Change struct {
	// Summary says it in one line: "1 to create, 2 to update; upgrade kyverno/kyverno 3.5.2 ->
	// 3.6.2", "no change", or why there is no preview.
	Summary  string          `json:"summary"`
	Objects  []ObjectChange  `json:"objects,omitempty"`
	Releases []ReleaseChange `json:"releases,omitempty"`
	// Error is set when the cluster could not be dry-run (unreachable, content missing...).
	Error string `json:"error,omitempty"`
}

// ObjectChange is one object a dry run would create, update or delete, or leave to a winning
// owner (Conflict).
type ObjectChange struct {
	Action string `json:"action"`
	Object string `json:"object"`
	// Changes are the changed fields of an update, "~ path: old -> new", "+ path: value",
	// "- path: value"; Secret values redacted.
	Changes []string `json:"changes,omitempty"`
	Message string   `json:"message,omitempty"`
}

// ReleaseChange is what a dry run would do to one Helm release.
type ReleaseChange struct {
	Action  string `json:"action"`
	Release string `json:"release"` // namespace/name
	From    string `json:"from,omitempty"`
	To      string `json:"to,omitempty"`
	// Diff is the unified diff of the rendered manifests; empty when they stay the same.
	Diff string `json:"diff,omitempty"`
}

// changes dry-runs each cluster with preview, at most Concurrency at once, each within Timeout.
// Without a fleet connection there is nothing to dry-run against: nil.
func (p *Planner) changes(ctx context.Context, clusters []string, preview func(context.Context, string) (Change, error)) map[string]Change {
	if p.Clusters == nil || len(clusters) == 0 {
		return nil
	}
	out := make(map[string]Change, len(clusters))
	var mu sync.Mutex
	g := errgroup.Group{}
	g.SetLimit(cmp.Or(p.Concurrency, 8))
	timeout := cmp.Or(p.Timeout, 30*time.Second)
	for _, cluster := range clusters {
		g.Go(func() error {
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			ch, err := preview(ctx, cluster)
			if err != nil {
				msg := err.Error()
				if ce, ok := fleet.AsClusterError(err); ok {
					msg = ce.Message
				}
				ch = Change{Summary: "no preview: " + msg, Error: msg}
			}
			mu.Lock()
			out[cluster] = ch
			mu.Unlock()
			return nil
		})
	}
	_ = g.Wait()
	return out
}

func summaryChange(pv render.SummaryChanges) Change {
	ch := objectsChange(pv.Objects)
	var releases []string
	for _, r := range pv.Releases {
		rc := ReleaseChange{Action: string(r.Action), Release: r.Namespace + "/" + r.Release, From: r.FromVersion, To: r.ToVersion, Diff: r.Diff}
		ch.Releases = append(ch.Releases, rc)
		if r.Action != helm.PlanNoChange {
			releases = append(releases, rc.describe())
		}
	}
	if len(releases) > 0 {
		parts := append([]string{}, releases...)
		if len(ch.Objects) > 0 {
			parts = append([]string{ch.Summary}, parts...)
		}
		ch.Summary = strings.Join(parts, "; ")
	}
	return ch
}

func objectsChange(diffs []manifests.Diff) Change {
	var ch Change
	counts := map[manifests.DiffAction]int{}
	for _, d := range diffs {
		counts[d.Action]++
		ch.Objects = append(ch.Objects, ObjectChange{Action: string(d.Action), Object: d.Object.String(), Changes: d.Changes, Message: d.Message})
	}
	var parts []string
	for _, a := range []manifests.DiffAction{manifests.DiffCreate, manifests.DiffUpdate, manifests.DiffDelete, manifests.DiffConflict} {
		if counts[a] > 0 {
			parts = append(parts, fmt.Sprintf("%d to %s", counts[a], strings.ToLower(string(a))))
		}
	}
	ch.Summary = "no change"
	if len(parts) > 0 {
		ch.Summary = strings.Join(parts, ", ")
	}
	return ch
}

// describe: "upgrade kyverno/kyverno 3.5.2 -> 3.6.2", "install cert-manager/cert-manager 1.16.1".
func (r ReleaseChange) describe() string {
	s := strings.ToLower(r.Action) + " " + r.Release
	switch {
	case r.From != "" && r.To != "" && r.From != r.To:
		s += " " + r.From + " -> " + r.To
	case r.To != "":
		s += " " + r.To
	case r.From != "":
		s += " " + r.From
	}
	return s
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
