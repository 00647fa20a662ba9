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
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

const pollInterval = 200 * time.Millisecond

// run starts every process of st that is not running, tier by tier, then bootstraps the clusters
// and waits until each is ready. It is idempotent, which is what makes recovery after a crash work.
// Once every cluster was ready, only the clusters it started a process of are bootstrapped again
// (every one if it started etcd, which holds them all): a restarted API server is back in seconds,
// where waiting for the whole fleet takes a minute on a busy machine.
func (l layout) run(ctx context.Context, st *state, log logr.Logger) error {
	started := map[string]bool{}
	for tier := tierStorage; tier <= tierControllers; tier++ {
		for _, p := range st.Processes {
			if p.Tier != tier || p.alive() {
				continue
			}
			started[p.Name] = true
			log.V(1).Info("starting", "component", p.Name)
			if err := waitPortsFree(ctx, p); err != nil {
				return err
			}
			if err := l.releaseNodeLease(ctx, st, p); err != nil {
				return err
			}
			if err := p.start(l.logs()); err != nil {
				return err
			}
		}
		if err := saveState(l.stateFile(), st); err != nil {
			return err
		}
		var err error
		switch tier {
		case tierStorage:
			err = l.waitEtcd(ctx, st)
		case tierAPIServer:
			err = l.waitAPIServers(ctx, st)
		}
		if err != nil {
			return err
		}
		log.Info("started", "tier", []string{"etcd", "kube-apiservers", "controllers"}[tier])
	}
	g, gctx := errgroup.WithContext(ctx)
	for _, c := range st.toBootstrap(started) {
		g.Go(func() error {
			if err := l.bootstrap(gctx, st, c); err != nil {
				return fmt.Errorf("cluster %s: %w", c.Name, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil || st.Bootstrapped {
		return err
	}
	st.Bootstrapped = true
	return saveState(l.stateFile(), st)
}

// releaseNodeLease frees the node Lease of the cluster whose kwok p is, before p starts again.
// The kwok that held it is gone, but each kwok takes a node only once the Lease of the one before
// has expired: without this the cluster's pods would not move for up to 40 s after a restart.
func (l layout) releaseNodeLease(ctx context.Context, st *state, p *process) error {
	if !st.Bootstrapped {
		return nil
	}
	for _, c := range st.Clusters {
		if !c.Managed || p.Name != c.Name+suffixKwok {
			continue
		}
		cs, err := l.clientset(c.Name)
		if err != nil {
			return err
		}
		return l.poll(ctx, st, c.Name+suffixAPIServer, "able to release the node Lease", func(ctx context.Context) (bool, error) {
			err := cs.CoordinationV1().Leases(corev1.NamespaceNodeLease).Delete(ctx, nodeName(c.Name), metav1.DeleteOptions{})
			return err == nil || apierrors.IsNotFound(err), nil
		})
	}
	return nil
}

// toBootstrap lists the clusters to bootstrap once the processes named in started were started:
// every cluster until all were ready once; then those a started process belongs to, or all if
// etcd, which holds them all, was started.
func (st *state) toBootstrap(started map[string]bool) []clusterState {
	if !st.Bootstrapped || started["etcd"] {
		return st.Clusters
	}
	return slices.DeleteFunc(slices.Clone(st.Clusters), func(c clusterState) bool {
		return !slices.ContainsFunc(c.components(), func(name string) bool { return started[name] })
	})
}

// bootstrap prepares one cluster and waits for it to be ready: the management cluster gets the CRDs
// and the registrations; a managed cluster gets its kwok node and its controllers are checked.
func (l layout) bootstrap(ctx context.Context, st *state, c clusterState) error {
	cfg, err := restConfig(l.kubeconfig(c.Name))
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	if err := l.waitHealthz(ctx, st, c.Name+suffixControllerManager, c.ControllerManagerPort); err != nil {
		return err
	}
	if !c.Managed {
		return l.registerClusters(ctx, cfg, st)
	}
	if err := l.waitHealthz(ctx, st, c.Name+suffixScheduler, c.SchedulerPort); err != nil {
		return err
	}
	if err := ensureNode(ctx, cs, c.Name); err != nil {
		return err
	}
	return l.poll(ctx, st, c.Name+suffixKwok, "node Ready and default service account", func(ctx context.Context) (bool, error) {
		node, err := cs.CoreV1().Nodes().Get(ctx, nodeName(c.Name), getOpts)
		if err != nil || !nodeReady(node) {
			return false, nil
		}
		// Pods can't be created before the controller manager made the namespace's service account.
		_, err = cs.CoreV1().ServiceAccounts("default").Get(ctx, "default", getOpts)
		return err == nil, nil
	})
}

// waitPortsFree waits until every port of p can be listened on. A component that was just killed
// may leave its sockets behind for a moment, and starting it again before they are gone would
// make it exit with "address already in use".
func waitPortsFree(ctx context.Context, p *process) error {
	var busy int
	err := pollUntilTimeout(ctx, 20*time.Second, func(context.Context) bool {
		busy = 0
		for _, port := range p.Ports {
			ln, err := net.Listen("tcp", "127.0.0.1:"+itoa(port))
			if err != nil {
				busy = port
				return false
			}
			_ = ln.Close()
		}
		return true
	})
	if err != nil {
		return fmt.Errorf("port %d of %s is held by another program (see `ss -ltnp 'sport = :%d'`); stop it, or start afresh with stagecoach sandbox down",
			busy, p.Name, busy)
	}
	return nil
}

func (l layout) waitEtcd(ctx context.Context, st *state) error {
	url := fmt.Sprintf("http://127.0.0.1:%d/health", st.EtcdPort)
	return l.poll(ctx, st, "etcd", "healthy", func(ctx context.Context) (bool, error) {
		return httpOK(ctx, http.DefaultClient, url), nil
	})
}

// clientset is a client of cluster name's API server, as the sandbox's administrator.
func (l layout) clientset(name string) (*kubernetes.Clientset, error) {
	cfg, err := restConfig(l.kubeconfig(name))
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(cfg)
}

func (l layout) waitAPIServers(ctx context.Context, st *state) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, c := range st.Clusters {
		g.Go(func() error {
			cs, err := l.clientset(c.Name)
			if err != nil {
				return err
			}
			return l.poll(gctx, st, c.Name+suffixAPIServer, "ready", func(ctx context.Context) (bool, error) {
				body, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
				return err == nil && string(body) == "ok", nil
			})
		})
	}
	return g.Wait()
}

// waitHealthz polls a component's /healthz over TLS, verified with the sandbox CA.
func (l layout) waitHealthz(ctx context.Context, st *state, component string, port int) error {
	ca, err := os.ReadFile(l.pki().caCert())
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	url := fmt.Sprintf("https://127.0.0.1:%d/healthz", port)
	return l.poll(ctx, st, component, "healthy", func(ctx context.Context) (bool, error) {
		return httpOK(ctx, client, url), nil
	})
}

// poll waits for cond, failing early with the end of the component's log if the process exits.
func (l layout) poll(ctx context.Context, st *state, component, what string, cond wait.ConditionWithContextFunc) error {
	var proc *process
	for _, p := range st.Processes {
		if p.Name == component {
			proc = p
		}
	}
	err := wait.PollUntilContextCancel(ctx, pollInterval, true, func(ctx context.Context) (bool, error) {
		if proc != nil && !proc.alive() {
			return false, fmt.Errorf("%s exited:\n%s", component, logTail(filepath.Join(l.logs(), component+".log"), 15))
		}
		return cond(ctx)
	})
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("timed out waiting for %s to be %s:\n%s", component, what,
			logTail(filepath.Join(l.logs(), component+".log"), 15))
	}
	return err
}

func httpOK(ctx context.Context, client *http.Client, url string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func nodeReady(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func logTail(path string, lines int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "(no log)"
	}
	all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return "  " + strings.Join(all[max(0, len(all)-lines):], "\n  ")
}

func pollUntil(ctx context.Context, cond func(context.Context) bool) error {
	return wait.PollUntilContextCancel(ctx, pollInterval, true, func(ctx context.Context) (bool, error) {
		return cond(ctx), nil
	})
}

func pollUntilTimeout(ctx context.Context, timeout time.Duration, cond func(context.Context) bool) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return pollUntil(ctx, cond)
}
