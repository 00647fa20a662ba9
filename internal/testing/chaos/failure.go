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
	"slices"
	"time"
)

// Failure describes a bad version: its health check fails on some clusters of one stage, whose
// failure budget or progress deadline then fails the version there. What the trial chose, not
// what the controller reported: the verdict checks the controller against it.
type Failure struct {
	// Stage is the index of the stage where the version fails. No later stage may ever run it.
	Stage int
	// Rollback says the promotion has onFailure: Rollback: every stage up to Stage ends back on
	// the last good version, the later stages going back first. Without it (Stop), the
	// earlier stages keep the version.
	Rollback bool
	// Given lists, with Stop, the clusters of the failing stage that end on the version: a
	// promotion's stage profile keeps rolling it out after the promotion stopped, to every
	// cluster it gave the version to. The trial promises nothing of the stage's other clusters.
	Given []string
	// GoodImage and GoodMessage are the last good version: the last one that went through
	// every stage before the trial.
	GoodImage, GoodMessage string
	// Deadline, when set, is the failing stage's progressDeadline under a failure budget the
	// stage cannot exceed: the stage fails at its deadline, not before, so with Rollback
	// nothing goes back earlier than that after the stage started.
	Deadline time.Duration
	// Started is when the trial asked for the version; the first stage starts no earlier.
	Started time.Time
}

// failing follows, stage by stage, the bad version going out and the last good one coming back.
type failing struct {
	f *Failure
	// bad lists the bad version's values, good the last good version's.
	bad, good []field
	// sawBad says a cluster of the stage held a value of the bad version.
	sawBad []bool
	// back is when a value of the good version first came back to the stage after that.
	back []mark
	// backDone is when every cluster of the stage was first settled on the good version after
	// the stage saw the bad one.
	backDone []mark
}

func newFailing(stages int, want Expect) *failing {
	f := want.Failure
	fl := &failing{f: f, sawBad: make([]bool, stages), back: make([]mark, stages), backDone: make([]mark, stages)}
	// A value the bad version shares with the good one (content it left as it was) is neither.
	for _, pair := range [][2]field{{{"image", want.Image}, {"image", f.GoodImage}}, {{"message", want.Message}, {"message", f.GoodMessage}}} {
		if pair[0] != pair[1] {
			fl.bad, fl.good = append(fl.bad, pair[0]), append(fl.good, pair[1])
		}
	}
	return fl
}

// isGood reports whether the value belongs to the last good version of a trial that fails.
func (fl *failing) isGood(f field) bool { return fl != nil && slices.Contains(fl.good, f) }

// arrived takes a value newly held by a cluster of the stage.
func (fl *failing) arrived(stage int, f field, m mark) {
	switch {
	case fl == nil:
	case slices.Contains(fl.bad, f):
		fl.sawBad[stage] = true
	case slices.Contains(fl.good, f) && fl.sawBad[stage] && fl.back[stage].rev == 0:
		fl.back[stage] = m
	}
}

// settled notes, after each write, the stages that are back on the good version.
func (fl *failing) settled(p *replay, m mark) {
	if fl == nil {
		return
	}
	good := Expect{Image: fl.f.GoodImage, Message: fl.f.GoodMessage}
	for k, s := range p.r.Stages {
		if !fl.sawBad[k] || fl.backDone[k].rev != 0 {
			continue
		}
		done := true
		for _, name := range s.Clusters {
			done = done && p.clusters[name].describe(good) == ""
		}
		if done {
			fl.backDone[k] = m
		}
	}
}

// checkFailure verifies what a failing version promises: no stage after the failing one ever
// runs it; with Rollback, a stage goes back only once every later stage that had it is back,
// and not before the failing stage's deadline when its budget can only fail it there.
func (p *replay) checkFailure() {
	fl := p.failing
	if fl == nil {
		return
	}
	f := fl.f
	for k := f.Stage + 1; k < len(p.r.Stages); k++ {
		for _, bad := range fl.bad {
			if m, ok := p.firstSeen[k][bad]; ok {
				p.violate(RuleFailedVersion, "%s %s of the version failing at stage %s reached stage %s at revision %d",
					bad.kind, bad.value, p.r.Stages[f.Stage].Name, p.r.Stages[k].Name, m.rev)
			}
		}
	}
	if !f.Rollback {
		return
	}
	for k := range f.Stage {
		if fl.back[k].rev == 0 {
			continue
		}
		// The nearest later stage that had the version must be back first.
		for j := k + 1; j <= f.Stage; j++ {
			if !fl.sawBad[j] {
				continue
			}
			if done := fl.backDone[j]; done.rev == 0 || done.rev > fl.back[k].rev {
				p.violate(RuleRollback, "stage %s started going back at revision %d before stage %s was back on the last good version (revision %d)",
					p.r.Stages[k].Name, fl.back[k].rev, p.r.Stages[j].Name, done.rev)
			}
			break
		}
	}
	p.checkDeadline()
}

// checkDeadline verifies that a stage that can only fail at its deadline was not given up before
// it: the first value going back comes at least the deadline after the stage could have started.
func (p *replay) checkDeadline() {
	fl, f := p.failing, p.failing.f
	if f.Deadline == 0 {
		return
	}
	var first mark
	stage := 0
	for k := 0; k <= f.Stage; k++ {
		if b := fl.back[k]; b.rev != 0 && (first.rev == 0 || b.rev < first.rev) {
			first, stage = b, k
		}
	}
	if first.rev == 0 {
		return
	}
	// The stage starts after the trial asked for the version, or after the stage before was
	// done with it and soaked.
	from, wait, since := mark{at: f.Started, stamp: f.Started.Truncate(time.Second)}, f.Deadline, "the trial asked for the version"
	if f.Stage > 0 {
		prev := p.r.Stages[f.Stage-1]
		from, wait, since = mark{}, f.Deadline+prev.Soak, "stage "+prev.Name+" was done with the version"
		for _, c := range prev.Clusters {
			for _, bad := range fl.bad {
				if s, ok := p.settledWith[c][bad]; ok && s.rev > from.rev {
					from = s
				}
			}
		}
		if from.rev == 0 {
			return // reported as a stage order violation
		}
	}
	if gap := first.since(from); gap <= wait-SoakTolerance {
		p.violate(RuleDeadline, "stage %s went back at revision %d, %s after %s; stage %s could not fail before %s (soak and progressDeadline %s)",
			p.r.Stages[stage].Name, first.rev, gap.Round(time.Millisecond), since, p.r.Stages[f.Stage].Name, wait, f.Deadline)
	}
}
