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

package chaos

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Rollout says what one rollout deploys and what it promises: its stages in order, which clusters
// each holds, and what each stage's gate demands before the next one starts.
type Rollout struct {
	// Name labels violations ("sveltos", "kubefleet").
	Name string
	// Namespace holds what the rollout deploys on every managed cluster.
	Namespace string
	// Deployment is the Deployment whose first container's image carries the spec version.
	Deployment string
	// ConfigMap and Key hold the content version.
	ConfigMap, Key string
	// HelmRelease, when set, names the Helm release the rollout deploys: a cluster whose latest
	// release revision is not yet deployed (pending, failed) is still being updated.
	HelmRelease string
	// KeepsDone says a cluster done with the version stays done whatever becomes of it, as in a
	// Kubefleet update run, which (like upstream's) does not look at a succeeded cluster again:
	// only a cluster Down while it is updating then holds its stage. Otherwise (a promotion,
	// whose gate wants every cluster of the stage reachable) a done cluster that goes Down holds
	// its stage too.
	KeepsDone bool
	Stages    []Stage
}

// Stage is one stage of a rollout.
type Stage struct {
	Name     string
	Clusters []string
	// MaxInFlight bounds how many of the stage's clusters may be updating at once; 0 means no bound.
	MaxInFlight int
	// Soak is how long the stage must have been done before the next stage starts.
	Soak time.Duration
	// Approval says the next stage starts only after an approval given for the version.
	Approval bool
	// Profile, when set, names the ClusterProfile (on the management cluster) whose spec the
	// rollout writes when it decides the stage starts a version: the revision of that decision
	// is when the rollout judged the stages before, and the down rule judges it there.
	Profile string
}

// Violation is one broken promise.
type Violation struct {
	Rollout string
	Rule    string
	Detail  string
}

func (v Violation) String() string { return v.Rollout + ": " + v.Rule + ": " + v.Detail }

// Rules are the promises Check verifies.
const (
	RuleOrder     = "stage order"
	RuleSoak      = "soak"
	RuleApproval  = "approval"
	RuleInFlight  = "in flight"
	RuleRemoved   = "removed"
	RuleConverged = "converged"
	// Rules of a trial whose version fails (Expect.Failure).
	RuleFailedVersion = "failed version"
	RuleRollback      = "rollback"
	RuleDeadline      = "deadline"
)

// SoakTolerance is how much shorter than a soak the gap between two writes may look. The gap is
// measured on the API servers' own times of the writes (Write.Stamp), which are stored truncated
// to the second: a true gap of at least the soak can look up to a second shorter, never more,
// so a measured gap of a whole second less than the soak or under is a true gap below it. The
// machine's clock is the one every API server of the sandbox reads, and a write's time is taken
// before it commits, so no delivery delay enters the measure.
const SoakTolerance = time.Second

// Expect is what a rollout must end on, and the approvals given along the way.
type Expect struct {
	// Image and Message are the final spec and content versions.
	Image, Message string
	// Approvals maps a version value (an image or a message) to the revision of the approval
	// given for the version that introduced it.
	Approvals map[string]int64
	// Failure, when set, says the version (Image, Message) is bad: it fails at a stage, and
	// the rollout ends as the failure says rather than on the version.
	Failure *Failure
}

// cluster is what the records say of one rollout on one cluster after some write.
type cluster struct {
	deployment *appsv1.Deployment
	// rolledOut is the latest generation of the Deployment seen rolled out on every replica.
	rolledOut  int64
	message    string
	hasMessage bool
	// release is the latest Helm release revision and its status.
	release       int
	releaseStatus string
}

// image is the spec version the cluster runs, "" if none.
func (c *cluster) image() string {
	if c.deployment == nil || len(c.deployment.Spec.Template.Spec.Containers) == 0 {
		return ""
	}
	return c.deployment.Spec.Template.Spec.Containers[0].Image
}

// settled reports whether nothing is being updated on the cluster: the Deployment's current
// generation has been rolled out to every replica and the latest Helm revision, if any, is
// deployed. A replica that becomes unavailable afterwards (its node missed a heartbeat while
// the cluster's API server was down, say) is an outage, not an update.
func (c *cluster) settled() bool {
	if c.release > 0 && c.releaseStatus != "deployed" {
		return false
	}
	return c.deployment == nil || c.deployment.Generation <= c.rolledOut
}

// rolledOut reports whether every replica of the Deployment runs its current spec and is
// available.
func rolledOut(d *appsv1.Deployment) bool {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	s := d.Status
	return s.ObservedGeneration >= d.Generation && s.UpdatedReplicas == want && s.Replicas == want && s.AvailableReplicas == want
}

// mark is when something was first seen: a revision, the recorder's clock and the API
// server's time of the write.
type mark struct {
	rev   int64
	at    time.Time
	stamp time.Time
}

// since is the time from b to a, on the API servers' times when both writes have one.
func (a mark) since(b mark) time.Duration {
	if a.stamp.IsZero() || b.stamp.IsZero() {
		return a.at.Sub(b.at)
	}
	return a.stamp.Sub(b.stamp)
}

// field is one versioned value: the image or the message.
type field struct{ kind, value string }

// replay walks the records of one rollout in revision order.
type replay struct {
	r        *Rollout
	stageOf  map[string]int
	clusters map[string]*cluster
	// firstSeen is, per stage, when each value first appeared on one of its clusters.
	firstSeen []map[field]mark
	// settledWith is, per cluster, when it was first settled while holding each value.
	settledWith map[string]map[field]mark
	violations  []Violation
	inFlightMax []int
	want        Expect
	failing     *failing
}

func newReplay(r *Rollout, want Expect) *replay {
	p := &replay{r: r, want: want, stageOf: map[string]int{}, clusters: map[string]*cluster{}, settledWith: map[string]map[field]mark{}}
	for i, s := range r.Stages {
		for _, c := range s.Clusters {
			p.stageOf[c] = i
			p.clusters[c] = &cluster{}
			p.settledWith[c] = map[field]mark{}
		}
		p.firstSeen = append(p.firstSeen, map[field]mark{})
	}
	p.inFlightMax = make([]int, len(r.Stages))
	if want.Failure != nil {
		p.failing = newFailing(len(r.Stages), want)
	}
	return p
}

func (p *replay) violate(rule, format string, args ...any) {
	p.violations = append(p.violations, Violation{Rollout: p.r.Name, Rule: rule, Detail: fmt.Sprintf(format, args...)})
}

// apply takes one write into the state. initial writes describe the state before the trial.
func (p *replay) apply(w Write, initial bool) {
	stage, ok := p.stageOf[w.Cluster]
	if !ok || w.Namespace != p.r.Namespace {
		return
	}
	c := p.clusters[w.Cluster]
	before := c.fields()
	switch {
	case w.Resource == "deployments" && w.Name == p.r.Deployment:
		if w.Deleted {
			p.violate(RuleRemoved, "Deployment %s/%s was deleted from %s at revision %d", w.Namespace, w.Name, w.Cluster, w.Rev)
			c.deployment, c.rolledOut = nil, 0
		} else if d, ok := w.Object.(*appsv1.Deployment); ok {
			c.deployment = d
			if rolledOut(d) {
				c.rolledOut = max(c.rolledOut, d.Generation)
			}
		}
	case w.Resource == "configmaps" && w.Name == p.r.ConfigMap:
		if w.Deleted {
			p.violate(RuleRemoved, "ConfigMap %s/%s was deleted from %s at revision %d", w.Namespace, w.Name, w.Cluster, w.Rev)
			c.message, c.hasMessage = "", false
		} else if cm, ok := w.Object.(*corev1.ConfigMap); ok {
			c.message, c.hasMessage = cm.Data[p.r.Key], true
		}
	case w.Resource == "secrets" && p.r.HelmRelease != "" && !w.Deleted:
		p.applyRelease(c, w)
	default:
		return
	}
	if initial {
		return
	}
	m := mark{rev: w.Rev, at: w.At, stamp: w.Stamp}
	for _, f := range c.fields() {
		if !slices.Contains(before, f) {
			if _, seen := p.firstSeen[stage][f]; !seen {
				p.firstSeen[stage][f] = m
			}
			p.failing.arrived(stage, f, m)
		}
	}
	if c.settled() {
		for _, f := range c.fields() {
			if _, ok := p.settledWith[w.Cluster][f]; !ok {
				p.settledWith[w.Cluster][f] = m
			}
		}
	}
	p.checkInFlight(stage, w)
	p.failing.settled(p, m)
}

// applyRelease follows Helm's release records: Secrets labelled owner=helm and name=<release>.
func (p *replay) applyRelease(c *cluster, w Write) {
	s, ok := w.Object.(*corev1.Secret)
	if !ok || s.Labels["owner"] != "helm" || s.Labels["name"] != p.r.HelmRelease {
		return
	}
	var version int
	if _, err := fmt.Sscan(s.Labels["version"], &version); err != nil || version < c.release {
		return
	}
	c.release, c.releaseStatus = version, s.Labels["status"]
}

// fields lists the versioned values the cluster holds.
func (c *cluster) fields() []field {
	var fs []field
	if img := c.image(); img != "" {
		fs = append(fs, field{"image", img})
	}
	if c.hasMessage {
		fs = append(fs, field{"message", c.message})
	}
	return fs
}

func (p *replay) checkInFlight(stage int, w Write) {
	s := p.r.Stages[stage]
	if s.MaxInFlight == 0 {
		return
	}
	var busy []string
	for _, name := range s.Clusters {
		if !p.clusters[name].settled() {
			busy = append(busy, name)
		}
	}
	if len(busy) > s.MaxInFlight && len(busy) > p.inFlightMax[stage] {
		p.violate(RuleInFlight, "stage %s had %d clusters updating at revision %d (%s), more than %d",
			s.Name, len(busy), w.Rev, strings.Join(busy, ", "), s.MaxInFlight)
	}
	p.inFlightMax[stage] = max(p.inFlightMax[stage], len(busy))
}

// checkGates verifies that every value reached a stage only after the stage before it was done
// with it, soaked and, where asked, approved for it.
func (p *replay) checkGates(approvals map[string]int64) {
	for k := 1; k < len(p.r.Stages); k++ {
		prev := p.r.Stages[k-1]
		fields := slices.SortedFunc(maps.Keys(p.firstSeen[k]), func(a, b field) int {
			return strings.Compare(a.kind+"\x00"+a.value, b.kind+"\x00"+b.value)
		})
		for _, f := range fields {
			if p.failing.isGood(f) {
				continue // going back, without gates
			}
			first := p.firstSeen[k][f]
			var done mark
			for _, c := range prev.Clusters {
				s, ok := p.settledWith[c][f]
				if !ok || s.rev > first.rev {
					p.violate(RuleOrder, "%s %s reached stage %s at revision %d before %s (stage %s) was done with it",
						f.kind, f.value, p.r.Stages[k].Name, first.rev, c, prev.Name)
					done = mark{}
					break
				}
				if s.rev > done.rev {
					done = s
				}
			}
			if done.rev > 0 && prev.Soak > 0 && first.since(done) <= prev.Soak-SoakTolerance {
				p.violate(RuleSoak, "%s %s reached stage %s %s after stage %s was done with it (revisions %d, %d); the soak is %s",
					f.kind, f.value, p.r.Stages[k].Name, first.since(done).Round(time.Millisecond), prev.Name, done.rev, first.rev, prev.Soak)
			}
			if prev.Approval {
				if a, ok := approvals[f.value]; !ok || a > first.rev {
					p.violate(RuleApproval, "%s %s reached stage %s at revision %d without an approval given for it (approval at revision %d)",
						f.kind, f.value, p.r.Stages[k].Name, first.rev, a)
				}
			}
		}
	}
}

// checkFinal verifies that every cluster ends settled on the versions it must end on.
func (p *replay) checkFinal(want Expect) {
	for k, s := range p.r.Stages {
		for _, name := range s.Clusters {
			end, rule, ok := finalWant(want, k, name)
			if !ok {
				continue
			}
			if d := p.clusters[name].describe(end); d != "" {
				p.violate(rule, "%s ends %s", name, d)
			}
		}
	}
}

// finalWant says what cluster, of stage k, must end on, and the rule broken otherwise; ok is
// false when the trial promises nothing of what it ends on.
func finalWant(want Expect, k int, cluster string) (end Expect, rule string, ok bool) {
	switch f := want.Failure; {
	case f == nil:
		return want, RuleConverged, true
	case f.Rollback && k <= f.Stage:
		return Expect{Image: f.GoodImage, Message: f.GoodMessage}, RuleRollback, true
	case !f.Rollback && (k < f.Stage || k == f.Stage && slices.Contains(f.Given, cluster)):
		return want, RuleConverged, true
	}
	return Expect{}, "", false
}

// describe says how the cluster differs from want, "" if it does not.
func (c *cluster) describe(want Expect) string {
	switch {
	case c.image() != want.Image:
		return fmt.Sprintf("on image %q, want %q", c.image(), want.Image)
	case c.message != want.Message:
		return fmt.Sprintf("on message %q, want %q", c.message, want.Message)
	case !c.settled():
		return "still updating"
	}
	return ""
}

// replayed is the replay of rollout r from the state before the trial (initial) through the
// writes made during it.
func replayed(r *Rollout, initial, writes []Write, want Expect) *replay {
	p := newReplay(r, want)
	for _, w := range initial {
		p.apply(w, true)
	}
	for _, w := range writes {
		p.apply(w, false)
	}
	return p
}

// Check replays the records of one rollout, from the state before the trial (initial) through
// the writes made during it, and returns every promise broken.
func Check(r *Rollout, initial, writes []Write, want Expect) []Violation {
	p := replayed(r, initial, writes, want)
	p.checkGates(want.Approvals)
	p.checkFailure()
	p.checkFinal(want)
	return p.violations
}

// Pending says which clusters of the rollout are not yet settled on what they must end on (see
// Expect.Failure), "" when none: a trial waits for it to be empty before judging.
func Pending(r *Rollout, initial, writes []Write, want Expect) string {
	p := newReplay(r, Expect{})
	for _, w := range initial {
		p.apply(w, true)
	}
	for _, w := range writes {
		p.apply(w, true)
	}
	var out []string
	for k, s := range r.Stages {
		for _, name := range s.Clusters {
			end, _, ok := finalWant(want, k, name)
			if !ok {
				continue
			}
			if d := p.clusters[name].describe(end); d != "" {
				out = append(out, name+" "+d)
			}
		}
	}
	return strings.Join(out, "; ")
}

// Records lists the writes of rollout r (to its namespace, and to its stage profiles), a line
// each, for a person reading a violation.
func Records(writes []Write, r *Rollout) string {
	profiles := map[string]bool{}
	for _, s := range r.Stages {
		profiles[s.Profile] = s.Profile != ""
	}
	var b strings.Builder
	for _, w := range writes {
		if w.Resource == "clusterprofiles" && profiles[w.Name] {
			fmt.Fprintf(&b, "%d %s %s clusterprofiles/%s", w.Rev, w.At.Format("15:04:05.000"), w.Cluster, w.Name)
			if m, ok := w.Object.(*metav1.PartialObjectMetadata); ok {
				fmt.Fprintf(&b, " generation %d", m.Generation)
			} else {
				b.WriteString(" deleted")
			}
			b.WriteByte('\n')
			continue
		}
		if w.Namespace != r.Namespace {
			continue
		}
		fmt.Fprintf(&b, "%d %s (%s) %s %s/%s", w.Rev, w.At.Format("15:04:05.000"), w.Stamp.Format("15:04:05"), w.Cluster, w.Resource, w.Name)
		switch o := w.Object.(type) {
		case nil:
			b.WriteString(" deleted")
		case *appsv1.Deployment:
			s := o.Status
			fmt.Fprintf(&b, " generation %d observed %d replicas %d updated %d available %d", o.Generation, s.ObservedGeneration, s.Replicas, s.UpdatedReplicas, s.AvailableReplicas)
			if len(o.Spec.Template.Spec.Containers) > 0 {
				b.WriteString(" image " + o.Spec.Template.Spec.Containers[0].Image)
			}
		case *corev1.ConfigMap:
			fmt.Fprintf(&b, " data %v", o.Data)
		case *corev1.Secret:
			fmt.Fprintf(&b, " labels %v", o.Labels)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
