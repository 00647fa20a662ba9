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
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/testing/chartrender"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// chartValues are the chart values the trial installs with, beyond the defaults:
//   - a 1 s probe interval (default 10 s), so that an outage marks a cluster Down after about
//     3 s (three failed probes) rather than 30 s, within a trial of half a minute;
//   - a 1 s health interval (default 5 s): each batch of the wave waits for its health checks to
//     pass, and a wave of five in three batches would wait up to 15 s more per trial;
//   - leader election timings of 5 s, 4 s and 1 s (default 15 s, 10 s and 2 s): a killed leader's
//     Lease must expire before a standby takes over, and with the defaults each leader kill would
//     stall the rollout for 15 to 17 s, which would take 200 trials well past an hour.
var chartValues = map[string]any{
	"controller": map[string]any{
		"probeInterval":  "1s",
		"healthInterval": "1s",
		"extraArgs": []any{"--leader-elect-lease-duration=5s", "--leader-elect-renew-deadline=4s",
			"--leader-elect-retry-period=1s"},
	},
}

// leaseName is the Lease the replicas of the main Deployment elect their leader with.
const leaseName = "stagecoach.dev"

// controllerProcess is the controller as the chart installs it: the shipped binary with the
// Deployment's arguments, as the chart's ServiceAccount, one process per replica attached to
// the sandbox (stagecoach-0, stagecoach-1, …), with leader election.
type controllerProcess struct {
	dir      string
	c        client.Client
	replicas []*replica
}

type replica struct {
	name string
	// base are the arguments but the ports'.
	base []string
	// metrics is the port of its metrics endpoint, where it says whether it leads.
	metrics int
	ports   []int
}

// newControllerProcess renders the chart's controller Deployment and prepares its replicas: the
// chart's arguments, then what a process beside others on one machine needs instead of what a
// pod has (its own ports, a kubeconfig with the ServiceAccount's token, a cache directory).
func newControllerProcess(ctx context.Context, fleet *sandbox.Fleet, c client.Client) (*controllerProcess, error) {
	bin, err := stagecoachBinary()
	if err != nil {
		return nil, err
	}
	args, replicas, err := chartController(ctx)
	if err != nil {
		return nil, err
	}
	cfg, _, err := testenv.ChartServiceAccountConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("installing the chart's RBAC: %w", err)
	}
	kubeconfig := filepath.Join(fleet.Dir, "stagecoach-controller.kubeconfig")
	kc := clientcmdapi.NewConfig()
	kc.Clusters["management"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthority: cfg.CAFile, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["stagecoach"] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken}
	kc.Contexts["stagecoach"] = &clientcmdapi.Context{Cluster: "management", AuthInfo: "stagecoach"}
	kc.CurrentContext = "stagecoach"
	if err := clientcmd.WriteToFile(*kc, kubeconfig); err != nil {
		return nil, err
	}
	p := &controllerProcess{dir: fleet.Dir, c: c}
	for i := range replicas {
		ports, err := sandbox.FreePorts(fleet.Dir, 2)
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("stagecoach-%d", i)
		a := append([]string{bin, "controller"}, args...)
		// CHAOS_CONTROLLER_ARGS adds to the chart's (--zap-log-level=debug, say).
		a = append(a, strings.Fields(os.Getenv("CHAOS_CONTROLLER_ARGS"))...)
		a = append(a, "--kubeconfig="+kubeconfig, "--chart-cache-dir="+filepath.Join(fleet.Dir, name+"-cache"))
		p.replicas = append(p.replicas, &replica{name: name, base: a, metrics: ports[0], ports: ports})
	}
	return p, nil
}

// stagecoachBinary finds the binary `make build` builds: $STAGECOACH_BIN, else bin/stagecoach
// in the working directory or a parent.
func stagecoachBinary() (string, error) {
	if env := os.Getenv("STAGECOACH_BIN"); env != "" {
		return filepath.Abs(env)
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		bin := filepath.Join(dir, "bin", "stagecoach")
		if _, err := os.Stat(bin); err == nil {
			return bin, nil
		}
		if filepath.Dir(dir) == dir {
			return "", errors.New("bin/stagecoach is not built: run `make build` (or set STAGECOACH_BIN)")
		}
		dir = filepath.Dir(dir)
	}
}

// chartController renders the chart with chartValues and returns the controller container's
// arguments and the Deployment's replicas.
func chartController(ctx context.Context) ([]string, int, error) {
	dir, err := filepath.Abs("../../charts/stagecoach")
	if err != nil {
		return nil, 0, err
	}
	manifest, err := chartrender.Render(ctx, dir, chartrender.Options{Release: "stagecoach", Namespace: testenv.ChartNamespace, Values: chartValues})
	if err != nil {
		return nil, 0, err
	}
	objs, err := manifests.Parse("the chart", map[string][]byte{"manifest": []byte(manifest)})
	if err != nil {
		return nil, 0, err
	}
	for _, o := range objs {
		if o.GetKind() != "Deployment" || o.GetName() != "stagecoach" {
			continue
		}
		replicas, _, _ := unstructured.NestedInt64(o.Object, "spec", "replicas")
		containers, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
		for _, ct := range containers {
			m, _ := ct.(map[string]any)
			if m["name"] != "controller" {
				continue
			}
			var args []string
			for _, a := range m["args"].([]any) {
				args = append(args, a.(string))
			}
			return args, int(replicas), nil
		}
	}
	return nil, 0, errors.New("the chart renders no stagecoach Deployment with a controller container")
}

// start starts every replica that is not running.
func (p *controllerProcess) start(ctx context.Context) error {
	for _, r := range p.replicas {
		running, err := sandbox.Running(p.dir, r.name)
		if err != nil || running {
			continue
		}
		if err := sandbox.Attach(ctx, p.dir, r.name, r.args(), r.ports...); err != nil {
			// A port of the replica's was taken while it was down: it starts on others.
			ports, perr := sandbox.FreePorts(p.dir, 2)
			if perr != nil {
				return err
			}
			r.metrics, r.ports = ports[0], ports
			if err := sandbox.Attach(ctx, p.dir, r.name, r.args(), r.ports...); err != nil {
				return err
			}
		}
	}
	return nil
}

// kill SIGKILLs the given replicas, as a node failure would.
func (p *controllerProcess) kill(rs ...*replica) error {
	for _, r := range rs {
		if err := sandbox.Kill(p.dir, r.name); err != nil {
			return err
		}
	}
	return nil
}

// leader finds the replica that leads: the Lease must name a holder, and that replica's metrics
// say it leads (identities are the host name and a random suffix, so only the process can say
// whether the holder is itself). It returns nil when no replica leads yet, as after a kill.
func (p *controllerProcess) leader(ctx context.Context) (*replica, string) {
	lease := &coordinationv1.Lease{}
	if err := p.c.Get(ctx, client.ObjectKey{Namespace: testenv.ChartNamespace, Name: leaseName}, lease); err != nil ||
		lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		return nil, ""
	}
	for _, r := range p.replicas {
		if r.leads(ctx) {
			return r, *lease.Spec.HolderIdentity
		}
	}
	return nil, *lease.Spec.HolderIdentity
}

func (r *replica) args() []string {
	return append(slices.Clone(r.base), fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", r.ports[0]),
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", r.ports[1]))
}

// leads reads the replica's leader_election_master_status.
func (r *replica) leads(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/metrics", r.metrics), nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return err == nil && strings.Contains(string(body), `leader_election_master_status{name="`+leaseName+`"} 1`)
}
