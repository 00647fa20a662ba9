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

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/stagecoach-dev/stagecoach/internal/scheme"
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
// cluster of a large fleet.
type Remote struct {
	Ref       ClusterRef
	Config    *rest.Config
	Client    client.Client
	Clientset kubernetes.Interface
	Dynamic   dynamic.Interface
	// Discovery caches API discovery in memory; Mapper is built on it and re-reads discovery
	// when it meets a kind it doesn't know (a CRD installed a moment ago).
	Discovery discovery.CachedDiscoveryInterface
	Mapper    meta.ResettableRESTMapper
	// Records, when set, is where Stagecoach keeps its records about this cluster (deploy
	// inventories): a connection that acts as someone else (an impersonated tenant) must not
	// need access to them.
	Records *Remote
}

// Impersonating returns a connection to the same cluster acting as user, whose records stay
// with r.
func (r *Remote) Impersonating(user string) (*Remote, error) {
	cfg := rest.CopyConfig(r.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	as, err := NewRemote(ClusterRef{Kind: r.Ref.Kind, Namespace: r.Ref.Namespace, Name: r.Ref.Name + " as " + user}, cfg)
	if err != nil {
		return nil, err
	}
	as.Records = r
	return as, nil
}

// remoteScheme is shared by every Remote: schemes are read-only once built.
var remoteScheme = scheme.New()

// NewRemote builds the clients of a managed cluster from its rest.Config.
func NewRemote(ref ClusterRef, cfg *rest.Config) (*Remote, error) {
	cfg = rest.CopyConfig(cfg)
	if cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = 50, 100
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	disc := memory.NewMemCacheClient(cs.Discovery())
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(disc)
	c, err := client.New(cfg, client.Options{Scheme: remoteScheme, Mapper: mapper})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	return &Remote{Ref: ref, Config: cfg, Client: c, Clientset: cs, Dynamic: dyn, Discovery: disc, Mapper: mapper}, nil
}
