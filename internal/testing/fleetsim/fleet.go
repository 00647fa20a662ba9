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

// Package fleetsim is a simulator of a fleet of Kubernetes clusters: one process serves many
// virtual Kubernetes API servers, so that Stagecoach can be measured against tens of thousands of
// managed clusters on one machine. It is not Kubernetes: each virtual cluster is an in-memory
// object store behind a JSON-only imitation of the API server (discovery, CRUD, watch,
// server-side apply with real managedFields, CustomResourceDefinitions), plus a stand-in for the
// controllers that make workloads report ready. Nothing runs containers.
//
// Every cluster has its own loopback address (127.x.y.z) on one shared port, its own serving
// certificate (issued on first use by a CA shared by the fleet) and its own bearer token. An idle
// cluster costs about a hundred bytes: storage (some 4 KB with the system namespaces),
// certificates and watch state are made on first use, and no goroutine runs per cluster.
//
// What differs from a real API server, beyond the absence of nodes and pods: responses are JSON
// only (requests may also be protobuf); lists ignore limit and continue; deletion is immediate
// (no finalizers, grace periods or garbage collection); only a few validation rules of built-in
// kinds are enforced; custom resources get no schema pruning, defaulting or conversion; and
// Refuse fails connections in the TLS handshake rather than with "connection refused".
package fleetsim

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
)

// Options configure a simulated fleet.
type Options struct {
	// Clusters is the number of virtual clusters.
	Clusters int
	// NamePrefix names the clusters: cluster i is fmt.Sprintf("%s%05d", NamePrefix, i). Empty
	// means "sim-".
	NamePrefix string
	// AvailableAfter is how long after its spec changed a Deployment, StatefulSet, DaemonSet,
	// ReplicaSet, Job or Pod reports itself ready; 0 reports it in the write that follows at once.
	AvailableAfter time.Duration
	// Latency is added before answering every request: the network and API server time of a
	// real cluster.
	Latency time.Duration
	// Jitter spreads Latency evenly over [Latency-Jitter, Latency+Jitter] for each answer, from
	// a sequence drawn from Seed, as real round trips vary.
	Jitter time.Duration
	// Seed seeds the jitter and Flap's phases, so that a run can be repeated.
	Seed uint64
	// Port is the TCP port every cluster listens on; 0 picks a free one.
	Port int
	// WatchHistory is how many recent changes each cluster keeps so that a watch can resume
	// from an older resourceVersion; older ones get 410 Gone and the client lists again. 0 means
	// DefaultWatchHistory.
	WatchHistory int
	Log          logr.Logger
}

// DefaultWatchHistory is the default of Options.WatchHistory: small, because every cluster of
// a large fleet keeps its own.
const DefaultWatchHistory = 32

// maxClusters is how many distinct addresses clusterAddr can give (see address.go).
const maxClusters = 255 * 256 * hostsPerBlock

// Fleet is a running simulated fleet.
type Fleet struct {
	opts     Options
	log      logr.Logger
	clusters []*Cluster
	port     int
	ca       *authority
	// tokenKey derives each cluster's bearer token, so that none has to be stored.
	tokenKey []byte
	server   *http.Server
	hung     hungConns
	timers   *scheduler
	requests atomic.Uint64
	// draws counts the jitter drawn so far: the n-th draw is a hash of Seed and n.
	draws atomic.Uint64
	// started is when the fleet started, as the creation time of the system namespaces.
	started string

	cancel    context.CancelFunc
	served    chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// Start starts serving a fleet of opts.Clusters virtual clusters. It returns once the listener
// accepts connections; the fleet stops when ctx is done or Close is called.
func Start(ctx context.Context, opts Options) (*Fleet, error) {
	if opts.Clusters < 1 || opts.Clusters > maxClusters {
		return nil, fmt.Errorf("fleetsim: %d clusters asked for; between 1 and %d can be simulated", opts.Clusters, maxClusters)
	}
	if opts.NamePrefix == "" {
		opts.NamePrefix = "sim-"
	}
	if opts.WatchHistory <= 0 {
		opts.WatchHistory = DefaultWatchHistory
	}
	ca, err := newAuthority()
	if err != nil {
		return nil, fmt.Errorf("fleetsim: creating the fleet's certificate authority: %w", err)
	}
	tokenKey := make([]byte, 32)
	if _, err := rand.Read(tokenKey); err != nil {
		return nil, fmt.Errorf("fleetsim: creating the token key: %w", err)
	}
	// All of 127.0.0.0/8 is local on Linux: one wildcard listener receives every cluster's
	// address, and the address a connection arrived on says which cluster it is for.
	ln, err := net.Listen("tcp4", net.JoinHostPort("0.0.0.0", strconv.Itoa(opts.Port)))
	if err != nil {
		return nil, fmt.Errorf("fleetsim: listening: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	f := &Fleet{
		opts:     opts,
		log:      opts.Log,
		port:     ln.Addr().(*net.TCPAddr).Port,
		ca:       ca,
		tokenKey: tokenKey,
		timers:   newScheduler(),
		started:  timestamp(time.Now()),
		cancel:   cancel,
		served:   make(chan struct{}),
	}
	f.clusters = newClusters(f, opts.Clusters)
	// Connection settings are kube-apiserver's: idle connections close after 90 s, and HTTP/2
	// buffers are sized for API objects rather than bulk data.
	const frameSize = 256 << 10
	f.server = &http.Server{
		Handler:           http.HandlerFunc(f.serveHTTP),
		ConnContext:       f.connContext,
		IdleTimeout:       90 * time.Second,
		ReadHeaderTimeout: 32 * time.Second,
		MaxHeaderBytes:    1 << 20,
		HTTP2: &http.HTTP2Config{
			MaxConcurrentStreams:      100,
			MaxReadFrameSize:          frameSize,
			MaxReceiveBufferPerStream: frameSize,
		},
		// Failed handshakes (a client that does not trust a cluster's certificate) are part of
		// what the simulator is for; they are not worth an error line each.
		ErrorLog: log.New(logWriter{f.log.V(2)}, "", 0),
	}
	go f.timers.run(ctx)
	go func() {
		defer close(f.served)
		err := f.server.Serve(&clusterListener{Listener: ln, fleet: f, tls: f.tlsConfig()})
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			f.log.Error(err, "fleet simulator stopped serving")
		}
	}()
	go func() {
		<-ctx.Done()
		_ = f.Close()
	}()
	f.log.Info("fleet simulator serving", "clusters", opts.Clusters, "port", f.port,
		"first", f.clusters[0].URL(), "last", f.clusters[len(f.clusters)-1].URL())
	return f, nil
}

// Close stops serving and closes every connection. It is safe to call more than once.
func (f *Fleet) Close() error {
	f.closeOnce.Do(func() {
		f.cancel()
		f.closeErr = f.server.Close()
		f.hung.closeAll()
		<-f.served
		f.timers.wait()
	})
	return f.closeErr
}

// Clusters returns every cluster, in index order.
func (f *Fleet) Clusters() []*Cluster { return slices.Clone(f.clusters) }

// Cluster returns the cluster with that name, or nil.
func (f *Fleet) Cluster(name string) *Cluster {
	digits, ok := strings.CutPrefix(name, f.opts.NamePrefix)
	if !ok {
		return nil
	}
	i, err := strconv.Atoi(digits)
	if err != nil || i < 0 || i >= len(f.clusters) || f.clusters[i].name != name {
		return nil
	}
	return f.clusters[i]
}

// Port is the port every cluster listens on.
func (f *Fleet) Port() int { return f.port }

// Requests is the number of HTTP requests answered so far, by all clusters together.
func (f *Fleet) Requests() uint64 { return f.requests.Load() }

// logWriter turns the HTTP server's log lines into logr lines.
type logWriter struct{ log logr.Logger }

func (w logWriter) Write(p []byte) (int, error) {
	w.log.Info(strings.TrimSpace(string(p)))
	return len(p), nil
}
