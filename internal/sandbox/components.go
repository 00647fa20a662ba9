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
	"path/filepath"
)

// Process tiers: each tier starts once the one below serves, and stops before it.
const (
	tierStorage = iota
	tierAPIServer
	tierControllers
	// tierAttached holds programs started next to the fleet with Attach (a controller, a chart
	// repository): `down` stops them first, and `up` leaves them to whoever attached them.
	tierAttached
)

// A cluster's processes are named after it: <cluster><suffix>.
const (
	suffixAPIServer         = "-kube-apiserver"
	suffixControllerManager = "-kube-controller-manager"
	suffixScheduler         = "-kube-scheduler"
	suffixKwok              = "-kwok"
)

// components names the processes of cluster c (a management cluster has no scheduler nor kwok).
func (c clusterState) components() []string {
	return []string{c.Name + suffixAPIServer, c.Name + suffixControllerManager, c.Name + suffixScheduler, c.Name + suffixKwok}
}

// ServiceClusterIPRange is the virtual Service range of every sandbox cluster.
const serviceClusterIPRange = "10.96.0.0/16"

// layout resolves the paths of one sandbox directory.
type layout struct {
	dir     string
	kubeBin string
}

func (l layout) pki() pki               { return pki{dir: filepath.Join(l.dir, "pki")} }
func (l layout) logs() string           { return filepath.Join(l.dir, "logs") }
func (l layout) etcdData() string       { return filepath.Join(l.dir, "etcd") }
func (l layout) stateFile() string      { return filepath.Join(l.dir, "sandbox.json") }
func (l layout) bin(name string) string { return filepath.Join(l.kubeBin, name) }
func (l layout) kubeconfig(cluster string) string {
	return filepath.Join(l.dir, cluster+".kubeconfig")
}

func (l layout) etcd(st *state) *process {
	client := "http://127.0.0.1:" + itoa(st.EtcdPort)
	peer := "http://127.0.0.1:" + itoa(st.EtcdPeerPort)
	return &process{Name: "etcd", Tier: tierStorage, Ports: []int{st.EtcdPort, st.EtcdPeerPort}, Args: []string{
		l.bin("etcd"),
		"--name=sandbox",
		"--data-dir=" + l.etcdData(),
		"--listen-client-urls=" + client,
		"--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer,
		"--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=sandbox=" + peer,
		"--listen-metrics-urls=",
		// The sandbox is disposable; skipping fsync makes every write far cheaper.
		"--unsafe-no-fsync",
		"--auto-compaction-mode=revision",
		"--auto-compaction-retention=1000",
		"--log-level=warn",
	}}
}

func (l layout) apiserver(st *state, c *clusterState) *process {
	p := l.pki()
	return &process{Name: c.Name + suffixAPIServer, Tier: tierAPIServer, Ports: []int{c.APIServerPort}, Args: []string{
		l.bin("kube-apiserver"),
		"--etcd-servers=http://127.0.0.1:" + itoa(st.EtcdPort),
		// One etcd serves every cluster; each cluster keeps its objects under its own prefix.
		"--etcd-prefix=" + EtcdPrefix + c.Name,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + itoa(c.APIServerPort),
		"--tls-cert-file=" + p.servingCert(),
		"--tls-private-key-file=" + p.servingKey(),
		"--client-ca-file=" + p.caCert(),
		"--service-account-key-file=" + p.saPub(),
		"--service-account-signing-key-file=" + p.saKey(),
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-cluster-ip-range=" + serviceClusterIPRange,
		"--authorization-mode=RBAC",
		"--allow-privileged=true",
		// Loopback cannot be published as the endpoint of the kubernetes Service.
		"--endpoint-reconciler-type=none",
		"--enable-priority-and-fairness=false",
		"--profiling=false",
		"--cert-dir=" + filepath.Join(l.dir, "apiserver-certs", c.Name),
	}}
}

// controllerManager runs every default controller, so Deployments, ReplicaSets, garbage collection,
// namespace deletion and service-account tokens behave as on a real cluster.
func (l layout) controllerManager(c *clusterState) *process {
	p := l.pki()
	kc := l.kubeconfig(c.Name)
	return &process{Name: c.Name + suffixControllerManager, Tier: tierControllers, Ports: []int{c.ControllerManagerPort}, Args: []string{
		l.bin("kube-controller-manager"),
		"--kubeconfig=" + kc,
		"--authentication-kubeconfig=" + kc,
		"--authorization-kubeconfig=" + kc,
		"--bind-address=127.0.0.1",
		"--secure-port=" + itoa(c.ControllerManagerPort),
		"--tls-cert-file=" + p.servingCert(),
		"--tls-private-key-file=" + p.servingKey(),
		"--root-ca-file=" + p.caCert(),
		"--service-account-private-key-file=" + p.saKey(),
		"--cluster-name=" + c.Name,
		"--leader-elect=false",
		// When a node misses its heartbeats for this long (its API server restarted on a busy
		// machine, say), the node lifecycle controller marks the node's pods not Ready; kwok,
		// unlike a kubelet, never reports them Ready again, and their Deployments would stay
		// unavailable for good. The default is 50 s.
		"--node-monitor-grace-period=10m",
		"--use-service-account-credentials=false",
		"--kube-api-qps=200",
		"--kube-api-burst=400",
		"--profiling=false",
	}}
}

func (l layout) scheduler(c *clusterState) *process {
	p := l.pki()
	kc := l.kubeconfig(c.Name)
	return &process{Name: c.Name + suffixScheduler, Tier: tierControllers, Ports: []int{c.SchedulerPort}, Args: []string{
		l.bin("kube-scheduler"),
		"--kubeconfig=" + kc,
		"--authentication-kubeconfig=" + kc,
		"--authorization-kubeconfig=" + kc,
		"--bind-address=127.0.0.1",
		"--secure-port=" + itoa(c.SchedulerPort),
		"--tls-cert-file=" + p.servingCert(),
		"--tls-private-key-file=" + p.servingKey(),
		"--leader-elect=false",
		"--kube-api-qps=200",
		"--kube-api-burst=400",
		"--profiling=false",
	}}
}

// kwok plays the kubelet: it keeps the fake node Ready and moves pods through their lifecycle
// according to the stage definitions that `make kube` installs next to the binaries.
func (l layout) kwok(c *clusterState) *process {
	p := l.pki()
	return &process{Name: c.Name + suffixKwok, Tier: tierControllers, Ports: []int{c.KwokPort}, Args: []string{
		l.bin("kwok"),
		"--kubeconfig=" + l.kubeconfig(c.Name),
		"--config=" + l.bin(kwokStagesFile),
		"--manage-all-nodes=true",
		"--node-lease-duration-seconds=40",
		"--node-ip=127.0.0.1",
		"--node-port=" + itoa(c.KwokPort),
		"--server-address=127.0.0.1:" + itoa(c.KwokPort),
		"--tls-cert-file=" + p.servingCert(),
		"--tls-private-key-file=" + p.servingKey(),
	}}
}

// processes lists everything the sandbox runs, in start order.
func (l layout) processes(st *state) []*process {
	procs := []*process{l.etcd(st)}
	for i := range st.Clusters {
		procs = append(procs, l.apiserver(st, &st.Clusters[i]))
	}
	for i := range st.Clusters {
		c := &st.Clusters[i]
		procs = append(procs, l.controllerManager(c))
		if c.Managed {
			procs = append(procs, l.scheduler(c), l.kwok(c))
		}
	}
	return procs
}

// kwokStagesFile holds kwok's node and pod lifecycle stages; `make kube` writes it next to the binaries.
const kwokStagesFile = "kwok-stages.yaml"
