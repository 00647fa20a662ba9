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
	"math"
	"path/filepath"
	"slices"
	"time"

	"github.com/go-logr/logr"
	"golang.org/x/sync/errgroup"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/stagecoach-dev/stagecoach/internal/chartrepo"
	"github.com/stagecoach-dev/stagecoach/internal/registration"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
	"github.com/stagecoach-dev/stagecoach/internal/testing/fleetsim"
	"github.com/stagecoach-dev/stagecoach/internal/testing/scalerollout"
)

const (
	fleetNamespace = "fleet"
	fieldOwner     = "stagecoach-bench"
)

// stageLabel puts a cluster in one of scalerollout.Stages: 1% of the fleet in the first, 9% in
// the second, 90% in the last.
const stageLabel = "bench.stagecoach.dev/stage"

type bench struct {
	opts options
	log  logr.Logger

	mgmt   *sandbox.Fleet
	sim    *fleetsim.Fleet
	client client.Client

	live, dead []*fleetsim.Cluster
	// flapping are live clusters that go down and up again; extraAPIs serve more APIs.
	flapping, extraAPIs []*fleetsim.Cluster
	// steady are the live clusters that do not flap.
	steady []*fleetsim.Cluster
	// chartRepo is the URL of the local chart repository (realistic profile).
	chartRepo string
	// stops end what the bench started beside the clusters: the chart repository, the flapping.
	stops   []func()
	ctrl    *controllers
	peakRSS int64
	// shardPeakRSS is each shard's peak over the processes replaced so far.
	shardPeakRSS []int64
	usage        usage
}

func newBench(ctx context.Context, opts options, log logr.Logger) (*bench, error) {
	b := &bench{opts: opts, log: log}
	start := time.Now()
	mgmt, err := sandbox.Up(ctx, sandbox.Options{Dir: filepath.Join(opts.dir, "sandbox"), KubeBinDir: opts.kubeBin, Log: log})
	if err != nil {
		return nil, err
	}
	b.mgmt = mgmt
	log.Info("management cluster up", "elapsed", since(start))
	cfg := rest.CopyConfig(mgmt.Management.Config)
	cfg.QPS = -1
	if b.client, err = client.New(cfg, client.Options{Scheme: scheme.New()}); err != nil {
		b.close()
		return nil, err
	}
	b.sim, err = fleetsim.Start(ctx, fleetsim.Options{
		Clusters:       opts.clusters,
		AvailableAfter: opts.availableAfter,
		Latency:        opts.latency,
		Jitter:         opts.jitter,
		Seed:           opts.seed,
		Log:            log.WithName("fleetsim"),
	})
	if err != nil {
		b.close()
		return nil, err
	}
	if err := b.shapeFleet(ctx); err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

// shapeFleet picks the dead, flapping and extra-API clusters, gives the latter their APIs before
// they are registered, and serves the charts.
func (b *bench) shapeFleet(ctx context.Context) error {
	clusters := b.sim.Clusters()
	dead := deadIndexes(len(clusters), b.opts.deadPercent, b.realistic())
	for i, c := range clusters {
		if dead[i] {
			b.dead = append(b.dead, c)
		} else {
			b.live = append(b.live, c)
		}
	}
	flaps := everyNth(len(clusters), b.opts.flapPercent, 37, dead)
	for _, i := range flaps {
		b.flapping = append(b.flapping, clusters[i])
	}
	for i, c := range clusters {
		if !dead[i] && !slices.Contains(flaps, i) {
			b.steady = append(b.steady, c)
		}
	}
	for _, i := range everyNth(len(clusters), b.opts.extraAPIsPercent, 3, nil) {
		b.extraAPIs = append(b.extraAPIs, clusters[i])
	}
	if err := addExtraAPIs(ctx, b.extraAPIs); err != nil {
		return err
	}
	if b.realistic() {
		url, stop, err := chartrepo.Serve(ctx, b.opts.charts)
		if err != nil {
			return fmt.Errorf("serving the charts of %s: %w", b.opts.charts, err)
		}
		b.chartRepo = url
		b.stops = append(b.stops, stop)
	}
	return nil
}

func (b *bench) close() {
	for _, stop := range b.stops {
		stop()
	}
	if b.ctrl != nil {
		b.ctrl.stop()
	}
	if b.sim != nil {
		_ = b.sim.Close()
	}
	if b.mgmt != nil && !b.opts.keep {
		if err := sandbox.Down(b.mgmt.Dir); err != nil {
			b.log.Error(err, "stopping the management cluster")
		}
	}
}

func (b *bench) run(ctx context.Context) (*result, error) {
	res := &result{Profile: b.opts.kind, Clusters: b.opts.clusters, DeadClusters: len(b.dead), PromotionFloorS: seconds(b.promotionFloor()),
		FlappingClusters: len(b.flapping), ExtraAPIClusters: len(b.extraAPIs), MemoryLimitMiB: float64(b.opts.memoryLimit) / (1 << 20)}
	if b.opts.shards > 1 {
		res.Shards = b.opts.shards
	}
	if err := b.register(ctx); err != nil {
		return nil, err
	}
	var err error
	if b.ctrl, err = b.startController(ctx, "controller.log"); err != nil {
		return nil, err
	}
	start := time.Now()
	if err := b.waitReady(ctx); err != nil {
		return nil, err
	}
	res.RegisterS = seconds(time.Since(start))
	b.logThrottling(ctx, "registration")
	idle, _ := b.ctrl.rss()
	res.IdleRSSMiB = mib(idle)
	if b.opts.profile {
		b.profile(ctx, "heap", "heap-idle.pprof")
	}
	if !b.opts.rollouts {
		b.recordPeaks()
		res.ControllerRSSMiB, res.ShardRSSMiB = mib(b.peakRSS), b.shardRSSMiB()
		b.retire(ctx)
		b.report(res)
		return res, nil
	}

	// The dead clusters stop answering once registered, as a cluster lost mid-rollout would.
	for _, c := range b.dead {
		c.SetDown(fleetsim.Hang)
	}
	if b.realistic() {
		// A dead cluster in a wave holds its slot, so a stage with one would never pass; a
		// cluster already known to be down when its wave is picked is not waited for. The
		// rollouts start once the controller knows them all down, as a fleet's do.
		if err := b.waitDown(ctx); err != nil {
			return nil, err
		}
	}
	flapCtx, stopFlapping := context.WithCancel(ctx)
	b.stops = append(b.stops, stopFlapping)
	b.sim.Flap(flapCtx, b.flapping, b.opts.flapPeriod, b.opts.flapDown, fleetsim.Refuse)
	b.startTracking(ctx)
	if b.opts.promotion {
		if err := b.promote(ctx, res); err != nil {
			return nil, err
		}
	}
	if err := b.updateRun(ctx, res); err != nil {
		return nil, err
	}
	if b.opts.promotion {
		if err := b.upgradeThroughRestart(ctx, res); err != nil {
			return nil, err
		}
	}
	if b.opts.profile {
		b.profile(ctx, "heap", "heap.pprof")
	}
	b.recordPeaks()
	res.ControllerRSSMiB, res.ShardRSSMiB = mib(b.peakRSS), b.shardRSSMiB()
	b.retire(ctx)
	b.report(res)
	return res, nil
}

func (b *bench) startController(ctx context.Context, logName string) (*controllers, error) {
	c, err := startControllers(ctx, b.opts, b.mgmt.Management.Kubeconfig, logName, b.log)
	if err == nil {
		go b.watchUsage(ctx, c)
	}
	return c, err
}

// waitDown waits until the controller reports every dead cluster's connection Down.
func (b *bench) waitDown(ctx context.Context) error {
	dead := map[string]bool{}
	for _, c := range b.dead {
		dead[c.Name()] = true
	}
	return b.waitFor(ctx, "dead clusters reported down", 2*time.Second, func(ctx context.Context) (int, error) {
		list := &unstructured.UnstructuredList{}
		list.SetAPIVersion("lib.projectsveltos.io/v1beta1")
		list.SetKind("SveltosClusterList")
		if err := b.client.List(ctx, list, client.InNamespace(fleetNamespace)); err != nil {
			return 0, err
		}
		n := 0
		for _, u := range list.Items {
			status, _, _ := unstructured.NestedString(u.Object, "status", "connectionStatus")
			if dead[u.GetName()] && status == "Down" {
				n++
			}
		}
		return n, nil
	}, len(b.dead))
}

// register writes, for every simulated cluster, a kubeconfig Secret, a SveltosCluster and a
// MemberCluster, as a platform team's registration pipeline would.
func (b *bench) register(ctx context.Context) error {
	start := time.Now()
	if err := b.apply(ctx, fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n", fleetNamespace)); err != nil {
		return err
	}
	clusters := b.sim.Clusters()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(32)
	for i, c := range clusters {
		g.Go(func() error {
			return registration.Register(gctx, b.client, registration.Cluster{
				Namespace:   fleetNamespace,
				Name:        c.Name(),
				Labels:      map[string]string{stageLabel: stageOf(i, len(clusters))},
				Annotations: shardAnnotations(i, b.opts.shards),
				Kubeconfig:  c.Kubeconfig(),
				Member:      true,
				Manager:     sandbox.FieldManager,
				Identity:    sandbox.AdminUser,
			})
		})
	}
	if err := g.Wait(); err != nil {
		return fmt.Errorf("registering the clusters: %w", err)
	}
	b.log.Info("clusters registered", "clusters", len(clusters), "elapsed", since(start))
	return nil
}

// stageOf puts the first 1% of the clusters in the canary stage, the next 9% in the early one
// and the rest in the main one (each stage gets at least one cluster).
func stageOf(i, n int) string {
	switch {
	case i < max(1, int(math.Ceil(float64(n)/100))):
		return scalerollout.Stages[0]
	case i < max(2, int(math.Ceil(float64(n)/10))):
		return scalerollout.Stages[1]
	}
	return scalerollout.Stages[2]
}

// waitReady waits until the controller reports every live cluster ready, as a SveltosCluster and
// as a MemberCluster.
func (b *bench) waitReady(ctx context.Context) error {
	return b.waitFor(ctx, "clusters ready", 2*time.Second, func(ctx context.Context) (int, error) {
		sveltos, err := b.countReady(ctx, "lib.projectsveltos.io/v1beta1", "SveltosClusterList", sveltosReady)
		if err != nil {
			return 0, err
		}
		members, err := b.countReady(ctx, "cluster.kubernetes-fleet.io/v1beta1", "MemberClusterList", memberJoined)
		return min(sveltos, members), err
	}, len(b.sim.Clusters()))
}

func (b *bench) countReady(ctx context.Context, apiVersion, kind string, ready func(*unstructured.Unstructured) bool) (int, error) {
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion(apiVersion)
	list.SetKind(kind)
	if err := b.client.List(ctx, list); err != nil {
		return 0, err
	}
	n := 0
	for i := range list.Items {
		if ready(&list.Items[i]) {
			n++
		}
	}
	return n, nil
}

func sveltosReady(u *unstructured.Unstructured) bool {
	ready, _, _ := unstructured.NestedBool(u.Object, "status", "ready")
	return ready
}

func memberJoined(u *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Joined" && m["status"] == "True" {
			return true
		}
	}
	return false
}

// waitFor polls count until it reaches want, logging progress and the controller's memory every
// ten seconds.
func (b *bench) waitFor(ctx context.Context, what string, every time.Duration, count func(context.Context) (int, error), want int) error {
	start, lastLog := time.Now(), time.Now()
	for {
		n, err := count(ctx)
		if err == nil && n >= want {
			b.log.Info(what, "done", n, "elapsed", since(start))
			return nil
		}
		if time.Since(lastLog) >= 10*time.Second {
			rss, _ := b.ctrl.rss()
			b.log.Info(what, "done", n, "of", want, "elapsed", since(start), "controllerRSSMiB", mib(rss), "error", errString(err))
			lastLog = time.Now()
		}
		if b.ctrl.exited() {
			return fmt.Errorf("waiting for %s: the controller exited; see its log in %s", what, b.opts.dir)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s (%d of %d): %w", what, n, want, ctx.Err())
		case <-time.After(every):
		}
	}
}

// apply server-side applies every object of a YAML stream.
func (b *bench) apply(ctx context.Context, manifests string) error {
	return scalerollout.Apply(ctx, b.client, fieldOwner, manifests)
}

func seconds(d time.Duration) float64 { return math.Round(d.Seconds()*10) / 10 }
func since(t time.Time) string        { return time.Since(t).Round(100 * time.Millisecond).String() }

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
