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

// Package chaos judges crash trials. A Recorder follows the storage of a sandbox fleet (one etcd

package chaos

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RuleDown is the promise about a cluster marked Down in the middle of its wave: a cluster that
// had the version (being updated, or done and soaking; only being updated with KeepsDone) keeps
// its stage from passing until it answers again, and one being updated keeps its slot, so no
// more of its stage update than the bound, it included.
const RuleDown = "down"

// Outage is a span of revisions during which a dialect reported Cluster Down (a SveltosCluster's
// connectionStatus, a MemberCluster's Joined condition), until its API server answered again.
type Outage struct {
	// Rollout names the rollout of the dialect that reported it.
	Rollout string
	Cluster string
	// From is the revision of the status that said Down; To the first revision after the API
	// server was back.
	From, To int64
}

// CheckDown replays the records of r and checks RuleDown for each of r's outages.
func CheckDown(r *Rollout, initial, writes []Write, want Expect, outages []Outage) []Violation {
	var found []Violation
	for _, o := range outages {
		if o.Rollout == r.Name {
			found = append(found, checkDown(r, initial, writes, want, o)...)
		}
	}
	return found
}

func checkDown(r *Rollout, initial, writes []Write, want Expect, o Outage) []Violation {
	p := newReplay(r, want)
	stage, ok := p.stageOf[o.Cluster]
	if !ok {
		return nil
	}
	decided := decisions{}
	for _, w := range initial {
		decided.take(w)
		p.apply(w, true)
	}
	var out []Violation
	violate := func(format string, args ...any) {
		p.violations = nil
		p.violate(RuleDown, format, args...)
		out = append(out, p.violations...)
	}
	values := versionValues(want)
	judged, had, busy := false, false, false
	for _, w := range writes {
		if !judged && w.Rev > o.From {
			judged = true
			c := p.clusters[o.Cluster]
			// A later stage that already holds the version has passed this one before the outage.
			had = hasVersion(c, values) && !laterHolds(p, r, stage, values)
			busy = had && !c.settled()
			if r.KeepsDone {
				had = busy
			}
		}
		decided.take(w)
		later, ok := p.stageOf[w.Cluster]
		newly := ok && w.Namespace == r.Namespace && !hasVersion(p.clusters[w.Cluster], values)
		p.apply(w, false)
		if !judged || w.Rev >= o.To {
			continue
		}
		if had && newly && later > stage && hasVersion(p.clusters[w.Cluster], values) {
			// A stage the rollout decided to start before the status said Down was started
			// on what the rollout could know: it carries out that decision afterwards.
			at, known := decided.at(r.Stages[later].Profile)
			if known && at < o.From {
				continue
			}
			why := ""
			if known {
				why = fmt.Sprintf(", decided at revision %d", at)
			}
			violate("%s got the version at revision %d%s while %s, which had it, was Down (revisions %d to %d)", w.Cluster, w.Rev, why, o.Cluster, o.From, o.To)
			return out
		}
		if s := r.Stages[stage]; busy && later == stage && s.MaxInFlight > 0 {
			updating := []string{o.Cluster}
			for _, name := range s.Clusters {
				if name != o.Cluster && !p.clusters[name].settled() {
					updating = append(updating, name)
				}
			}
			if len(updating) > s.MaxInFlight {
				violate("stage %s had %s updating at revision %d while %s held its slot Down, more than %d", s.Name,
					strings.Join(updating, ", "), w.Rev, o.Cluster, s.MaxInFlight)
				return out
			}
		}
	}
	return out
}

// decisions follows the stage profiles' writes: per profile, its generation and the revision
// of the first write of that generation, the moment the rollout decided what the stage runs.
type decisions map[string]decision

// decision is a profile's spec as the rollout last decided it: its generation, and the revision
// of the first write that carried it.
type decision struct{ generation, rev int64 }

func (d decisions) take(w Write) {
	if w.Resource != "clusterprofiles" {
		return
	}
	if w.Deleted || w.Object == nil {
		delete(d, w.Name)
		return
	}
	gen := w.Object.(*metav1.PartialObjectMetadata).Generation
	if cur, ok := d[w.Name]; !ok || cur.generation != gen {
		d[w.Name] = decision{gen, w.Rev}
	}
}

// at is the revision of the decision that set the profile's current spec.
func (d decisions) at(profile string) (int64, bool) {
	cur, ok := d[profile]
	return cur.rev, ok && profile != ""
}

// versionValues are the values the version brings: its image and content, less those it shares
// with the last good version (a bad version that leaves the content as it was).
func versionValues(want Expect) []field {
	var out []field
	if f := want.Failure; f == nil || want.Image != f.GoodImage {
		out = append(out, field{"image", want.Image})
	}
	if f := want.Failure; f == nil || want.Message != f.GoodMessage {
		out = append(out, field{"message", want.Message})
	}
	return out
}

// hasVersion reports whether the cluster holds one of the version's values.
func hasVersion(c *cluster, values []field) bool {
	fields := c.fields()
	return slices.ContainsFunc(values, func(v field) bool { return slices.Contains(fields, v) })
}

// laterHolds reports whether a cluster of a stage after stage holds one of the values.
func laterHolds(p *replay, r *Rollout, stage int, values []field) bool {
	for _, s := range r.Stages[stage+1:] {
		for _, name := range s.Clusters {
			if hasVersion(p.clusters[name], values) {
				return true
			}
		}
	}
	return false
}
