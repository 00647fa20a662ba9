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

// Package demo runs Stagecoach's guided demo: a sandbox fleet, a chart repository, the
// controller, and a ClusterPromotion rolled out through dev, staging and prod and then upgraded,
// shown live in the terminal.
package demo

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

// Options configure a demo run.
type Options struct {
	// Dir is the sandbox directory; a sandbox already running there is reused.
	Dir string
	// Charts is the directory of chart sources the chart repository serves (testdata/charts).
	Charts string
	// Executable is the stagecoach binary that runs the controller and the chart repository.
	Executable string
	// KubeBinDir holds the Kubernetes components; empty finds them as `sandbox up` does.
	KubeBinDir string
	// Unattended approves by itself instead of asking, for scripts and CI.
	Unattended bool
	// Terminal redraws progress in place, in Width columns; otherwise each change is printed
	// as it comes.
	Terminal bool
	Width    int
	// Timeout bounds each rollout phase.
	Timeout time.Duration
	In      io.Reader
	Out     io.Writer
	Log     logr.Logger
}

type demo struct {
	Options
	client client.Client
	// mgmt is the management cluster's kubeconfig.
	mgmt   string
	screen *screen
	start  time.Time
	phases []phaseResult
}

type phaseResult struct {
	name    string
	elapsed time.Duration
}

// Run runs the demo from start to end and leaves the fleet running.
func Run(ctx context.Context, opts Options) error {
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Minute
	}
	d := &demo{Options: opts, screen: &screen{out: opts.Out, terminal: opts.Terminal, width: opts.Width}, start: time.Now()}
	repoURL, err := d.startFleet(ctx)
	if err != nil {
		return err
	}
	manifest, p, err := promotion(repoURL)
	if err != nil {
		return err
	}
	if err := d.apply(ctx, manifest, p); err != nil {
		return err
	}
	if err := d.rollout(ctx, "rollout of webapp "+firstVersion, firstVersion); err != nil {
		return err
	}
	d.say("\nUpgrading: webapp %s → %s, stage by stage.\n  kubectl patch clusterpromotion %s --type=json -p '%s'",
		firstVersion, secondVersion, promotionName, upgradePatch(secondVersion))
	if err := d.patch(ctx, upgradePatch(secondVersion)); err != nil {
		return err
	}
	if err := d.rollout(ctx, "upgrade to webapp "+secondVersion, secondVersion); err != nil {
		return err
	}
	return d.summary(ctx)
}

func (d *demo) say(format string, args ...any) {
	fmt.Fprintf(d.Out, format+"\n", args...)
}

// startFleet brings the sandbox up and attaches the chart repository and the controller to it.
func (d *demo) startFleet(ctx context.Context) (string, error) {
	d.say("Starting a sandbox fleet in %s: a management cluster and the clusters dev, staging and prod\n"+
		"(real kube-apiservers, controller managers and schedulers; kwok plays the nodes).", d.Dir)
	fleet, err := sandbox.Up(ctx, sandbox.Options{Dir: d.Dir, Clusters: sandbox.DefaultClusters(), KubeBinDir: d.KubeBinDir, Log: d.Log})
	if err != nil {
		return "", err
	}
	d.say("  fleet ready after %s", time.Since(d.start).Round(100*time.Millisecond))
	charts, err := filepath.Abs(d.Charts)
	if err != nil {
		return "", err
	}
	ports, err := sandbox.FreePorts(d.Dir, 1)
	if err != nil {
		return "", err
	}
	addr := "127.0.0.1:" + strconv.Itoa(ports[0])
	if err := sandbox.Attach(ctx, d.Dir, "chart-repository",
		[]string{d.Executable, "sandbox", "charts", "--charts", charts, "--addr", addr}, ports[0]); err != nil {
		return "", err
	}
	repoURL := "http://" + addr + "/"
	if err := waitServing(ctx, repoURL+"index.yaml"); err != nil {
		return "", fmt.Errorf("the chart repository did not start (see %s): %w", sandbox.LogFile(d.Dir, "chart-repository"), err)
	}
	d.say("  chart repository serving webapp %s and %s at %s", firstVersion, secondVersion, repoURL)
	mgmt := fleet.Management.Kubeconfig
	d.mgmt = mgmt
	if err := sandbox.Attach(ctx, d.Dir, "stagecoach-controller", []string{
		d.Executable, "controller", "--kubeconfig", mgmt,
		"--metrics-bind-address=0", "--health-probe-bind-address=0",
		"--probe-interval=2s", "--health-interval=1s",
		"--chart-cache-dir=" + filepath.Join(fleet.Dir, "chart-cache"),
	}); err != nil {
		return "", err
	}
	d.say("  controller running: stagecoach controller --kubeconfig %s (log: %s)", mgmt, sandbox.LogFile(d.Dir, "stagecoach-controller"))
	if d.client, err = client.New(fleet.Management.Config, client.Options{Scheme: scheme.New()}); err != nil {
		return "", err
	}
	return repoURL, d.waitClustersReady(ctx)
}

func waitServing(ctx context.Context, url string) error {
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return false, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false, nil
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
}

// waitClustersReady waits until the controller has connected to every managed cluster.
func (d *demo) waitClustersReady(ctx context.Context) error {
	var notReady []string
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		var list libv1beta1.SveltosClusterList
		if err := d.client.List(ctx, &list); err != nil {
			return false, nil
		}
		notReady = nil
		for _, c := range list.Items {
			if !c.Status.Ready {
				notReady = append(notReady, c.Name)
			}
		}
		return len(list.Items) > 0 && len(notReady) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("the controller did not connect to %v (see %s): %w", notReady, sandbox.LogFile(d.Dir, "stagecoach-controller"), err)
	}
	d.say("  the controller reaches every cluster\n")
	return nil
}

// apply replaces any promotion left by an earlier run and creates the demo's.
func (d *demo) apply(ctx context.Context, manifest string, p *configv1beta1.ClusterPromotion) error {
	old := &configv1beta1.ClusterPromotion{}
	if err := d.client.Get(ctx, client.ObjectKey{Name: promotionName}, old); err == nil {
		d.say("Removing the promotion %s left by an earlier run (and what it deployed).", promotionName)
		if err := d.client.Delete(ctx, old); client.IgnoreNotFound(err) != nil {
			return err
		}
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, d.Timeout, true, func(ctx context.Context) (bool, error) {
			return apierrors.IsNotFound(d.client.Get(ctx, client.ObjectKey{Name: promotionName}, old)), nil
		})
		if err != nil {
			return fmt.Errorf("the earlier promotion was not removed: %w", err)
		}
	}
	file := filepath.Join(d.Dir, "webapp-promotion.yaml")
	if err := os.WriteFile(file, []byte(manifest), 0o644); err != nil {
		return err
	}
	d.say("Applying the ClusterPromotion (%s):\n\n%s", file, indent(manifest))
	return d.client.Create(ctx, p)
}

// rollout follows the promotion until every stage runs version, approving the manual stage.
func (d *demo) rollout(ctx context.Context, name, version string) error {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, d.Timeout)
	defer cancel()
	d.screen.reset()
	ticker := time.NewTicker(300 * time.Millisecond)
	defer ticker.Stop()
	var approved string
	for {
		snap, err := observe(ctx, d.client)
		if err == nil {
			header := fmt.Sprintf("\n%s — %s", name, time.Since(start).Round(time.Second))
			d.screen.show(header, snap.lines())
			if snap.ready && snap.runs(version) {
				d.phases = append(d.phases, phaseResult{name, time.Since(start)})
				d.say("%s: done in %s", name, time.Since(start).Round(100*time.Millisecond))
				return nil
			}
			// The status says "awaiting approval" until the controller has seen the approval:
			// approve once per stage visit.
			if snap.awaitingApproval && approved != snap.visit {
				if err := d.approve(ctx); err != nil {
					return err
				}
				approved = snap.visit
				d.screen.reset()
			}
		}
		select {
		case <-ctx.Done():
			if err == nil {
				err = errors.New("the rollout did not finish")
			}
			return fmt.Errorf("%s: %w (controller log: %s)", name, err, sandbox.LogFile(d.Dir, "stagecoach-controller"))
		case <-ticker.C:
		}
	}
}

// runs reports whether every cluster of every stage has version.
func (s *snapshot) runs(version string) bool {
	for _, st := range s.stages {
		for _, c := range st.clusters {
			if c.version != version {
				return false
			}
		}
	}
	return true
}

// approve lets the staging stage go on to prod with the stagecoach command an operator would
// run, asking first unless unattended.
func (d *demo) approve(ctx context.Context) error {
	args := []string{"approve", "promotion", promotionName, "--kubeconfig", d.mgmt}
	cmd := d.Executable + " " + strings.Join(args, " ")
	if d.Unattended {
		d.say("\nstaging is soaked and healthy; approving the promotion to prod:\n  %s", cmd)
	} else {
		d.say("\nstaging is soaked and healthy, and prod waits for approval. Press Enter to approve; this runs\n  %s", cmd)
		if _, err := bufio.NewReader(d.In).ReadString('\n'); err != nil {
			return fmt.Errorf("waiting for approval: %w", err)
		}
	}
	out, err := exec.CommandContext(ctx, d.Executable, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w: %s", cmd, err, out)
	}
	d.say("  %s", strings.TrimSpace(string(out)))
	return nil
}

func (d *demo) patch(ctx context.Context, patch string) error {
	p := &configv1beta1.ClusterPromotion{}
	p.Name = promotionName
	return d.client.Patch(ctx, p, client.RawPatch(types.JSONPatchType, []byte(patch)))
}

func indent(s string) string {
	out := ""
	for _, line := range splitLines(s) {
		out += "    " + line + "\n"
	}
	return out
}
