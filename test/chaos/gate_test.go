//go:build e2e

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

package chaos

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"slices"
	"sync"

	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/stagecoach-dev/stagecoach/internal/registration"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// gate forwards TCP connections from the controller to a managed cluster's API server. The
// controller's kubeconfig for the cluster names the gate, so cutting it cuts the cluster off
// from the controller alone, as a network partition does: the cluster, its API server and its
// workloads go on running, and the cluster is back the moment the gate opens, with no API
// server to start again. A cut gate closes every connection and stops listening, so that
// connections are refused, as a firewall that rejects does: client-go gives up on a refused
// connection at once, where it retries one reset or closed after it was accepted.
type gate struct {
	addr   string
	target string

	mu    sync.Mutex
	ln    net.Listener // nil while cut
	conns map[net.Conn]bool
}

func openGate(target string) (*gate, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	g := &gate{addr: ln.Addr().String(), target: target, ln: ln, conns: map[net.Conn]bool{}}
	go g.serve(ln)
	return g, nil
}

func (g *gate) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		if !g.track(c) {
			c.Close()
			continue
		}
		go g.forward(c)
	}
}

// track records an open connection, unless the gate is cut.
func (g *gate) track(c net.Conn) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ln == nil {
		return false
	}
	g.conns[c] = true
	return true
}

func (g *gate) untrack(cs ...net.Conn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, c := range cs {
		delete(g.conns, c)
		c.Close()
	}
}

func (g *gate) forward(c net.Conn) {
	up, err := net.Dial("tcp", g.target)
	if err != nil || !g.track(up) {
		if up != nil {
			up.Close()
		}
		g.untrack(c)
		return
	}
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(up, c)
		close(done)
	}()
	_, _ = io.Copy(c, up)
	g.untrack(c, up)
	<-done
}

// cut closes every open connection and stops listening.
func (g *gate) cut() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ln != nil {
		g.ln.Close()
		g.ln = nil
	}
	for c := range g.conns {
		c.Close()
		delete(g.conns, c)
	}
}

// open listens again on the gate's address. The port is free unless some process took it as
// the local port of a connection of its own meanwhile, which a few tries outlast.
func (g *gate) open(ctx context.Context) error {
	var ln net.Listener
	err := retry(ctx, func(context.Context) error {
		var err error
		ln, err = net.Listen("tcp", g.addr)
		return err
	})
	if err != nil {
		return fmt.Errorf("opening the gate %s again: %w", g.addr, err)
	}
	g.mu.Lock()
	g.ln = ln
	g.mu.Unlock()
	go g.serve(ln)
	return nil
}

// openGates puts a gate in front of each named cluster's API server and registers the cluster
// with a kubeconfig that names it.
func openGates(ctx context.Context, c client.Client, names []string) (map[string]*gate, error) {
	gates := map[string]*gate{}
	for _, cl := range testenv.Fleet.Managed {
		if !slices.Contains(names, cl.Name) {
			continue
		}
		u, err := url.Parse(cl.Config.Host)
		if err != nil {
			return nil, err
		}
		g, err := openGate(u.Host)
		if err != nil {
			return nil, err
		}
		gates[cl.Name] = g
	}
	return gates, registerGated(ctx, c, gates)
}

// registerGated registers each gated cluster again with the gate as its server: the sandbox
// registers every cluster with its API server's own address whenever it starts the management
// cluster again (after a management or etcd outage).
func registerGated(ctx context.Context, c client.Client, gates map[string]*gate) error {
	for _, cl := range testenv.Fleet.Managed {
		g, ok := gates[cl.Name]
		if !ok {
			continue
		}
		kc, err := clientcmd.LoadFromFile(cl.Kubeconfig)
		if err != nil {
			return err
		}
		for _, server := range kc.Clusters {
			server.Server = "https://" + g.addr
		}
		data, err := clientcmd.Write(*kc)
		if err != nil {
			return err
		}
		err = retry(ctx, func(ctx context.Context) error {
			return registration.Register(ctx, c, sandbox.Registration(cl.Name, cl.Labels, data))
		})
		if err != nil {
			return fmt.Errorf("registering %s through its gate: %w", cl.Name, err)
		}
	}
	return nil
}
