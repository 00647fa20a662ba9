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

// Command benchscale measures Stagecoach on a large fleet: a real management kube-apiserver from
// the sandbox, the managed clusters simulated in this process (internal/testing/fleetsim), and the
// controller run as its own processes (one per shard with -shards) so that their memory is their own. It registers the clusters,
// promotes a version through three stages with a ClusterPromotion, places the same kind of content
// with a Kubefleet staged update run, restarts the controller in the middle of a second promotion,
// and prints one JSON line per run. By default it deploys a Helm chart with a Lua health check and
// soaks to clusters with latency, dead and flapping ones among them (the realistic profile);
// -profile-kind=zero is the zero-delay benchmark it was before. `make bench-scale CLUSTERS=N
// RUNS=M SHARDS=S` runs it; docs/performance.md says what the figures mean.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"k8s.io/apimachinery/pkg/api/resource"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

type options struct {
	// kind is the profile: profileRealistic or profileZero (kinds.go).
	kind        string
	clusters    int
	deadPercent float64
	jitter      time.Duration
	seed        uint64
	soak        time.Duration
	charts      string
	runs        int
	// flapPercent of the clusters go down for flapDown out of every flapPeriod.
	flapPercent          float64
	flapPeriod, flapDown time.Duration
	extraAPIsPercent     float64
	dir                  string
	stagecoach           string
	kubeBin              string
	availableAfter       time.Duration
	latency              time.Duration
	timeout              time.Duration
	profile              bool
	keep                 bool
	rollouts             bool
	promotion            bool
	controllerArgs       stringList
	// shards is how many controller processes serve the fleet, each a shard of it.
	shards int
	// memoryLimit, in bytes, is the controller's memory limit as a container's would be; 0 is
	// none.
	memoryLimit int64
}

// result is the JSON line the benchmark prints last. Times are seconds.
type result struct {
	// Profile is -profile-kind: realistic or zero.
	Profile  string `json:"profile"`
	Clusters int    `json:"clusters"`
	// ControllerRSSMiB is the controller's peak resident memory over the whole run.
	ControllerRSSMiB float64 `json:"controller_rss_mib"`
	// RegisterS runs from the controller's start to every live cluster reported ready.
	RegisterS float64 `json:"register_s"`
	// PromotionS runs from the ClusterPromotion's creation to its version on every live cluster
	// (flapping ones included).
	PromotionS float64 `json:"promotion_s"`
	// PromotionFloorS is what the promotion cannot go faster than: its waves' health checks and
	// its soaks (floor.go).
	PromotionFloorS float64 `json:"promotion_floor_s"`
	// UpdateRunS runs from the ClusterStagedUpdateRun's creation to its content on every live
	// cluster.
	UpdateRunS float64 `json:"updaterun_s"`
	// ClustersPerS is the live clusters the promotion updated per second.
	ClustersPerS float64 `json:"clusters_per_s"`
	// RequestsPerCluster is the requests managed clusters answered during the promotion, per
	// live cluster.
	RequestsPerCluster float64 `json:"requests_per_cluster"`
	DeadClusters       int     `json:"dead_clusters"`
	// ResumeS runs from the controller's restart, in the middle of a second promotion, to the
	// next cluster updated.
	ResumeS float64 `json:"resume_s"`
	// UpgradeS runs from the second version's publication to it on every live cluster,
	// including the restart.
	UpgradeS float64 `json:"upgrade_s"`
	// IdleRSSMiB is the controller's memory once every cluster is registered and ready, before
	// any rollout.
	IdleRSSMiB float64 `json:"idle_rss_mib"`
	// ManagementRequestsPerCluster is the requests the controller made to the management
	// cluster during the promotion, per live cluster.
	ManagementRequestsPerCluster float64 `json:"management_requests_per_cluster"`
	// ControllerCPUS is the user and system CPU seconds of the controller processes over the
	// run, from their start: every shard's, before and after the restart.
	ControllerCPUS float64 `json:"controller_cpu_s"`
	// GCCPUFraction is the share of the CPU the controllers used during the rollouts (the
	// runtime's /cpu/classes/total less /cpu/classes/idle) that its garbage collector took.
	GCCPUFraction float64 `json:"gc_cpu_fraction"`
	// ControllerRolloutsCPUS, ManagementRolloutsCPUS and SimulatorRolloutsCPUS are the CPU
	// seconds, during the rollouts (as GCCPUFraction), of the controller processes, of the
	// management cluster's processes (etcd, kube-apiserver,
	// kube-controller-manager) and of the benchmark's own process, which answers for every
	// simulated cluster: the machine's CPU, shared by all three.
	ControllerRolloutsCPUS float64 `json:"controller_rollouts_cpu_s"`
	ManagementRolloutsCPUS float64 `json:"management_rollouts_cpu_s"`
	SimulatorRolloutsCPUS  float64 `json:"simulator_rollouts_cpu_s"`
	// LiveHeapMiB is the peak of the controller's live heap (after a GC) during the rollouts;
	// with shards, of the shards' live heaps summed, each sampled at the same time.
	LiveHeapMiB float64 `json:"live_heap_mib"`
	// FlappingClusters go down and up again every -flap-period; ExtraAPIClusters serve more
	// APIs than the rest.
	FlappingClusters int `json:"flapping_clusters"`
	ExtraAPIClusters int `json:"extra_api_clusters"`
	// Shards is -shards, when more than one.
	Shards int `json:"shards,omitempty"`
	// ShardRSSMiB is each shard's peak resident memory, the default shard first, with more
	// than one shard; ControllerRSSMiB is then the peak of their sum.
	ShardRSSMiB []float64 `json:"shard_rss_mib,omitempty"`
	// MemoryLimitMiB is -memory-limit, when set.
	MemoryLimitMiB float64 `json:"memory_limit_mib,omitempty"`
}

func main() {
	var opts options
	flag.StringVar(&opts.kind, "profile-kind", profileRealistic, "what to roll out and against what: realistic (a Helm chart with templated values, a Lua health check and soaks, against clusters with latency, extra APIs, dead and flapping clusters in every stage) or zero (zero delays, no checks, plain manifests, dead clusters in the last stage)")
	flag.IntVar(&opts.clusters, "clusters", 1000, "managed clusters to simulate and register")
	flag.IntVar(&opts.runs, "runs", 1, "run the benchmark this many times, printing a JSON line for each and, for more than one, a last line of the medians")
	flag.Float64Var(&opts.deadPercent, "dead", 1, "percent of the clusters that stop answering before the rollouts (realistic: in every stage; zero: all in the last stage)")
	flag.Float64Var(&opts.flapPercent, "flap", 0, "percent of the clusters that go down and up again every -flap-period (default: the profile's, 1 for realistic)")
	flag.DurationVar(&opts.flapPeriod, "flap-period", time.Minute, "how often a flapping cluster goes down")
	flag.DurationVar(&opts.flapDown, "flap-down", 30*time.Second, "how long a flapping cluster stays down each time (refusing connections)")
	flag.Float64Var(&opts.extraAPIsPercent, "extra-apis", 0, "percent of the clusters that serve extra CustomResourceDefinitions, so that their discovery differs (default: the profile's, 5 for realistic)")
	flag.DurationVar(&opts.jitter, "jitter", 0, "each answer's latency varies by up to this much either way (default: the profile's, 10ms for realistic)")
	flag.Uint64Var(&opts.seed, "seed", 1, "seed of the latency jitter and of the flapping clusters' phases")
	flag.DurationVar(&opts.soak, "soak", 0, "the soak of every stage: the promotion's trigger delay and the update run's TimedWait (default: the profile's, 10s for realistic)")
	flag.StringVar(&opts.charts, "charts", "testdata/charts", "directory of the charts the realistic profile serves from a local chart repository")
	flag.StringVar(&opts.dir, "dir", "", "working directory: the management cluster, controller logs and profiles (default: a new temporary directory)")
	flag.StringVar(&opts.stagecoach, "stagecoach", "bin/stagecoach", "the stagecoach binary to measure")
	flag.StringVar(&opts.kubeBin, "kube-bin", "", "directory of the Kubernetes components (default: found from `make kube`)")
	flag.DurationVar(&opts.availableAfter, "available-after", time.Second, "how long a simulated Deployment takes to become Available")
	flag.DurationVar(&opts.latency, "latency", 0, "time each simulated API server adds to every answer (default: the profile's, 30ms for realistic)")
	// The whole run at 20,000 clusters takes more than two hours on two cores.
	flag.DurationVar(&opts.timeout, "timeout", 4*time.Hour, "give up after this long")
	flag.BoolVar(&opts.profile, "profile", false, "take CPU profiles of the controller during the rollouts and a heap profile after them, into -dir")
	flag.BoolVar(&opts.rollouts, "rollouts", true, "run the rollouts; false stops once every cluster is ready (idle memory)")
	flag.BoolVar(&opts.promotion, "promotion", true, "run the promotion and the upgrade through a restart; false runs the update run alone")
	flag.BoolVar(&opts.keep, "keep", false, "leave the management cluster running afterwards")
	flag.IntVar(&opts.shards, "shards", 1, "controller processes, each serving a shard of the fleet (by the annotation sharding.projectsveltos.io/key); the first serves the default shard, which also drives the rollouts")
	flag.Var(&opts.controllerArgs, "controller-arg", "extra flag for `stagecoach controller` (repeatable)")
	memoryLimit := flag.String("memory-limit", "", "the controller's memory limit (such as 1Gi), as a container's: its heap limit (GOMEMLIMIT) is set to 90% of it, as the controller sets it under a container's limit")
	flag.Parse()
	if err := applyProfile(&opts); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if *memoryLimit != "" {
		q, err := resource.ParseQuantity(*memoryLimit)
		if err != nil {
			fmt.Fprintf(os.Stderr, "-memory-limit: %v\n", err)
			os.Exit(2)
		}
		opts.memoryLimit = q.Value()
	}

	log := funcr.New(func(prefix, args string) {
		fmt.Fprintf(os.Stderr, "%s %s\n", time.Now().Format("15:04:05"), args)
	}, funcr.Options{})
	// The sandbox's clients log through controller-runtime's logger, which otherwise complains
	// with a stack trace.
	ctrllog.SetLogger(log.WithName("sandbox"))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, opts.timeout)
	defer cancel()

	var results []*result
	for i := range max(1, opts.runs) {
		if opts.runs > 1 {
			log.Info("run", "of", opts.runs, "number", i+1)
		}
		res, err := run(ctx, opts, log)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench-scale:", err)
			os.Exit(1)
		}
		line, _ := json.Marshal(res)
		fmt.Println(string(line))
		results = append(results, res)
	}
	if len(results) > 1 {
		line, err := medians(results)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench-scale:", err)
			os.Exit(1)
		}
		fmt.Println(string(line))
	}
}

func run(ctx context.Context, opts options, log logr.Logger) (*result, error) {
	// Each run has a directory of its own: several runs do not share a management cluster.
	if opts.dir == "" || opts.runs > 1 {
		dir, err := os.MkdirTemp(opts.dir, "stagecoach-bench-")
		if err != nil {
			return nil, err
		}
		opts.dir = dir
	}
	var err error
	if opts.stagecoach, err = filepath.Abs(opts.stagecoach); err != nil {
		return nil, err
	}
	raiseOpenFiles(opts.clusters, log)
	b, err := newBench(ctx, opts, log)
	if err != nil {
		return nil, err
	}
	defer b.close()
	return b.run(ctx)
}

type stringList []string

func (s *stringList) String() string     { return fmt.Sprint(*s) }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }
