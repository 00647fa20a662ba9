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

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"

	"github.com/go-logr/logr"
)

// SourceControllerName is the process name of Flux's source-controller in a sandbox (its log is
// logs/source-controller.log).
const SourceControllerName = "source-controller"

// fluxCRDsDir holds the Flux source CRDs, one a file, next to the source-controller binary;
// `make flux` copies them from source-controller's module.
const fluxCRDsDir = "crds"

// FindFluxBin locates Flux's source-controller and its CRDs as built by `make flux`:
// $STAGECOACH_FLUX_BIN, then flux/ next to the running executable, then bin/flux in the current
// directory or any parent.
func FindFluxBin() (string, error) {
	var candidates []string
	if env := os.Getenv("STAGECOACH_FLUX_BIN"); env != "" {
		candidates = append(candidates, env)
	}
	if exe, err := os.Executable(); err == nil {
		candidates = append(candidates, filepath.Join(filepath.Dir(exe), "flux"))
	}
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			candidates = append(candidates, filepath.Join(d, "bin", "flux"))
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	for _, c := range candidates {
		if _, err := os.Stat(filepath.Join(c, SourceControllerName)); err == nil {
			return filepath.Abs(c)
		}
	}
	return "", errors.New("the Flux source-controller is not built: run `make flux` (or set STAGECOACH_FLUX_BIN)")
}

// startSourceController runs Flux's source-controller against the management cluster, after
// installing the Flux source CRDs there. Its artifacts are stored under the sandbox directory and
// served on a leased loopback port, which it also advertises in each source's
// status.artifact.url, so that a controller on this machine downloads them. It keeps the ports
// it had when restarted.
func (l layout) startSourceController(ctx context.Context, fluxBin string, log logr.Logger) error {
	st, err := loadState(l.stateFile())
	if err != nil {
		return err
	}
	i := slices.IndexFunc(st.Processes, func(p *process) bool { return p.Name == SourceControllerName })
	if i >= 0 && st.Processes[i].alive() {
		return nil
	}
	cfg, err := restConfig(l.kubeconfig(ManagementCluster))
	if err != nil {
		return err
	}
	crds := os.DirFS(filepath.Join(fluxBin, fluxCRDsDir))
	files, err := fs.Glob(crds, "*.yaml")
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("no CRDs in %s: run `make flux`", filepath.Join(fluxBin, fluxCRDsDir))
	}
	if err != nil {
		return err
	}
	if err := installCRDs(ctx, cfg, crds, files); err != nil {
		return fmt.Errorf("installing the Flux source CRDs: %w", err)
	}
	var p *process
	if i >= 0 {
		p = st.Processes[i]
		if err := defaultPorts().hold(l.dir, p.Ports); err != nil {
			return err
		}
	} else {
		ports, err := defaultPorts().lease(l.dir, 2)
		if err != nil {
			return err
		}
		p = l.sourceController(fluxBin, ports[0], ports[1])
		st.Processes = append(st.Processes, p)
	}
	log.V(1).Info("starting", "component", p.Name)
	if err := os.MkdirAll(l.fluxStorage(), 0o755); err != nil {
		return err
	}
	if err := waitPortsFree(ctx, p); err != nil {
		return err
	}
	if err := p.start(l.logs()); err != nil {
		return err
	}
	if err := saveState(l.stateFile(), st); err != nil {
		return err
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/readyz", p.Ports[1])
	return l.poll(ctx, st, p.Name, "ready", func(ctx context.Context) (bool, error) {
		return httpOK(ctx, http.DefaultClient, url), nil
	})
}

// sourceController is Flux's source-controller, serving artifacts on storagePort and its health
// probes on healthPort. It is attached rather than a component: `down` stops it first, and it
// has no say in the clusters' readiness.
func (l layout) sourceController(fluxBin string, storagePort, healthPort int) *process {
	storage := "127.0.0.1:" + itoa(storagePort)
	return &process{Name: SourceControllerName, Tier: tierAttached, Ports: []int{storagePort, healthPort},
		Env: []string{"KUBECONFIG=" + l.kubeconfig(ManagementCluster)},
		Args: []string{
			filepath.Join(fluxBin, SourceControllerName),
			"--storage-path=" + l.fluxStorage(),
			"--storage-addr=" + storage,
			// status.artifact.url names this address, which the controller downloads from.
			"--storage-adv-addr=" + storage,
			"--health-addr=127.0.0.1:" + itoa(healthPort),
			"--metrics-addr=0",
			"--enable-leader-election=false",
			"--log-encoding=console",
		}}
}

// fluxStorage is where source-controller keeps its artifacts.
func (l layout) fluxStorage() string { return filepath.Join(l.dir, "flux-storage") }
