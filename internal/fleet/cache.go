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

package fleet

import (
	"context"
	"crypto/sha256"
	"maps"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// CacheOptions tune a Cache. The zero value is fine.
type CacheOptions struct {
	// RemoteIdleTimeout is how long a Remote nobody asked for stays cached: a full set of clients
	// with its open connection costs tens of kilobytes, so a fleet of thousands keeps them only
	// for the clusters being deployed to, not for every cluster a rollout went through. The
	// Cache looks for idle Remotes every quarter of it, as it is used. Default 30 seconds.
	RemoteIdleTimeout time.Duration
	// UserAgent, when set, is what every request to a managed cluster says it comes from, so
	// that the cluster's audit log tells the controller replicas apart.
	UserAgent string
	// Namespace is the controller's own, where renewed kubeconfigs are kept (RenewedKubeconfig);
	// empty reads none.
	Namespace string
}

// Cache keeps one connection per managed cluster, built from the cluster's kubeconfig Secret on
// first use and rebuilt when that kubeconfig changes. It is safe for concurrent use: work on one
// cluster never waits for another, and no managed cluster is called while holding a lock.
//
// What is kept per cluster is small: the rest.Config, a bare REST client for probes and, only
// while deployers use it, a Remote; a cluster of a large fleet, probed minutes apart, keeps
// none of them between its probes. There are no informers on managed clusters.
//
// The Cache reads SveltosClusters, MemberClusters and Secrets through the client.Reader it was
// built with; given the manager's cached client, that costs no request to the management cluster.
type Cache struct {
	reader client.Reader
	opts   CacheOptions

	mu          sync.Mutex
	connections map[ClusterRef]*connection
	// swept is when idle Remotes were last looked for.
	swept time.Time

	// answers holds, by kubeconfig, the last answer a cluster gave a probe (ProbeShared).
	answersMu sync.Mutex
	answers   map[[sha256.Size]byte]answer
}

// answer is a cluster's answer to a probe: its version, and when.
type answer struct {
	version string
	at      time.Time
}

// connection is what the Cache keeps for one cluster. mu serialises building and rebuilding it.
type connection struct {
	mu sync.Mutex
	// source identifies the kubeconfig config, probe and remote were built from; config is nil
	// until the first successful build and after the kubeconfig became unusable.
	source     kubeconfigSource
	config     *rest.Config
	probe      *rest.RESTClient
	remote     *Remote
	remoteUsed time.Time
	// mapping is the discovery the last Remote read, kept for the next one while the kubeconfig
	// stays the same: a Remote rebuilt after being idle need not read discovery again (a kind it
	// does not know makes it read discovery anyway).
	mapping *internedMapper
	// releasing is set when the last probe let go of the connection: once idle, the cluster
	// keeps nothing until its next probe.
	releasing bool
	// pending is the kubeconfig read but not parsed yet (refresh without build), until build
	// parses it.
	pending []byte
}

// kubeconfigSource identifies a kubeconfig: where it was read and a hash of its bytes, so that an
// update of the Secret that leaves the kubeconfig alone (a label, another key) keeps the
// connection, and a resourceVersion to skip hashing when nothing changed at all.
type kubeconfigSource struct {
	location        KubeconfigSecret
	uid             types.UID
	resourceVersion string
	hash            [sha256.Size]byte
}

// NewCache returns an empty Cache reading cluster registrations and Secrets through reader.
func NewCache(reader client.Reader, opts CacheOptions) *Cache {
	if opts.RemoteIdleTimeout <= 0 {
		opts.RemoteIdleTimeout = 30 * time.Second
	}
	return &Cache{reader: reader, opts: opts, connections: map[ClusterRef]*connection{}, answers: map[[sha256.Size]byte]answer{}}
}

// Get returns the cluster's Remote, building it if needed. Every call rereads the registration
// and the kubeconfig Secret (cheap with a cached reader) and rebuilds the Remote when the
// kubeconfig changed, so credentials rotated in the Secret are picked up without a restart.
//
// A *ClusterError says what the cluster's owner must fix; a NotFound error means the cluster is
// not registered; anything else is trouble reading the management cluster.
func (c *Cache) Get(ctx context.Context, ref ClusterRef) (*Remote, error) {
	c.sweep()
	conn := c.connection(ref)
	conn.mu.Lock()
	defer conn.mu.Unlock()
	if err := conn.refresh(ctx, c.reader, ref, c.opts, true); err != nil {
		return nil, err
	}
	if conn.remote == nil {
		remote, err := newRemote(ref, conn.config, conn.mapping)
		if err != nil {
			return nil, clusterErrorf(ref, ReasonKubeconfigInvalid,
				"the kubeconfig in key %q of Secret %s cannot be used: %v", conn.source.location.Key, conn.source.location, err)
		}
		conn.remote = remote
	}
	conn.remoteUsed = time.Now()
	return conn.remote, nil
}

// Probe asks the cluster's API server for its version, waiting at most timeout, and returns it
// (for example "v1.36.3"). It proves that the kubeconfig resolves, the server answers and it
// accepts the credentials. Errors are as for Get; an unreachable or refusing server is a
// *ClusterError with ReasonUnreachable and a message such as
// "cannot reach https://10.0.0.1:6443: connection refused".
//
// Probes have HTTP/1.1 connections of their own, apart from deployers'. With release, the
// probe's connection is closed once it is answered, rather than kept for the next probe: a large
// fleet is probed minutes apart (ProbeOptions.Interval), and a TLS session with its buffers held
// open for every cluster in between would cost more memory than everything else the controller
// keeps per cluster.
func (c *Cache) Probe(ctx context.Context, ref ClusterRef, timeout time.Duration, release bool) (string, error) {
	return c.ProbeShared(ctx, ref, timeout, release, 0)
}

// ProbeShared is Probe for the controllers that probe every registered cluster. A cluster
// registered twice with the same kubeconfig (a SveltosCluster and a MemberCluster, as
// `stagecoach register` makes them) is one cluster: an answer it gave a probe of either
// registration less than fresh ago answers the other's, without a connection or the
// kubeconfig parsed again. Only answers are shared: a probe that finds the cluster
// unreachable is not, and makes the next probe of every registration ask the cluster itself.
// Zero fresh shares nothing.
func (c *Cache) ProbeShared(ctx context.Context, ref ClusterRef, timeout time.Duration, release bool, fresh time.Duration) (string, error) {
	c.sweep()
	conn := c.connection(ref)
	conn.mu.Lock()
	err := conn.refresh(ctx, c.reader, ref, c.opts, fresh <= 0)
	kubeconfig := conn.source.hash
	if err == nil && fresh > 0 {
		if version, ok := c.answered(kubeconfig, fresh); ok {
			conn.pending = nil
			conn.releasing = release
			if release && conn.remote == nil {
				conn.release()
			}
			conn.mu.Unlock()
			return version, nil
		}
		if conn.config == nil {
			if err = conn.build(ref, c.opts.UserAgent); err != nil {
				conn.reset() // as refresh does with a kubeconfig that cannot be used
			}
		}
	}
	probe, host := conn.probe, ""
	if conn.config != nil {
		host = serverURL(conn.config.Host)
	}
	// Between probes minutes apart, a cluster no deployer uses keeps nothing: its next probe
	// parses the kubeconfig again, which costs far less than holding thousands of parsed
	// certificates and TLS configurations for clients idle almost all the time.
	conn.releasing = release
	if release && conn.remote == nil {
		conn.release()
	}
	conn.mu.Unlock()
	if err != nil {
		return "", err
	}
	version, err := probeVersion(ctx, probe, ref, host, timeout, release)
	if fresh > 0 {
		c.remember(kubeconfig, version, err)
	}
	return version, err
}

// answered returns the answer the cluster of this kubeconfig gave less than fresh ago.
func (c *Cache) answered(kubeconfig [sha256.Size]byte, fresh time.Duration) (string, bool) {
	c.answersMu.Lock()
	defer c.answersMu.Unlock()
	a, ok := c.answers[kubeconfig]
	if !ok || time.Since(a.at) >= fresh {
		return "", false
	}
	return a.version, true
}

// remember keeps a probe's answer; a probe that found the cluster unreachable, or refusing the
// kubeconfig, forgets the last one.
func (c *Cache) remember(kubeconfig [sha256.Size]byte, version string, err error) {
	c.answersMu.Lock()
	defer c.answersMu.Unlock()
	if err == nil {
		c.answers[kubeconfig] = answer{version: version, at: time.Now()}
		return
	}
	if _, ok := AsClusterError(err); ok {
		delete(c.answers, kubeconfig)
	}
}

// answerKept is how long an answer is kept at most, for a kubeconfig no longer probed.
const answerKept = 10 * time.Minute

// KeepIdleFor is how far apart a cluster's probes may be for its connection to stay open in
// between; see Probe.
const KeepIdleFor = 30 * time.Second

// Forget drops what the Cache keeps for the cluster, typically once it is unregistered. Remotes
// already handed out keep working.
func (c *Cache) Forget(ref ClusterRef) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.connections, ref)
}

// sweep drops the Remotes nobody asked for in RemoteIdleTimeout, at most every quarter of it.
// Connections in use at that moment are left for the next sweep; the dropped Remotes' open
// connections are closed once no lock is held, so that a cluster that stopped answering holds
// up nobody. Probe answers older than answerKept go too.
func (c *Cache) sweep() {
	now := time.Now()
	var idle []*Remote
	swept := false
	c.mu.Lock()
	if now.Sub(c.swept) >= c.opts.RemoteIdleTimeout/4 {
		c.swept, swept = now, true
		for _, conn := range c.connections {
			if !conn.mu.TryLock() {
				continue
			}
			if conn.remote != nil && now.Sub(conn.remoteUsed) > c.opts.RemoteIdleTimeout {
				idle = append(idle, conn.remote)
				conn.mapping, conn.remote = conn.remote.mapping(), nil
				if conn.releasing {
					conn.release()
				}
			}
			conn.mu.Unlock()
		}
	}
	c.mu.Unlock()
	for _, r := range idle {
		r.closeIdle()
	}
	if swept {
		c.answersMu.Lock()
		maps.DeleteFunc(c.answers, func(_ [sha256.Size]byte, a answer) bool { return now.Sub(a.at) > answerKept })
		c.answersMu.Unlock()
	}
}

func (c *Cache) connection(ref ClusterRef) *connection {
	c.mu.Lock()
	defer c.mu.Unlock()
	conn, ok := c.connections[ref]
	if !ok {
		conn = &connection{}
		c.connections[ref] = conn
	}
	return conn
}

// refresh makes config and probe match the cluster's current kubeconfig. The caller holds mu.
func (conn *connection) refresh(ctx context.Context, reader client.Reader, ref ClusterRef, opts CacheOptions, build bool) error {
	loc, err := locateKubeconfig(ctx, reader, ref)
	if err == nil {
		var secret *corev1.Secret
		var data []byte
		secret, data, loc, err = readKubeconfig(ctx, reader, ref, loc)
		if err == nil {
			secret, data, loc, err = preferRenewed(ctx, reader, opts.Namespace, ref, secret, data, loc)
		}
		if err == nil {
			return conn.update(ref, loc, secret, data, opts.UserAgent, build)
		}
	}
	// A cluster that is gone or whose kubeconfig is broken must not keep being reached with
	// credentials that are no longer registered; trouble reading the management cluster is no
	// reason to drop a working connection.
	if _, ok := AsClusterError(err); ok || apierrors.IsNotFound(err) {
		conn.reset()
	}
	return err
}

// update records the kubeconfig's source and, with build or when it changed, parses it; without
// build, a connection released since its last use keeps the kubeconfig pending until build.
func (conn *connection) update(ref ClusterRef, loc KubeconfigSecret, secret *corev1.Secret, data []byte, userAgent string, build bool) error {
	src := kubeconfigSource{location: loc, uid: secret.UID, resourceVersion: secret.ResourceVersion}
	if conn.config != nil && conn.source.location == loc && conn.source.uid == src.uid &&
		conn.source.resourceVersion == src.resourceVersion {
		return nil
	}
	src.hash = sha256.Sum256(data)
	same := conn.source.location == loc && conn.source.hash == src.hash
	if conn.config != nil && same {
		conn.source = src
		return nil
	}
	mapping := conn.mapping
	conn.reset()
	if same {
		// Released after its last probe, not changed: the cluster serves the APIs it served.
		conn.mapping = mapping
	}
	conn.source, conn.pending = src, data
	if !build {
		return nil
	}
	return conn.build(ref, userAgent)
}

// build parses the pending kubeconfig into config and probe.
func (conn *connection) build(ref ClusterRef, userAgent string) error {
	loc, data := conn.source.location, conn.pending
	conn.pending = nil
	cfg, err := kubeconfigConfig(ref, loc, data)
	if err != nil {
		return err
	}
	if userAgent != "" {
		cfg.UserAgent = userAgent
	}
	probe, err := newProbeClient(cfg)
	if err != nil {
		return clusterErrorf(ref, ReasonKubeconfigInvalid,
			"the kubeconfig in key %q of Secret %s has unusable TLS settings (certificate-authority-data, client-certificate-data or client-key-data)", loc.Key, loc)
	}
	conn.config, conn.probe = cfg, probe
	return nil
}

func (conn *connection) reset() {
	conn.source, conn.config, conn.probe, conn.remote, conn.mapping, conn.pending = kubeconfigSource{}, nil, nil, nil, nil, nil
}

// release lets go of everything but what identifies the kubeconfig and the discovery read
// with it.
func (conn *connection) release() {
	conn.config, conn.probe, conn.remote = nil, nil, nil
}

// Cluster is what callers matching clusters need to know about a registered cluster, the same
// for SveltosClusters and MemberClusters.
type Cluster struct {
	Ref    ClusterRef
	Labels map[string]string
	// Ready: a SveltosCluster's status.ready; a MemberCluster's Joined condition is True.
	Ready bool
	// Paused: a SveltosCluster's spec.paused. Deployments to a paused cluster wait.
	Paused bool
	// Deleting: the registration is being deleted.
	Deleting bool
	// Message says why the cluster is not ready, when its status says so.
	Message string
}

// Cluster returns the registered cluster ref names; a NotFound error if there is none.
func (c *Cache) Cluster(ctx context.Context, ref ClusterRef) (Cluster, error) {
	key := types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}
	switch ref.Kind {
	case KindSveltosCluster:
		obj := &libv1beta1.SveltosCluster{}
		if err := c.reader.Get(ctx, key, obj); err != nil {
			return Cluster{}, err
		}
		return sveltosClusterInfo(obj), nil
	case KindMemberCluster:
		obj := &clusterv1beta1.MemberCluster{}
		if err := c.reader.Get(ctx, key, obj); err != nil {
			return Cluster{}, err
		}
		return memberClusterInfo(obj), nil
	}
	return Cluster{}, apierrors.NewBadRequest("unknown cluster kind " + ref.Kind)
}

// List returns every registered cluster of the given kinds (KindSveltosCluster,
// KindMemberCluster), or of both kinds when none is given. Sveltos APIs select among
// SveltosClusters and Kubefleet APIs among MemberClusters; a cluster registered both ways
// appears once per kind.
func (c *Cache) List(ctx context.Context, kinds ...string) ([]Cluster, error) {
	want := func(kind string) bool { return len(kinds) == 0 || slices.Contains(kinds, kind) }
	var out []Cluster
	// The cluster list of a large fleet is big: read the cached objects in place rather than
	// deep-copying them all; only labels escape, and they are copied.
	if want(KindSveltosCluster) {
		list := &libv1beta1.SveltosClusterList{}
		if err := c.reader.List(ctx, list, client.UnsafeDisableDeepCopy); err != nil {
			return nil, err
		}
		for i := range list.Items {
			out = append(out, sveltosClusterInfo(&list.Items[i]))
		}
	}
	if want(KindMemberCluster) {
		list := &clusterv1beta1.MemberClusterList{}
		if err := c.reader.List(ctx, list, client.UnsafeDisableDeepCopy); err != nil {
			return nil, err
		}
		for i := range list.Items {
			out = append(out, memberClusterInfo(&list.Items[i]))
		}
	}
	return out, nil
}

func sveltosClusterInfo(c *libv1beta1.SveltosCluster) Cluster {
	info := Cluster{
		Ref:      RefOf(c),
		Labels:   maps.Clone(c.Labels),
		Ready:    c.Status.Ready,
		Paused:   c.Spec.Paused,
		Deleting: !c.DeletionTimestamp.IsZero(),
	}
	if !info.Ready && c.Status.FailureMessage != nil {
		info.Message = *c.Status.FailureMessage
	}
	return info
}

func memberClusterInfo(c *clusterv1beta1.MemberCluster) Cluster {
	info := Cluster{
		Ref:      RefOf(c),
		Labels:   maps.Clone(c.Labels),
		Deleting: !c.DeletionTimestamp.IsZero(),
	}
	for _, cond := range c.Status.Conditions {
		if cond.Type == string(clusterv1beta1.ConditionTypeMemberClusterJoined) {
			info.Ready = cond.Status == metav1.ConditionTrue
			if !info.Ready {
				info.Message = cond.Message
			}
		}
	}
	return info
}

// RefOf returns the ClusterRef of a SveltosCluster or a MemberCluster.
func RefOf(obj client.Object) ClusterRef {
	kind := obj.GetObjectKind().GroupVersionKind().Kind
	switch obj.(type) {
	case *libv1beta1.SveltosCluster:
		kind = KindSveltosCluster
	case *clusterv1beta1.MemberCluster:
		kind = KindMemberCluster
	}
	return ClusterRef{Kind: kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}
}
