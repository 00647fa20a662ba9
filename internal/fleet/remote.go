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

// Package fleet is Stagecoach's inventory of managed clusters: it turns a SveltosCluster or a
// MemberCluster into a connection (rest.Config, clients, REST mapper), keeps one connection per
// cluster cached, and tracks whether each cluster is reachable.
package fleet

import (
	"fmt"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
)

// Cluster kinds a ClusterRef can name.
const (
	KindSveltosCluster = "SveltosCluster"
	KindMemberCluster  = "MemberCluster"
)

// ClusterRef identifies a managed cluster registered in the management cluster. MemberClusters
// are cluster-scoped and have an empty Namespace.
type ClusterRef struct {
	Kind      string
	Namespace string
	Name      string
}

func (r ClusterRef) String() string {
	if r.Namespace == "" {
		return r.Kind + "/" + r.Name
	}
	return r.Kind + "/" + r.Namespace + "/" + r.Name
}

// Remote is a connection to one managed cluster. Its clients are uncached: deployers read the
// few objects they touch, and a watch cache per managed cluster would cost memory on every
// cluster of a large fleet. For the same reason it holds only the clients deployers use: a
// full clientset costs tens of kilobytes, times every cluster being deployed to.
type Remote struct {
	Ref    ClusterRef
	Config *rest.Config
	// Core reaches the core API group (namespaces, ConfigMaps, Secrets).
	Core    corev1client.CoreV1Interface
	Dynamic dynamic.Interface
	// Discovery caches API discovery in memory, for those who need all of it (Helm); it reads
	// nothing until asked.
	Discovery discovery.CachedDiscoveryInterface
	// Mapper maps kinds to resources with a discovery shared by every cluster that serves the
	// same APIs; Reset makes it read the cluster's discovery again (a CRD installed a moment
	// ago).
	Mapper meta.ResettableRESTMapper
	// Records, when set, is where Stagecoach keeps its records about this cluster (deploy
	// inventories): a connection that acts as someone else (an impersonated tenant) must not
	// need access to them.
	Records *Remote

	transport http.RoundTripper
}

// closeIdle closes the connections the Remote's clients keep open between requests; requests
// under way finish, and a later request opens a new connection. A dropped Remote's HTTP/2
// connection would otherwise stay open, with its buffers, until its idle timer fires.
func (r *Remote) closeIdle() {
	utilnet.CloseIdleConnectionsFor(r.transport)
}

// mapping returns the discovery the Remote's mapper holds, nil when it has read none.
func (r *Remote) mapping() *internedMapper {
	if m, ok := r.Mapper.(*sharedMapper); ok {
		return m.held()
	}
	return nil
}

// Impersonating returns a connection to the same cluster acting as user, whose records stay
// with r.
func (r *Remote) Impersonating(user string) (*Remote, error) {
	cfg := rest.CopyConfig(r.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	as, err := newRemote(ClusterRef{Kind: r.Ref.Kind, Namespace: r.Ref.Namespace, Name: r.Ref.Name + " as " + user}, cfg, r.mapping())
	if err != nil {
		return nil, err
	}
	as.Records = r
	return as, nil
}

// RequestTimeout bounds each request of a Remote's clients, unless its rest.Config sets a
// Timeout of its own. Helm, which watches for readiness, gets Config as it is and bounds its
// operations with its own timeout.
var RequestTimeout = 30 * time.Second

// NewRemote builds the clients of a managed cluster from its rest.Config.
func NewRemote(ref ClusterRef, cfg *rest.Config) (*Remote, error) {
	return newRemote(ref, cfg, nil)
}

// newRemote builds a Remote whose mapper starts from known, the discovery an earlier Remote of
// the same cluster read, when it is not nil.
func newRemote(ref ClusterRef, cfg *rest.Config, known *internedMapper) (*Remote, error) {
	cfg = rest.CopyConfig(cfg)
	if cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = 50, 100
	}
	// A cluster that accepts connections but never answers would hold a deploy worker for good;
	// with a bound, a few such clusters cannot stall the work of a whole fleet.
	withTimeout := rest.CopyConfig(cfg)
	if withTimeout.Timeout == 0 {
		withTimeout.Timeout = RequestTimeout
	}
	httpClient, err := rest.HTTPClientFor(withTimeout)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	core, err := corev1client.NewForConfigAndClient(cfg, httpClient)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	dyn, err := dynamic.NewForConfigAndClient(cfg, httpClient)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	disc, err := discovery.NewDiscoveryClientForConfigAndClient(cfg, httpClient)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	return &Remote{
		Ref: ref, Config: cfg, Core: core, Dynamic: dyn,
		Discovery: memory.NewMemCacheClient(disc),
		Mapper:    &sharedMapper{discovery: disc, current: known},
		transport: httpClient.Transport,
	}, nil
}
