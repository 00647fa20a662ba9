//go:build e2e

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
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/chaos"
)

// failPlan is how a trial's version fails in the Sveltos dialect: its health check fails on
// some clusters of one stage, and the stage's failure budget or deadline fails the version.
type failPlan struct {
	rollout *chaos.Rollout
	// stage indexes the rollout's stages; clusters are those of its clusters that fail.
	stage    int
	clusters []string
	rollback bool
	// maxFailures is the stage's budget. With a deadline it is every cluster of the stage, so
	// that only the deadline can fail it; otherwise it is below what the stage's wave can hold
	// failing at once, so that the budget fails it.
	maxFailures int
	deadline    time.Duration
}

// planFailure says whether version v fails and how: every even trial (so that the two trials
// of `make test` have one) and a quarter of the odd ones, at a random stage, rolled back in
// three failing trials out of five, failed by its deadline in one out of three.
func (e *env) planFailure(v int) *failPlan {
	rng := e.rng(v, "failure")
	if v == 0 || (v%2 == 1 && rng.Float64() >= 0.25) {
		return nil
	}
	return newPlan(rng, rollouts[0])
}

// newPlan picks where and how a bad version of rollout r fails.
func newPlan(rng *rand.Rand, r *chaos.Rollout) *failPlan {
	stages := r.Stages
	p := &failPlan{rollout: r, stage: rng.IntN(len(stages)), rollback: rng.Float64() < 0.6}
	st := stages[p.stage]
	perm := rng.Perm(len(st.Clusters))[:1+rng.IntN(len(st.Clusters))]
	for _, i := range perm {
		p.clusters = append(p.clusters, st.Clusters[i])
	}
	slices.Sort(p.clusters)
	if rng.IntN(3) == 0 {
		p.maxFailures, p.deadline = len(st.Clusters), time.Duration(2+rng.IntN(4))*time.Second
		return p
	}
	// A failing cluster keeps its slot, so at most MaxInFlight of them fail at once.
	atOnce := len(p.clusters)
	if st.MaxInFlight > 0 {
		atOnce = min(atOnce, st.MaxInFlight)
	}
	p.maxFailures = rng.IntN(atOnce)
	return p
}

func (p *failPlan) String() string {
	if p == nil {
		return "good version"
	}
	how := fmt.Sprintf("maxFailures %d", p.maxFailures)
	if p.deadline > 0 {
		how += fmt.Sprintf(", progressDeadline %s", p.deadline)
	}
	then := "stop"
	if p.rollback {
		then = "roll back"
	}
	return fmt.Sprintf("%s failing on %v at stage %s (%s), then %s", p.rollout.Name, p.clusters, p.rollout.Stages[p.stage].Name, how, then)
}

// onFailure is the promotion's onFailure line, none for a good version.
func (p *failPlan) onFailure() string {
	switch {
	case p == nil:
		return ""
	case p.rollback:
		return "onFailure: Rollback"
	}
	return "onFailure: Stop"
}

// failingClusters names the clusters the version fails on.
func (p *failPlan) failingClusters() []string {
	if p == nil {
		return nil
	}
	return p.clusters
}

// budget is what stage i of the promotion adds: the failing stage's budget and deadline.
func (p *failPlan) budget(i int) string {
	if p == nil || p.stage != i {
		return ""
	}
	out := fmt.Sprintf("\n    maxFailures: %d", p.maxFailures)
	if p.deadline > 0 {
		out += fmt.Sprintf("\n    progressDeadline: %s", p.deadline)
	}
	return out
}

// expect is what the verdict checks of the Sveltos rollout of version v, good being the last
// version that went through every stage and started when the trial asked for v.
func (p *failPlan) expect(want chaos.Expect, good int, started time.Time) chaos.Expect {
	if p == nil {
		return want
	}
	want.Failure = &chaos.Failure{Stage: p.stage, Rollback: p.rollback, GoodImage: image(good), GoodMessage: message(good), Started: started}
	if p.rollback {
		want.Failure.Deadline = p.deadline
	}
	return want
}

// settled waits until the promotion says version v failed and, with rollback, was rolled back;
// then until the records show every cluster where the verdict wants it. Stagecoach's status
// only says when to judge: the verdict reads the records.
func (e *env) settled(ctx context.Context, v int, p *failPlan, generation int64, want chaos.Expect) error {
	outcome := configv1beta1.OutcomeFailed
	if p.rollback {
		outcome = configv1beta1.OutcomeRolledBack
	}
	if err := e.outcome(ctx, v, generation, outcome); err != nil {
		return err
	}
	if !p.rollback {
		given, err := e.given(ctx, p)
		if err != nil {
			return err
		}
		want.Failure.Given = given
	}
	return e.converged(ctx, rollouts[0], want)
}

// given waits until the failing stage's ClusterProfile can give the stopped version to no more
// of its clusters, and returns those it gave it to, which end on it. The profile goes on rolling
// the version out after the promotion stopped, and a cluster failing its health check keeps its
// maxUpdate slot: the rollout ends once every cluster has the version or every slot is held by
// a failing cluster.
func (e *env) given(ctx context.Context, p *failPlan) ([]string, error) {
	stage := p.rollout.Stages[p.stage]
	var given []string
	err := retry(ctx, func(ctx context.Context) error {
		prof := &configv1beta1.ClusterProfile{}
		if err := e.c.Get(ctx, client.ObjectKey{Name: stage.Profile}, prof); err != nil {
			return err
		}
		st := prof.Status
		if st.ObservedGeneration != prof.Generation {
			return fmt.Errorf("profile %s at generation %d observed %d", prof.Name, prof.Generation, st.ObservedGeneration)
		}
		given = given[:0]
		held := 0
		for _, c := range st.UpdatingClusters.Clusters {
			given = append(given, c.Name)
			if slices.Contains(p.clusters, c.Name) {
				held++
			}
		}
		for _, c := range st.UpdatedClusters.Clusters {
			given = append(given, c.Name)
		}
		if len(given) < len(stage.Clusters) && (held < len(st.UpdatingClusters.Clusters) || held < stage.MaxInFlight) {
			return fmt.Errorf("profile %s gave the version to %v, %d of them failing", prof.Name, given, held)
		}
		return nil
	})
	slices.Sort(given)
	return given, err
}

// outcome waits until the promotion's history gives version v, the one of generation or later,
// the outcome. A good version is awaited until Succeeded too: only then is it the last known
// good one a later rollback goes back to, and the records may show it everywhere a moment before.
func (e *env) outcome(ctx context.Context, v int, generation int64, outcome string) error {
	var where string
	err := retry(ctx, func(ctx context.Context) error {
		pr := &configv1beta1.ClusterPromotion{}
		if err := e.c.Get(ctx, client.ObjectKey{Name: "chaos"}, pr); err != nil {
			return err
		}
		where = fmt.Sprintf("at stage %q, generation %d observed", pr.Status.CurrentStageName, pr.Status.ObservedGeneration)
		for _, h := range pr.Status.History {
			if bytes.Equal(h.ProfileSpecHash, pr.Status.ProfileSpecHash) {
				where += ", version " + h.Outcome
				if h.Outcome == outcome && pr.Status.ObservedGeneration >= generation {
					return nil
				}
			}
		}
		return fmt.Errorf("promotion %s", where)
	})
	if err != nil {
		return fmt.Errorf("version %d did not end %s: promotion %s", v, outcome, where)
	}
	return nil
}
