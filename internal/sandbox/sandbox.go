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

// Package sandbox runs a local fleet of real Kubernetes clusters without containers: one etcd,
// and for each cluster a kube-apiserver (plus kube-controller-manager, kube-scheduler and kwok for
// managed clusters), all on loopback with TLS from a generated CA. The management cluster gets the
// Stagecoach CRDs and every managed cluster registered as a SveltosCluster and a MemberCluster.
package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
)

// ManagementCluster is the name of the management cluster; its kubeconfig is mgmt.kubeconfig.
const ManagementCluster = "mgmt"

// ClusterSpec describes one managed cluster: a name and the labels it is registered with.
type ClusterSpec struct {
	Name   string
	Labels map[string]string
}

var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// ParseClusterSpec parses NAME[:key=value,...], the form of the --cluster flag.
func ParseClusterSpec(s string) (ClusterSpec, error) {
	name, labels, _ := strings.Cut(s, ":")
	spec := ClusterSpec{Name: name, Labels: map[string]string{}}
	if !dnsLabel.MatchString(name) || len(name) > 40 {
		return spec, fmt.Errorf("cluster %q: the name must be a lowercase DNS label of at most 40 characters", name)
	}
	if name == ManagementCluster {
		return spec, fmt.Errorf("cluster %q: the name is reserved for the management cluster", name)
	}
	if labels == "" {
		return spec, nil
	}
	for kv := range strings.SplitSeq(labels, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return spec, fmt.Errorf("cluster %q: label %q is not key=value", name, kv)
		}
		spec.Labels[k] = v
	}
	return spec, nil
}

// DefaultClusters are the managed clusters made when none are named.
func DefaultClusters() []ClusterSpec {
	var specs []ClusterSpec
	for _, env := range []string{"dev", "staging", "prod"} {
		specs = append(specs, ClusterSpec{Name: env, Labels: map[string]string{"env": env}})
	}
	return specs
}

// Options configure Up.
type Options struct {
	// Dir holds everything the sandbox writes: kubeconfigs, certificates, etcd data, logs, state.
	Dir string
	// Clusters are the managed clusters; none means a management cluster only.
	Clusters []ClusterSpec
	// KubeBinDir holds etcd, kube-apiserver, … as built by `make kube`; empty means FindKubeBin.
	KubeBinDir string
	// SourceController runs Flux's source-controller against the management cluster, with the
	// Flux source CRDs installed (see FindFluxBin).
	SourceController bool
	// FluxBinDir holds source-controller and its CRDs as built by `make flux`; empty means
	// FindFluxBin.
	FluxBinDir string
	// Timeout bounds the whole start-up.
	Timeout time.Duration
	Log     logr.Logger
}

// Fleet is a running sandbox.
type Fleet struct {
	Dir        string
	Management Cluster
	Managed    []Cluster
	// Etcd is the client URL of the etcd every cluster stores its objects in, each under
	// EtcdPrefix followed by its name and a slash.
	Etcd string
}

// EtcdPrefix starts the etcd key of every object of every cluster of a sandbox.
const EtcdPrefix = "/stagecoach-sandbox/"

// Cluster is one running cluster of a sandbox.
type Cluster struct {
	Name       string
	Labels     map[string]string
	Kubeconfig string
	Config     *rest.Config
}

// state is persisted in the sandbox directory so that `down` and a later `up` know what runs.
type state struct {
	EtcdPort     int            `json:"etcdPort"`
	EtcdPeerPort int            `json:"etcdPeerPort"`
	KubeBin      string         `json:"kubeBin"`
	Clusters     []clusterState `json:"clusters"`
	Processes    []*process     `json:"processes"`
	// Bootstrapped says every cluster was once found ready: from then on, a cluster none of
	// whose processes (nor etcd) had to be started again is not waited for.
	Bootstrapped bool `json:"bootstrapped,omitempty"`
}

type clusterState struct {
	Name                  string            `json:"name"`
	Labels                map[string]string `json:"labels,omitempty"`
	Managed               bool              `json:"managed"`
	APIServerPort         int               `json:"apiServerPort"`
	ControllerManagerPort int               `json:"controllerManagerPort,omitempty"`
	SchedulerPort         int               `json:"schedulerPort,omitempty"`
	KwokPort              int               `json:"kwokPort,omitempty"`
}

// Up starts the sandbox in opts.Dir and returns once every cluster is ready. If the directory
// already holds a sandbox with the same clusters, Up restarts whatever is no longer running (after
// a crash or a reboot) and reuses the data; a sandbox with other clusters is an error.
func Up(ctx context.Context, opts Options) (*Fleet, error) {
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	if err := checkUnique(opts.Clusters); err != nil {
		return nil, err
	}
	kubeBin := opts.KubeBinDir
	if kubeBin == "" {
		if kubeBin, err = FindKubeBin(); err != nil {
			return nil, err
		}
	}
	l := layout{dir: dir, kubeBin: kubeBin}
	st, err := loadState(l.stateFile())
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if st, err = l.initialise(opts.Clusters); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, fmt.Errorf("reading sandbox state in %s: %w; remove it with: stagecoach sandbox down --dir %s", dir, err, opts.Dir)
	default:
		if !sameClusters(st, opts.Clusters) {
			return nil, fmt.Errorf("%s already holds a sandbox with clusters %s; remove it first with: stagecoach sandbox down --dir %s",
				opts.Dir, strings.Join(st.clusterNames(), ", "), opts.Dir)
		}
		l.kubeBin = st.KubeBin
		// Restarted components bind the ports they had; the leases normally still hold them, but
		// the registry lives in the temporary directory, which a reboot may empty.
		if err := defaultPorts().hold(dir, st.componentPorts()); err != nil {
			return nil, err
		}
	}
	fluxBin := opts.FluxBinDir
	if opts.SourceController && fluxBin == "" {
		if fluxBin, err = FindFluxBin(); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	err = l.run(ctx, st, opts.Log)
	if err == nil && opts.SourceController {
		err = l.startSourceController(ctx, fluxBin, opts.Log)
	}
	if err != nil {
		return nil, fmt.Errorf("%w\nlogs are in %s; stop what remains with: stagecoach sandbox down --dir %s", err, l.logs(), opts.Dir)
	}
	opts.Log.Info("sandbox ready", "dir", dir, "clusters", len(st.Clusters), "elapsed", time.Since(start).Round(time.Millisecond))
	return Load(dir)
}

// Down stops every process the sandbox in dir started, removes what it wrote there and releases
// its ports.
func Down(dir string) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	l := layout{dir: dir}
	st, err := loadState(l.stateFile())
	if errors.Is(err, fs.ErrNotExist) {
		return defaultPorts().releaseAll(dir)
	}
	if err != nil {
		return fmt.Errorf("reading sandbox state: %w", err)
	}
	if err := stopAll(st.Processes, 30*time.Second); err != nil {
		return err
	}
	var errs []error
	for _, c := range st.Clusters {
		errs = append(errs, removeIfExists(l.kubeconfig(c.Name)))
	}
	for _, sub := range []string{"pki", "etcd", "logs", "apiserver-certs", "flux-storage"} {
		errs = append(errs, os.RemoveAll(filepath.Join(dir, sub)))
	}
	errs = append(errs, removeIfExists(l.stateFile()))
	errs = append(errs, defaultPorts().releaseAll(dir))
	_ = os.Remove(dir) // only if empty: the directory may hold the user's own files
	return errors.Join(errs...)
}

// Load describes the sandbox running in dir without touching it.
func Load(dir string) (*Fleet, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	l := layout{dir: dir}
	st, err := loadState(l.stateFile())
	if err != nil {
		return nil, err
	}
	fleet := &Fleet{Dir: dir, Etcd: "http://127.0.0.1:" + itoa(st.EtcdPort)}
	for _, c := range st.Clusters {
		cfg, err := restConfig(l.kubeconfig(c.Name))
		if err != nil {
			return nil, err
		}
		cl := Cluster{Name: c.Name, Labels: c.Labels, Kubeconfig: l.kubeconfig(c.Name), Config: cfg}
		if c.Managed {
			fleet.Managed = append(fleet.Managed, cl)
		} else {
			fleet.Management = cl
		}
	}
	return fleet, nil
}

// initialise leases ports and writes certificates, kubeconfigs and the state of a new sandbox. If
// it fails, it gives the ports back.
func (l layout) initialise(specs []ClusterSpec) (*state, error) {
	if err := os.MkdirAll(l.dir, 0o755); err != nil {
		return nil, err
	}
	registry := defaultPorts()
	ports, err := registry.lease(l.dir, 4+4*len(specs))
	if err != nil {
		return nil, err
	}
	st := l.newState(specs, ports)
	if err := l.write(st); err != nil {
		return nil, errors.Join(err, registry.release(l.dir, ports))
	}
	return st, nil
}

// newState assigns the ports to the components of a new sandbox.
func (l layout) newState(specs []ClusterSpec, ports []int) *state {
	next := func() int { p := ports[0]; ports = ports[1:]; return p }
	st := &state{EtcdPort: next(), EtcdPeerPort: next(), KubeBin: l.kubeBin}
	// The management cluster runs a controller manager too: garbage collection and namespace
	// deletion are part of how Kubernetes objects behave.
	st.Clusters = append(st.Clusters, clusterState{Name: ManagementCluster, APIServerPort: next(), ControllerManagerPort: next()})
	for _, s := range specs {
		st.Clusters = append(st.Clusters, clusterState{
			Name: s.Name, Labels: s.Labels, Managed: true,
			APIServerPort: next(), ControllerManagerPort: next(), SchedulerPort: next(), KwokPort: next(),
		})
	}
	st.Processes = l.processes(st)
	return st
}

// write generates the certificates and kubeconfigs of a new sandbox, then saves its state.
func (l layout) write(st *state) error {
	if err := l.pki().generate(); err != nil {
		return err
	}
	for _, c := range st.Clusters {
		if err := l.writeKubeconfig(c.Name, c.APIServerPort); err != nil {
			return err
		}
	}
	return saveState(l.stateFile(), st)
}

// componentPorts lists the ports of the sandbox's own components, attached programs aside.
func (st *state) componentPorts() []int {
	var ports []int
	for _, p := range st.Processes {
		if p.Tier != tierAttached {
			ports = append(ports, p.Ports...)
		}
	}
	return ports
}

// FindKubeBin locates the Kubernetes components built by `make kube`: $STAGECOACH_KUBE_BIN, then
// kube/ next to the running executable, then bin/kube in the current directory or any parent.
func FindKubeBin() (string, error) {
	var candidates []string
	if env := os.Getenv("STAGECOACH_KUBE_BIN"); env != "" {
		candidates = append(candidates, env)
	}
	if exe, err := os.Executable(); err == nil {
		candidates = append(candidates, filepath.Join(filepath.Dir(exe), "kube"))
	}
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			candidates = append(candidates, filepath.Join(d, "bin", "kube"))
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	for _, c := range candidates {
		if _, err := os.Stat(filepath.Join(c, "kube-apiserver")); err == nil {
			return filepath.Abs(c)
		}
	}
	return "", errors.New("the Kubernetes components are not built: run `make kube` (or set STAGECOACH_KUBE_BIN)")
}

func checkUnique(specs []ClusterSpec) error {
	seen := map[string]bool{}
	for _, s := range specs {
		if seen[s.Name] {
			return fmt.Errorf("cluster %q is named twice", s.Name)
		}
		seen[s.Name] = true
	}
	return nil
}

func sameClusters(st *state, specs []ClusterSpec) bool {
	var want []string
	for _, s := range specs {
		want = append(want, s.Name)
	}
	have := st.clusterNames()[1:]
	slices.Sort(want)
	slices.Sort(have)
	return slices.Equal(want, have)
}

func (st *state) clusterNames() []string {
	var names []string
	for _, c := range st.Clusters {
		names = append(names, c.Name)
	}
	return names
}

func loadState(path string) (*state, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	st := &state{}
	return st, json.Unmarshal(data, st)
}

func saveState(path string, st *state) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Kill stops one process of the sandbox in dir at once (SIGKILL), as a crash would, and waits
// until it is gone; process is a name as in the logs directory, e.g. "dev-kube-apiserver".
// A later Up restarts it.
func Kill(dir, process string) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	st, err := loadState(layout{dir: dir}.stateFile())
	if err != nil {
		return err
	}
	for _, p := range st.Processes {
		if p.Name == process {
			p.signal(syscall.SIGKILL)
			deadline := time.Now().Add(10 * time.Second)
			for p.alive() && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			if p.alive() {
				return fmt.Errorf("%s (pid %d) did not exit", process, p.PID)
			}
			return nil
		}
	}
	return fmt.Errorf("the sandbox in %s has no process %q", dir, process)
}

// PIDs returns the running processes of the sandbox in dir by name, as in its logs directory
// ("etcd", "mgmt-kube-apiserver", ...), for whoever measures what they use.
func PIDs(dir string) (map[string]int, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	st, err := loadState(layout{dir: dir}.stateFile())
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, p := range st.Processes {
		if p.alive() {
			out[p.Name] = p.PID
		}
	}
	return out, nil
}
