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

package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/fleetsim"
	"github.com/stagecoach-dev/stagecoach/internal/testing/scalerollout"
)

// rollout is what the benchmark rolls out: 10% of each stage at a time.
var rollout = scalerollout.Rollout{Name: "bench", StageLabel: stageLabel, Share: "10%"}

// promote rolls version v1 out through the three stages and measures it from the promotion's
// creation.
func (b *bench) promote(ctx context.Context, res *result) error {
	promotion := b.helmPromotion("v1")
	if !b.realistic() {
		// The content the promotion reads (and its namespace) is there before it.
		ns := fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata: {name: %s}\n", rollout.Name)
		if err := b.apply(ctx, ns+"---\n"+rollout.Content("v1")); err != nil {
			return err
		}
		promotion = rollout.Promotion()
	}
	requests, mgmtRequests := b.sim.Requests(), b.managementRequests(ctx)
	start := time.Now()
	if err := b.apply(ctx, promotion); err != nil {
		return err
	}
	stopProfile := b.profilePhase(ctx, "cpu-promotion")
	defer stopProfile()
	if err := b.waitFor(ctx, "promotion on live clusters", time.Second, b.countOn(b.promoted("v1")), len(b.live)); err != nil {
		return err
	}
	elapsed := time.Since(start)
	b.logThrottling(ctx, "promotion")
	res.PromotionS = seconds(elapsed)
	res.ClustersPerS = round1(float64(len(b.live)) / elapsed.Seconds())
	res.RequestsPerCluster = round1(float64(b.sim.Requests()-requests) / float64(len(b.live)))
	res.ManagementRequestsPerCluster = round1(float64(b.managementRequests(ctx)-mgmtRequests) / float64(len(b.live)))
	return nil
}

func (b *bench) updateRun(ctx context.Context, res *result) error {
	if err := b.apply(ctx, b.placement()); err != nil {
		return err
	}
	start := time.Now()
	if err := b.apply(ctx, rollout.Run()); err != nil {
		return err
	}
	stopProfile := b.profilePhase(ctx, "cpu-updaterun")
	defer stopProfile()
	// A flapping cluster down when the placement scheduled is not in the run: as in Kubefleet,
	// it waits for the next run. So the run is done once it succeeded and its content is on
	// every live cluster that does not flap.
	if err := b.waitFor(ctx, "update run on live clusters that do not flap", time.Second, b.countIn(b.steady, rollout.Placed), len(b.steady)); err != nil {
		return err
	}
	if err := b.waitFor(ctx, "update run succeeded", time.Second, b.runSucceeded, 1); err != nil {
		return err
	}
	res.UpdateRunS = seconds(time.Since(start))
	b.logThrottling(ctx, "update run")
	return nil
}

// upgradeThroughRestart publishes v2 (the realistic profile's next chart version, the zero
// profile's edited content) and kills the controller once a twentieth of the fleet has it, then
// measures how long the new controller takes to update the next cluster.
func (b *bench) upgradeThroughRestart(ctx context.Context, res *result) error {
	next := rollout.Content("v2")
	if b.realistic() {
		next = b.helmPromotion("v2")
	}
	start := time.Now()
	if err := b.apply(ctx, next); err != nil {
		return err
	}
	onV2 := b.countOn(b.promoted("v2"))
	if err := b.waitFor(ctx, "v2 before the restart", time.Second, onV2, max(1, len(b.live)/20)); err != nil {
		return err
	}
	b.recordPeaks()
	b.retire(ctx)
	b.ctrl.kill()
	before, _ := onV2(ctx)
	b.log.Info("controller killed", "onV2", before)
	var err error
	if b.ctrl, err = b.startController(ctx, "controller-restarted.log"); err != nil {
		return err
	}
	restarted := time.Now()
	if err := b.waitFor(ctx, "first cluster updated after the restart", 500*time.Millisecond, onV2, before+1); err != nil {
		return err
	}
	res.ResumeS = seconds(time.Since(restarted))
	stopProfile := b.profilePhase(ctx, "cpu-upgrade")
	defer stopProfile()
	if err := b.waitFor(ctx, "v2 on live clusters", time.Second, onV2, len(b.live)); err != nil {
		return err
	}
	res.UpgradeS = seconds(time.Since(start))
	return nil
}

// promoted tells whether a cluster runs the version: the realistic profile's chart release, or
// the zero profile's Deployment. It reads the simulator's records, so a flapping cluster counts
// once it was up long enough to be given the version.
func (b *bench) promoted(version string) func(*fleetsim.Cluster) bool {
	if b.realistic() {
		return b.released(version)
	}
	return func(c *fleetsim.Cluster) bool { return rollout.Promoted(c, version) }
}

// countOn counts the live clusters for which ok holds, straight from the simulator's records.
func (b *bench) countOn(ok func(*fleetsim.Cluster) bool) func(context.Context) (int, error) {
	return b.countIn(b.live, ok)
}

// countIn counts the clusters for which ok holds.
func (b *bench) countIn(clusters []*fleetsim.Cluster, ok func(*fleetsim.Cluster) bool) func(context.Context) (int, error) {
	return func(context.Context) (int, error) {
		n := 0
		for _, c := range clusters {
			if ok(c) {
				n++
			}
		}
		return n, nil
	}
}

// runSucceeded is 1 once the update run says it succeeded.
func (b *bench) runSucceeded(ctx context.Context) (int, error) {
	run := &placementv1beta1.ClusterStagedUpdateRun{}
	if err := b.client.Get(ctx, client.ObjectKey{Name: rollout.Name}, run); err != nil {
		return 0, err
	}
	if meta.IsStatusConditionTrue(run.Status.Conditions, string(placementv1beta1.StagedUpdateRunConditionSucceeded)) {
		return 1, nil
	}
	return 0, nil
}

var sampleWithHost = regexp.MustCompile(`^([a-z_]+)\{.*host="([^"]*)".*\} ([0-9.e+-]+)$`)

// managementRequests is the controller's count of requests to the management cluster so far.
func (b *bench) managementRequests(ctx context.Context) float64 {
	return b.managementMetric(ctx, "rest_client_requests_total")
}

// managementMetric sums a client-go metric of the controller over its requests to the
// management cluster.
func (b *bench) managementMetric(ctx context.Context, name string) float64 {
	host := strings.TrimPrefix(b.mgmt.Management.Config.Host, "https://")
	total := 0.0
	for _, url := range b.ctrl.metrics() {
		body, err := b.get(ctx, url)
		if err != nil {
			continue
		}
		for line := range strings.Lines(string(body)) {
			m := sampleWithHost.FindStringSubmatch(strings.TrimSpace(line))
			if m != nil && m[1] == name && m[2] == host {
				v, _ := strconv.ParseFloat(m[3], 64)
				total += v
			}
		}
	}
	return total
}

// logThrottling says how long the controller's requests to the management cluster waited for its
// client-side rate limiter so far: the sign that --kube-api-qps is what holds it back.
func (b *bench) logThrottling(ctx context.Context, phase string) {
	b.log.Info("client-side throttling so far", "phase", phase,
		"waitedSeconds", round1(b.managementMetric(ctx, "rest_client_rate_limiter_duration_seconds_sum")),
		"requests", b.managementRequests(ctx))
}

func (b *bench) profile(ctx context.Context, what, name string) {
	b.profileFrom(ctx, b.ctrl.pprof(), what, name)
}

func (b *bench) profileFrom(ctx context.Context, pprof, what, name string) {
	body, err := b.get(ctx, pprof+"/debug/pprof/"+what)
	if err == nil {
		err = os.WriteFile(filepath.Join(b.opts.dir, name), body, 0o644)
	}
	if err != nil {
		b.log.Error(err, "profiling the controller", "profile", name)
		return
	}
	b.log.Info("profile written", "file", filepath.Join(b.opts.dir, name))
}

func (b *bench) get(ctx context.Context, url string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return io.ReadAll(resp.Body)
}

func round1(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }
