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
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// clusterListener hands the HTTP server TLS connections for clusters that are up. It drops
// connections to addresses that are no cluster's, and plays the part of a cluster that is down.
type clusterListener struct {
	net.Listener
	fleet *Fleet
	tls   *tls.Config
}

func (l *clusterListener) Accept() (net.Conn, error) {
	for {
		conn, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		c := l.fleet.clusterAt(conn.LocalAddr())
		if c == nil {
			// The wildcard listener also receives connections from outside: refuse them.
			refuse(conn)
			continue
		}
		if c.DownMode() == Hang {
			l.fleet.hung.hold(conn)
			continue
		}
		// A refusing cluster fails the TLS handshake (see Fleet.tlsConfig).
		return tls.Server(conn, l.tls), nil
	}
}

// refuse closes conn with a reset.
func refuse(conn net.Conn) {
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}

// hungConns holds the connections of clusters that hang: accepted, never answered, until the
// client gives up and closes them (or the fleet closes).
type hungConns struct {
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
}

func (h *hungConns) hold(conn net.Conn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		_ = conn.Close()
		return
	}
	if h.conns == nil {
		h.conns = map[net.Conn]struct{}{}
	}
	h.conns[conn] = struct{}{}
	go func() {
		// Reading until the client closes (or the fleet closes the connection) is what frees
		// this goroutine; whatever the client sends is never answered.
		_, _ = io.Copy(io.Discard, conn)
		_ = conn.Close()
		h.mu.Lock()
		delete(h.conns, conn)
		h.mu.Unlock()
	}()
}

// count is the number of connections held.
func (h *hungConns) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.conns)
}

func (h *hungConns) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for conn := range h.conns {
		_ = conn.Close()
	}
}

// clusterKey is the context key of the cluster a connection belongs to.
type clusterKey struct{}

func (f *Fleet) connContext(ctx context.Context, conn net.Conn) context.Context {
	if c := f.clusterAt(conn.LocalAddr()); c != nil {
		return context.WithValue(ctx, clusterKey{}, c)
	}
	return ctx
}

// serveHTTP is the entry point of every request: it finds the cluster, plays a cluster that went
// down while the connection was open, waits the simulated latency, counts and authenticates.
func (f *Fleet) serveHTTP(w http.ResponseWriter, r *http.Request) {
	c, _ := r.Context().Value(clusterKey{}).(*Cluster)
	if c == nil {
		http.NotFound(w, r)
		return
	}
	switch c.DownMode() {
	case Refuse:
		// Breaks the connection (HTTP/1) or resets the stream (HTTP/2).
		panic(http.ErrAbortHandler)
	case Hang:
		<-r.Context().Done()
		panic(http.ErrAbortHandler)
	case HangWrites:
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			<-r.Context().Done()
			panic(http.ErrAbortHandler)
		}
	}
	if !f.delay(r.Context()) {
		return
	}
	f.requests.Add(1)
	c.count(r.UserAgent())
	if !c.authenticated(r) {
		writeError(w, errUnauthorized)
		return
	}
	c.route(w, r)
}

// delay waits the simulated latency (Options.Latency and Jitter); false when the client gave up
// meanwhile.
func (f *Fleet) delay(ctx context.Context) bool {
	d := f.nextLatency()
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
