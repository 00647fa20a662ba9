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

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/stagecoach-dev/stagecoach/internal/fleetsim"
)

var (
	deploymentGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	configMapGVR  = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
)

// The promotion deploys a Deployment named app into namespace bench-app; its image names the
// version.
const promotion = `
apiVersion: v1
kind: Namespace
metadata: {name: bench}
---
apiVersion: config.projectsveltos.io/v1beta1
kind: ClusterPromotion
metadata: {name: bench}
spec:
  profileSpec:
    syncMode: Continuous
    maxUpdate: "10%%"
    policyRefs:
    - {kind: ConfigMap, namespace: bench, name: app}
  stages:
  - name: canary
    clusterSelector: {matchLabels: {%[1]s: canary}}
    trigger: {auto: {delay: 0s}}
  - name: early
    clusterSelector: {matchLabels: {%[1]s: early}}
    trigger: {auto: {delay: 0s}}
  - name: main
    clusterSelector: {matchLabels: {%[1]s: main}}
    trigger: {auto: {delay: 0s}}
`

const appContent = `
apiVersion: v1
kind: ConfigMap
metadata: {name: app, namespace: bench}
data:
  app.yaml: |
    apiVersion: v1
    kind: Namespace
    metadata: {name: bench-app}
    ---
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: app, namespace: bench-app}
    spec:
      replicas: 2
      selector: {matchLabels: {app: app}}
      template:
        metadata: {labels: {app: app}}
        spec:
          containers:
          - {name: app, image: "registry.example/app:%s"}
`

// promote rolls version v1 out through the three stages and measures it.
func (b *bench) promote(ctx context.Context, res *result) error {
	if err := b.apply(ctx, fmt.Sprintf(promotion, stageLabel)); err != nil {
		return err
	}
	requests, mgmtRequests := b.sim.Requests(), b.managementRequests(ctx)
	start := time.Now()
	if err := b.apply(ctx, fmt.Sprintf(appContent, "v1")); err != nil {
		return err
	}
	if b.opts.profile {
		go b.profile(ctx, "profile?seconds=60", "cpu-promotion.pprof")
	}
	if err := b.waitFor(ctx, "promotion on live clusters", time.Second, b.countOn(b.imageIs("v1")), len(b.live)); err != nil {
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

// The update run places namespace bench-kf and its ConfigMap through the same three stages.
const updateRun = `
apiVersion: v1
kind: Namespace
metadata: {name: bench-kf}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: bench-kf}
data: {version: v1}
---
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterStagedUpdateStrategy
metadata: {name: bench}
spec:
  stages:
  - name: canary
    labelSelector: {matchLabels: {%[1]s: canary}}
    maxConcurrency: "10%%"
  - name: early
    labelSelector: {matchLabels: {%[1]s: early}}
    maxConcurrency: "10%%"
  - name: main
    labelSelector: {matchLabels: {%[1]s: main}}
    maxConcurrency: "10%%"
---
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterResourcePlacement
metadata: {name: bench}
spec:
  resourceSelectors:
  - {group: "", version: v1, kind: Namespace, name: bench-kf}
  policy: {placementType: PickAll}
  strategy: {type: External}
`

const updateRunObject = `
apiVersion: placement.kubernetes-fleet.io/v1beta1
kind: ClusterStagedUpdateRun
metadata: {name: bench}
spec:
  placementName: bench
  resourceSnapshotIndex: "0"
  stagedRolloutStrategyName: bench
`

func (b *bench) updateRun(ctx context.Context, res *result) error {
	if err := b.apply(ctx, fmt.Sprintf(updateRun, stageLabel)); err != nil {
		return err
	}
	start := time.Now()
	if err := b.apply(ctx, updateRunObject); err != nil {
		return err
	}
	settingsPlaced := func(c *fleetsim.Cluster) bool {
		cm, ok := c.Get(configMapGVR, "bench-kf", "settings")
		return ok && cm.Object["data"] != nil
	}
	if err := b.waitFor(ctx, "update run on live clusters", time.Second, b.countOn(settingsPlaced), len(b.live)); err != nil {
		return err
	}
	res.UpdateRunS = seconds(time.Since(start))
	b.logThrottling(ctx, "update run")
	return nil
}

// upgradeThroughRestart publishes v2 and kills the controller once a twentieth of the fleet has
// it, then measures how long the new controller takes to update the next cluster.
func (b *bench) upgradeThroughRestart(ctx context.Context, res *result) error {
	start := time.Now()
	if err := b.apply(ctx, fmt.Sprintf(appContent, "v2")); err != nil {
		return err
	}
	onV2 := b.countOn(b.imageIs("v2"))
	if err := b.waitFor(ctx, "v2 before the restart", time.Second, onV2, max(1, len(b.live)/20)); err != nil {
		return err
	}
	_, peak := b.ctrl.rss()
	b.peakRSS = max(b.peakRSS, peak)
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
	if err := b.waitFor(ctx, "v2 on live clusters", time.Second, onV2, len(b.live)); err != nil {
		return err
	}
	res.UpgradeS = seconds(time.Since(start))
	return nil
}

func (b *bench) imageIs(version string) func(*fleetsim.Cluster) bool {
	want := "registry.example/app:" + version
	return func(c *fleetsim.Cluster) bool {
		d, ok := c.Get(deploymentGVR, "bench-app", "app")
		if !ok {
			return false
		}
		containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
		if len(containers) != 1 {
			return false
		}
		container, _ := containers[0].(map[string]any)
		return container["image"] == want
	}
}

// countOn counts the live clusters for which ok holds, straight from the simulator's records.
func (b *bench) countOn(ok func(*fleetsim.Cluster) bool) func(context.Context) (int, error) {
	return func(context.Context) (int, error) {
		n := 0
		for _, c := range b.live {
			if ok(c) {
				n++
			}
		}
		return n, nil
	}
}

var sampleWithHost = regexp.MustCompile(`^([a-z_]+)\{.*host="([^"]*)".*\} ([0-9.e+-]+)$`)

// managementRequests is the controller's count of requests to the management cluster so far.
func (b *bench) managementRequests(ctx context.Context) float64 {
	return b.managementMetric(ctx, "rest_client_requests_total")
}

// managementMetric sums a client-go metric of the controller over its requests to the
// management cluster.
func (b *bench) managementMetric(ctx context.Context, name string) float64 {
	body, err := b.get(ctx, b.ctrl.metrics)
	if err != nil {
		return 0
	}
	host := strings.TrimPrefix(b.mgmt.Management.Config.Host, "https://")
	total := 0.0
	for line := range strings.Lines(string(body)) {
		m := sampleWithHost.FindStringSubmatch(strings.TrimSpace(line))
		if m != nil && m[1] == name && m[2] == host {
			v, _ := strconv.ParseFloat(m[3], 64)
			total += v
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
	body, err := b.get(ctx, b.ctrl.pprof+"/debug/pprof/"+what)
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

func splitYAML(s string) []string { return strings.Split(s, "\n---\n") }

func round1(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }
