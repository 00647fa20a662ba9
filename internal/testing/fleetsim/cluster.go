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

package fleetsim

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// DownMode is how a cluster answers connections.
type DownMode int32

const (
	// Up serves requests.
	Up DownMode = iota
	// Refuse fails every new connection at once, in the TLS handshake, and every request on
	// connections already open.
	Refuse
	// Hang accepts connections and never answers anything until the client gives up.
	Hang
	// HangWrites answers reads and hangs every write until the client gives up, as an API server
	// whose etcd lost quorum does: probes find it well, deploys never finish.
	HangWrites
)

// String names the mode as its constant does.
func (m DownMode) String() string {
	switch m {
	case Up:
		return "Up"
	case Refuse:
		return "Refuse"
	case Hang:
		return "Hang"
	case HangWrites:
		return "HangWrites"
	}
	return "DownMode(" + strconv.Itoa(int(m)) + ")"
}

// Cluster is one virtual cluster of the fleet. Its fields stay small: everything a cluster needs
// once it is used (storage, certificate) is made then.
type Cluster struct {
	fleet    *Fleet
	index    int
	name     string
	down     atomic.Int32
	requests atomic.Uint64
	agents   sync.Map // user agent → *atomic.Uint64, the requests it made
	cert     atomic.Pointer[tls.Certificate]

	// mu guards data; it is the only lock a request to this cluster takes, so work on one
	// cluster never waits for another.
	mu   sync.Mutex
	data *clusterData
}

// newClusters allocates every cluster in one block.
func newClusters(f *Fleet, n int) []*Cluster {
	block := make([]Cluster, n)
	clusters := make([]*Cluster, n)
	for i := range block {
		c := &block[i]
		c.fleet, c.index, c.name = f, i, fmt.Sprintf("%s%05d", f.opts.NamePrefix, i)
		clusters[i] = c
	}
	return clusters
}

// Name is the cluster's name.
func (c *Cluster) Name() string { return c.name }

// Index is the cluster's position in the fleet.
func (c *Cluster) Index() int { return c.index }

// Host is the cluster's address and port, "127.1.0.1:PORT".
func (c *Cluster) Host() string {
	return net.JoinHostPort(clusterAddr(c.index).String(), strconv.Itoa(c.fleet.port))
}

// URL is the cluster's API server URL, "https://127.1.0.1:PORT".
func (c *Cluster) URL() string { return "https://" + c.Host() }

// Token is the bearer token the cluster accepts. Tokens are derived from a key of the fleet
// rather than stored, to keep idle clusters small.
func (c *Cluster) Token() string {
	mac := hmac.New(sha256.New, c.fleet.tokenKey)
	var i [8]byte
	binary.BigEndian.PutUint64(i[:], uint64(c.index))
	mac.Write(i[:])
	return hex.EncodeToString(mac.Sum(nil))
}

// Kubeconfig returns a complete kubeconfig for this cluster alone: its URL, the fleet's CA and
// the cluster's token. It names the cluster's own address as the TLS server name, so that the
// kubeconfig trusts this cluster only, even when pointed at another cluster of the same fleet.
func (c *Cluster) Kubeconfig() []byte {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[c.name] = &clientcmdapi.Cluster{
		Server:                   c.URL(),
		CertificateAuthorityData: c.fleet.ca.pem,
		TLSServerName:            clusterAddr(c.index).String(),
	}
	cfg.AuthInfos[c.name] = &clientcmdapi.AuthInfo{Token: c.Token()}
	cfg.Contexts[c.name] = &clientcmdapi.Context{Cluster: c.name, AuthInfo: c.name}
	cfg.CurrentContext = c.name
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		// Writing a kubeconfig built in memory cannot fail but for a bug.
		panic(fmt.Sprintf("fleetsim: writing the kubeconfig of %s: %v", c.name, err))
	}
	return data
}

// SetDown changes how the cluster answers: Up, Refuse, Hang or HangWrites. It applies to new connections
// and to every request after the call, including those on connections already open; open
// watches are broken off (Refuse) or stop sending anything (Hang).
func (c *Cluster) SetDown(mode DownMode) {
	c.down.Store(int32(mode))
	if mode == Up {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.data != nil {
		for _, w := range c.data.watchers {
			close(w.ch)
		}
		c.data.watchers = nil
	}
}

// DownMode is how the cluster answers now.
func (c *Cluster) DownMode() DownMode { return DownMode(c.down.Load()) }

// Requests is the number of HTTP requests this cluster answered.
func (c *Cluster) Requests() uint64 { return c.requests.Load() }

// RequestsFrom is the number of HTTP requests this cluster answered whose User-Agent contains
// agent: which client talked to the cluster.
func (c *Cluster) RequestsFrom(agent string) uint64 {
	var n uint64
	c.agents.Range(func(k, v any) bool {
		if strings.Contains(k.(string), agent) {
			n += v.(*atomic.Uint64).Load()
		}
		return true
	})
	return n
}

func (c *Cluster) count(agent string) {
	c.requests.Add(1)
	n, ok := c.agents.Load(agent)
	if !ok {
		n, _ = c.agents.LoadOrStore(agent, new(atomic.Uint64))
	}
	n.(*atomic.Uint64).Add(1)
}

// Get returns a copy of an object stored in the cluster, as the given version of its resource
// presents it; false when there is none.
func (c *Cluster) Get(gvr schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, bool) {
	rt := c.resourceType(gvr.Group, gvr.Version, gvr.Resource)
	if rt == nil {
		return nil, false
	}
	if !rt.namespaced {
		namespace = ""
	}
	c.mu.Lock()
	if c.data == nil && rt.groupResource() != namespacesResource {
		// Nothing was ever stored: do not make the cluster's storage just to look.
		c.mu.Unlock()
		return nil, false
	}
	obj := c.dataLocked().object(rt.groupResource(), objectKey{namespace, name})
	c.mu.Unlock()
	if obj == nil {
		return nil, false
	}
	return asVersion(obj, rt.apiVersion(gvr.Version)).DeepCopy(), true
}

// authenticated checks the request's bearer token; another cluster's token is not this one's.
func (c *Cluster) authenticated(r *http.Request) bool {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), []byte(c.Token())) == 1
}
