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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/chartrepo"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/testing/chaos"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestCrashTrials rolls out CHAOS_TRIALS new versions (2 by default; `make chaos TRIALS=200`),
// each a spec change and a ConfigMap edit, through both dialects at once while the controller's
// replicas are SIGKILLed every few seconds and, mid-wave, an API server or etcd stops or a cluster
// is marked Down (pickOutage). Some versions are bad: they fail at a random stage (planFailure,
// planFleetFailure). CHAOS_SEED replays a run's random choices.
func TestCrashTrials(t *testing.T) {
	trials := envInt(t, "CHAOS_TRIALS", 2)
	seed := uint64(envInt(t, "CHAOS_SEED", int(time.Now().UnixNano()%1e9)))
	t.Logf("CHAOS_SEED=%d", seed)
	faults := faultKinds(t)
	e := setUp(t, seed)
	e.faults = faults
	if os.Getenv("CHAOS_KEEP_LOGS") != "" {
		t.Cleanup(func() { t.Logf("the fleet's logs are kept in %s", keepLogs(t)) })
	}

	tally := counters{}
	for range trials {
		v := e.next()
		plan, fleetPlan := e.planFailure(v), e.planFleetFailure(v)
		outage := e.pickOutage(v)
		start := time.Now()
		f, found, err := e.trial(t.Context(), v, outage, plan, fleetPlan)
		tally.add(f.counts)
		tally["trials"]++
		tally["violations"] += len(found)
		var versions []string
		for _, p := range []*failPlan{plan, fleetPlan} {
			if p == nil {
				continue
			}
			versions = append(versions, p.String())
			tally["failing_versions"]++
			if p.rollback {
				tally["rollbacks"]++
			}
			if p.deadline > 0 && p.rollback {
				// Only with Rollback does the verdict see when the stage failed (deadline rule).
				tally["deadlines"]++
			}
		}
		if len(versions) == 0 {
			versions = append(versions, "good versions")
		}
		t.Logf("trial %d: %s (sveltos %s, kubefleet %s), %s, %s, %d violations\n\tsveltos: %s\n\tkubefleet: %s", v, time.Since(start).Round(100*time.Millisecond),
			e.took[0].Round(100*time.Millisecond), e.took[1].Round(100*time.Millisecond), f.describe(), strings.Join(versions, "; "), len(found),
			e.timeline[0], e.timeline[1])
		for _, f := range found {
			t.Errorf("trial %d: %s", v, f)
		}
		if err != nil {
			t.Fatalf("trial %d: %v (the fleet's logs are kept in %s)", v, err, keepLogs(t))
		}
	}
	summary := fmt.Sprintf("trials %d, kills %d, violations %d", trials, tally["kills"], tally["violations"])
	t.Log(summary)
	fmt.Println(summary)
	fmt.Println(tally.line())
}

// keepLogs copies the fleet's logs (the controller's among them) out of the sandbox, which is
// removed when the test binary ends, and returns where they are.
func keepLogs(t *testing.T) string {
	dst := filepath.Join(os.TempDir(), fmt.Sprintf("stagecoach-chaos-logs-%d", os.Getpid()))
	if err := os.CopyFS(dst, os.DirFS(filepath.Join(testenv.Fleet.Dir, "logs"))); err != nil {
		t.Logf("keeping the logs: %v", err)
	}
	return dst
}

func envInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a whole number", name, s)
	}
	return n
}

// env is what every trial shares: the fleet's records, the controller and the charts.
type env struct {
	t    *testing.T
	c    client.Client
	rec  *chaos.Recorder
	ctl  *controllerProcess
	repo string
	seed uint64
	// gates stand between the controller and each cluster of the wave, to cut it off (Down).
	gates map[string]*gate
	// faults are the kinds of fault CHAOS_FAULTS asks for.
	faults map[string]bool
	// took is how long the last trial's rollouts took, each dialect's, and timeline when each
	// stage had the version, for its log line.
	took     [2]time.Duration
	timeline [2]string
}

// rng is the random source of one part of one trial: each goroutine has its own, and a seed
// replays them all.
// rolledOut counts the versions rolled out in the fleet, which the test binary keeps for all its
// runs: run again (go test -count), TestCrashTrials goes on from the last version rather than
// asking for one the fleet already runs.
var rolledOut int

// lastGood is the last version the Sveltos dialect rolled out through every stage: a bad one
// is rolled back to it.
var lastGood int

// fleetLastGood is the Kubefleet dialect's last version that went through every stage.
var fleetLastGood int

// next is the version the next trial rolls out: 0 for the faultless first rollout of the first
// run, then 1, 2, ….
func (e *env) next() int {
	v := rolledOut
	rolledOut++
	return v
}

func (e *env) rng(trial int, part string) *rand.Rand {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s", trial, part)
	return rand.New(rand.NewPCG(e.seed, h.Sum64()))
}

// setUp starts the recorder, the chart repository and the controller, and rolls out version 0
// without faults.
func setUp(t *testing.T, seed uint64) *env {
	ctx := t.Context()
	repo, _, err := chartrepo.Serve(ctx, "../../testdata/charts")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := chaos.Record(ctx, testenv.Fleet.Etcd, sandbox.EtcdPrefix, sveltosNS, fleetNS)
	if err != nil {
		t.Fatal(err)
	}
	c := testenv.Client(t)
	gates, err := openGates(ctx, c, wave)
	t.Cleanup(func() {
		for _, g := range gates {
			g.cut()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	ctl, err := newControllerProcess(ctx, testenv.Fleet, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := ctl.start(ctx); err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, c: c, rec: rec, ctl: ctl, repo: repo, seed: seed, gates: gates}
	err = apply(ctx, e.c, fmt.Sprintf("{apiVersion: v1, kind: Namespace, metadata: {name: %s}}", sourcesNS))
	if err == nil {
		err = apply(ctx, e.c, fleetSetup()...)
	}
	if err == nil {
		err = refuseFailing(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, found, err := e.trial(ctx, e.next(), "", nil, nil); err != nil || len(found) > 0 {
		t.Fatalf("rolling out version 0 without faults: %v %v (the fleet's logs are kept in %s)", err, found, keepLogs(t))
	}
	return e
}

// trial rolls out version v through both dialects, with faults unless outage is "", waits
// until every cluster runs it (or, for a version bad as plan says, until the promotion stopped
// or rolled it back), and judges the records. It returns the faults it injected and the
// violations.
func (e *env) trial(ctx context.Context, v int, outage string, plan, fleetPlan *failPlan) (*faults, []chaos.Violation, error) {
	e.rec.Mark()
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	sveltosApproval, fleetApproval := make(chan int64, 1), make(chan int64, 1)
	base, fleetBase := chaos.Expect{Image: image(v), Message: message(v)}, chaos.Expect{Image: image(v), Message: message(v)}
	if fleetPlan != nil {
		fleetBase.Message = message(fleetLastGood) // a bad version leaves the content as it was
	}
	wants := []chaos.Expect{plan.expect(base, lastGood, time.Now()), fleetPlan.expect(fleetBase, fleetLastGood, time.Now())}

	rollout, rolloutCtx := errgroup.WithContext(ctx)
	start := time.Now()
	rollout.Go(func() error {
		defer func() { e.took[0] = time.Since(start) }()
		return e.promote(rolloutCtx, v, plan, wants[0], sveltosApproval)
	})
	rollout.Go(func() error {
		defer func() { e.took[1] = time.Since(start) }()
		return e.place(rolloutCtx, v, fleetPlan, wants[1], fleetApproval)
	})

	f := e.newFaults(v, outage)
	faultCtx, stopFaults := context.WithCancel(ctx)
	faultsDone := make(chan error, 1)
	if outage != "" {
		go func() { faultsDone <- f.run(faultCtx) }()
	} else {
		faultsDone <- nil
	}
	err := rollout.Wait()
	stopFaults()
	err = errors.Join(err, <-faultsDone)
	if err != nil {
		return f, nil, err
	}

	initial, writes, err := e.rec.Since()
	if err != nil {
		return f, nil, err
	}
	var found []chaos.Violation
	for i, approval := range []int64{<-sveltosApproval, <-fleetApproval} {
		want := wants[i]
		want.Approvals = map[string]int64{image(v): approval, message(v): approval}
		broken := chaos.Check(rollouts[i], initial, writes, want)
		if len(broken) > 0 || os.Getenv("CHAOS_RECORDS") != "" {
			e.t.Logf("trial %d, %s records (approval at revision %d):\n%s", v, rollouts[i].Name, approval, chaos.Records(writes, rollouts[i]))
		}
		found = append(found, broken...)
		found = append(found, chaos.CheckDown(rollouts[i], initial, writes, want, f.downs)...)
		e.timeline[i] = chaos.Timeline(rollouts[i], initial, writes, want, start)
	}
	if plan == nil {
		lastGood = v
	}
	if fleetGood = fleetPlan == nil; fleetGood {
		fleetLastGood = v
		// A bad version's run pins no new override: its trial leaves the override as it was.
		found = append(found, checkOverride(initial, writes, v)...)
	}
	return f, found, nil
}

// waveStarted reports whether a staging cluster received a release of the promotion in this trial.
func (e *env) waveStarted() bool {
	_, writes, _ := e.rec.Since()
	for _, w := range writes {
		if w.Namespace == sveltosNS && strings.HasPrefix(w.Cluster, "staging") && w.Resource == "secrets" {
			return true
		}
	}
	return false
}

// converged waits until the records show every cluster of the rollout settled where want says.
func (e *env) converged(ctx context.Context, r *chaos.Rollout, want chaos.Expect) error {
	var pending string
	err := retry(ctx, func(context.Context) error {
		initial, writes, err := e.rec.Since()
		if err != nil {
			return err
		}
		if pending = chaos.Pending(r, initial, writes, want); pending != "" {
			return errors.New(pending)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s did not converge on %s, %s: %s", r.Name, want.Image, want.Message, pending)
	}
	return nil
}

// promote changes the promotion's content, then its spec, approves staging once the new version
// is there, and waits for every cluster to run it. The approval's revision goes to approval. A
// bad version (plan) that fails before the approval is not approved; the trial waits for it to
// fail instead.
func (e *env) promote(ctx context.Context, v int, plan *failPlan, want chaos.Expect, approval chan<- int64) error {
	if err := apply(ctx, e.c, sveltosValues(v), promotion(e.repo, v, plan)); err != nil {
		return err
	}
	p := &configv1beta1.ClusterPromotion{}
	if err := retry(ctx, func(ctx context.Context) error { return e.c.Get(ctx, client.ObjectKey{Name: "chaos"}, p) }); err != nil {
		return err
	}
	generation := p.Generation
	if plan != nil && plan.stage <= approvalStage {
		approval <- 0
		return e.settled(ctx, v, plan, generation, want)
	}
	err := retry(ctx, func(ctx context.Context) error {
		if err := e.c.Get(ctx, client.ObjectKey{Name: "chaos"}, p); err != nil {
			return err
		}
		if m := p.Spec.Stages[1].Trigger.Manual; p.Status.ObservedGeneration < generation || p.Status.CurrentStageName != "staging" ||
			(m.Approved != nil && *m.Approved) {
			return fmt.Errorf("promotion at stage %q, generation %d observed", p.Status.CurrentStageName, p.Status.ObservedGeneration)
		}
		return nil
	})
	if err != nil {
		return err
	}
	pause(ctx, time.Duration(e.rng(v, "promote").Int64N(int64(time.Second))))
	ops := `[{"op": "test", "path": "/spec/stages/1/name", "value": "staging"},
		{"op": "add", "path": "/spec/stages/1/trigger/manual/approved", "value": true}]`
	if err := retry(ctx, func(ctx context.Context) error {
		return e.c.Patch(ctx, p, client.RawPatch(types.JSONPatchType, []byte(ops)))
	}); err != nil {
		return err
	}
	approval <- revision(p)
	if plan != nil {
		return e.settled(ctx, v, plan, generation, want)
	}
	if err := e.converged(ctx, rollouts[0], want); err != nil {
		return fmt.Errorf("%w; %s", err, e.promotionState())
	}
	return e.outcome(ctx, v, generation, configv1beta1.OutcomeSucceeded)
}

// approvalStage is the index of the stage whose manual trigger the trial approves.
const approvalStage = 1

// place changes the placed ConfigMap and Deployment, starts an update run for the snapshot that
// holds both, approves its staging stage and waits for the run to succeed. A bad version (plan)
// changes only the Deployment, and its run is awaited until it failed or was rolled back; a good
// one also gives the override a new value, which its run pins before the value is edited again.
func (e *env) place(ctx context.Context, v int, plan *failPlan, want chaos.Expect, approval chan<- int64) error {
	if err := apply(ctx, e.c, strategy(plan)); err != nil {
		return err
	}
	if plan == nil {
		if err := e.override(ctx, v); err != nil {
			return err
		}
	}
	if err := apply(ctx, e.c, fleetResources(v, plan)...); err != nil {
		return err
	}
	var index string
	err := retry(ctx, func(ctx context.Context) error {
		snaps := &placementv1beta1.ClusterResourceSnapshotList{}
		if err := e.c.List(ctx, snaps, client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: "chaos", placementv1beta1.IsLatestSnapshotLabel: "true"}); err != nil {
			return err
		}
		for _, s := range snaps.Items {
			data, _ := json.Marshal(s.Spec.SelectedResources)
			if snapshotHolds(data, want.Image, want.Message) {
				index = s.Labels[placementv1beta1.ResourceIndexLabel]
				return nil
			}
		}
		return fmt.Errorf("no snapshot of version %d yet", v)
	})
	if err == nil {
		err = apply(ctx, e.c, updateRun(v, index))
	}
	if err == nil && plan == nil {
		err = e.unpin(ctx, v)
	}
	if err != nil {
		return err
	}
	if plan != nil && plan.stage <= approvalStage {
		approval <- 0
		return e.runSettled(ctx, v, plan, want)
	}
	req := &placementv1beta1.ClusterApprovalRequest{}
	name := fmt.Sprintf("chaos-%d-staging", v)
	if err := retry(ctx, func(ctx context.Context) error { return e.c.Get(ctx, client.ObjectKey{Name: name}, req) }); err != nil {
		return fmt.Errorf("%w; %s", err, e.runState(v))
	}
	pause(ctx, time.Duration(e.rng(v, "place").Int64N(int64(time.Second))))
	patch := fmt.Sprintf(`{"status":{"conditions":[{"type":"Approved","status":"True","reason":"Trial","message":"approved by the crash trial","lastTransitionTime":%q,"observedGeneration":%d}]}}`,
		time.Now().UTC().Format(time.RFC3339), req.Generation)
	if err := retry(ctx, func(ctx context.Context) error {
		return e.c.Status().Patch(ctx, req, client.RawPatch(types.MergePatchType, []byte(patch)))
	}); err != nil {
		return err
	}
	approval <- revision(req)
	if plan != nil {
		return e.runSettled(ctx, v, plan, want)
	}
	if err := e.converged(ctx, rollouts[1], want); err != nil {
		return fmt.Errorf("%w; %s", err, e.runState(v))
	}
	return retry(ctx, func(ctx context.Context) error {
		run := &placementv1beta1.ClusterStagedUpdateRun{}
		if err := e.c.Get(ctx, client.ObjectKey{Name: fmt.Sprintf("chaos-%d", v)}, run); err != nil {
			return err
		}
		if !meta.IsStatusConditionTrue(run.Status.Conditions, "Succeeded") {
			return fmt.Errorf("update run chaos-%d has not succeeded", v)
		}
		return nil
	})
}

// runState says where update run chaos-v stands, for a trial that waited for it in vain.
func (e *env) runState(v int) string {
	run := &placementv1beta1.ClusterStagedUpdateRun{}
	if err := e.c.Get(context.Background(), client.ObjectKey{Name: fmt.Sprintf("chaos-%d", v)}, run); err != nil {
		return err.Error()
	}
	var out []string
	for _, c := range run.Status.Conditions {
		out = append(out, fmt.Sprintf("%s=%s (%s: %s)", c.Type, c.Status, c.Reason, c.Message))
	}
	for _, st := range run.Status.StagesStatus {
		for _, c := range st.Conditions {
			out = append(out, fmt.Sprintf("stage %s %s=%s (%s: %s)", st.StageName, c.Type, c.Status, c.Reason, c.Message))
		}
		for _, cl := range st.Clusters {
			for _, c := range cl.Conditions {
				out = append(out, fmt.Sprintf("cluster %s %s=%s (%s)", cl.ClusterName, c.Type, c.Status, c.Reason))
			}
		}
	}
	// What the bindings say about each cluster: an update waits on its binding's Available.
	bindings := &placementv1beta1.ClusterResourceBindingList{}
	if err := e.c.List(context.Background(), bindings, client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: "chaos"}); err == nil {
		for _, b := range bindings.Items {
			for _, c := range b.Status.Conditions {
				out = append(out, fmt.Sprintf("binding %s (%s, %s) %s=%s at generation %d of %d (%s: %s)", b.Name, b.Spec.State,
					b.Spec.ResourceSnapshotName, c.Type, c.Status, c.ObservedGeneration, b.Generation, c.Reason, c.Message))
			}
		}
	}
	return "update run chaos-" + strconv.Itoa(v) + ": " + strings.Join(out, "; ")
}

// revision is the etcd revision of the object's last write, comparable with the managed
// clusters' since the sandbox's clusters share one etcd.
func revision(obj client.Object) int64 {
	rv, _ := strconv.ParseInt(obj.GetResourceVersion(), 10, 64)
	return rv
}
