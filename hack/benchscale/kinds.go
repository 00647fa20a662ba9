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
	"flag"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/stagecoach-dev/stagecoach/internal/testing/fleetsim"
	"github.com/stagecoach-dev/stagecoach/internal/testing/scalerollout"
)

// The two profiles of the benchmark. "realistic" (the default) deploys a Helm chart with
// per-cluster values, a Lua health check and soaks, against clusters that answer with latency,
// serve different APIs, and include dead and flapping ones in every stage. "zero" is the earlier
// benchmark: zero delays, no checks, manifests from a ConfigMap, dead clusters in the last stage.
const (
	profileRealistic = "realistic"
	profileZero      = "zero"
)

// profileDefaults are the values a profile gives the flags not set on the command line.
type profileDefaults struct {
	latency, jitter, soak time.Duration
	flap, extraAPIs       float64
}

var profiles = map[string]profileDefaults{
	profileRealistic: {latency: 30 * time.Millisecond, jitter: 10 * time.Millisecond, soak: 10 * time.Second, flap: 1, extraAPIs: 5},
	profileZero:      {},
}

// applyProfile fills the flags the command line left unset from the profile's defaults.
func applyProfile(opts *options) error {
	d, ok := profiles[opts.kind]
	if !ok {
		return fmt.Errorf("-profile-kind %q: want %q or %q", opts.kind, profileRealistic, profileZero)
	}
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	def := func(name string, p *time.Duration, v time.Duration) {
		if !set[name] {
			*p = v
		}
	}
	def("latency", &opts.latency, d.latency)
	def("jitter", &opts.jitter, d.jitter)
	def("soak", &opts.soak, d.soak)
	if !set["flap"] {
		opts.flapPercent = d.flap
	}
	if !set["extra-apis"] {
		opts.extraAPIsPercent = d.extraAPIs
	}
	return nil
}

func (b *bench) realistic() bool { return b.opts.kind == profileRealistic }

// Chart versions of testdata/charts/webapp the realistic profile installs, then upgrades to.
var chartVersions = map[string]string{"v1": "1.0.0", "v2": "1.1.0"}

const (
	releaseName      = "bench"
	releaseNamespace = "bench-app"
)

// healthScript is the Lua check of every cluster: the chart's Deployment has rolled out.
const healthScript = `function evaluate()
  local st = obj.status
  if st ~= nil and st.observedGeneration == obj.metadata.generation and st.availableReplicas == obj.spec.replicas then
    return {healthy = true}
  end
  return {healthy = false, message = "Deployment " .. obj.metadata.name .. " is not available yet"}
end`

// helmPromotion is the realistic profile's ClusterPromotion: the webapp chart at the version's
// chart version, values templated from each cluster's name and stage, a Lua check on the
// chart's Deployment, and a soak in every stage.
func (b *bench) helmPromotion(version string) string {
	out := fmt.Sprintf(`apiVersion: config.projectsveltos.io/v1beta1
kind: ClusterPromotion
metadata: {name: %[1]s}
spec:
  profileSpec:
    syncMode: Continuous
    maxUpdate: %[2]q
    helmCharts:
    - repositoryURL: %[3]s
      repositoryName: local
      chartName: local/webapp
      chartVersion: %[4]s
      releaseName: %[5]s
      releaseNamespace: %[6]s
      helmChartAction: Install
      values: |
        message: '{{ .Cluster.metadata.name }} in {{ index .Cluster.metadata.labels %[7]q }}'
    validateHealths:
    - name: available
      featureID: Helm
      group: apps
      version: v1
      kind: Deployment
      namespace: %[6]s
      script: |
%[8]s
  stages:`, rollout.Name, rollout.Share, b.chartRepo, chartVersions[version], releaseName, releaseNamespace,
		stageLabel, indent(healthScript, "        "))
	for _, s := range scalerollout.Stages {
		out += fmt.Sprintf(`
  - name: %[1]s
    clusterSelector: {matchLabels: {%[2]s: %[1]s}}
    trigger: {auto: {delay: %[3]s}}`, s, stageLabel, b.opts.soak)
	}
	return out
}

// placement is the update run's placement and strategy; the realistic profile soaks each stage
// (a TimedWait after it) as its promotion does.
func (b *bench) placement() string {
	out := rollout.Placement()
	if b.opts.soak > 0 {
		share := fmt.Sprintf("maxConcurrency: %q", rollout.Share)
		out = strings.ReplaceAll(out, share, share+fmt.Sprintf("\n    afterStageTasks: [{type: TimedWait, waitTime: %s}]", b.opts.soak))
	}
	return out
}

var configMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// released tells whether the chart's release runs the version's chart on the cluster, with the
// values templated for that very cluster.
func (b *bench) released(version string) func(*fleetsim.Cluster) bool {
	return func(c *fleetsim.Cluster) bool {
		cm, ok := c.Get(configMaps, releaseNamespace, releaseName+"-info")
		if !ok {
			return false
		}
		data, _ := cm.Object["data"].(map[string]any)
		want := c.Name() + " in " + stageOf(c.Index(), b.opts.clusters)
		return data["chartVersion"] == chartVersions[version] && data["message"] == want
	}
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
