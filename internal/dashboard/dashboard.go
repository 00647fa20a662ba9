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

// Package dashboard serves Stagecoach's web dashboard: every rollout at a glance, one rollout as
// a pipeline of stages with a tile per cluster, what a cluster runs and why, and a rollout's
// Events as a timeline. Pages stay live: each holds a stream of server-sent events that carries
// its changing part again whenever the management cluster changes.
package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Options configure a dashboard.
type Options struct {
	// Writer performs the actions (approve, suspend, resume, stop, rollback) with its identity,
	// when Auth is nil; nil turns them off and the pages offer none.
	Writer client.Client
	// Auth, when set, serves only the viewers the API server knows, each what it may see.
	// Served anywhere but on a loopback address, the dashboard needs it.
	Auth *Auth
	// Actions, with Auth, offers the actions, performed as the viewer.
	Actions bool
	// TLS, when set, serves the dashboard over TLS; trusting a proxy needs it.
	TLS *TLS
	// TileLimit is how many clusters a stage shows as tiles. A larger stage shows how many
	// clusters are in each state and, as tiles, only those that need attention first.
	TileLimit int
	// Log receives what goes wrong serving a page.
	Log logr.Logger
	// Now is the clock that relative times are read against; time.Now when nil.
	Now func() time.Time
}

// DefaultTileLimit keeps a stage of thousands of clusters light for the browser.
const DefaultTileLimit = 200

// Server is the dashboard's HTTP handler.
type Server struct {
	src     *Source
	opts    Options
	pages   *pages
	auth    *authenticator
	mux     *http.ServeMux
	handler http.Handler
}

// New serves the dashboard from src.
func New(src *Source, opts Options) (*Server, error) {
	if opts.TileLimit <= 0 {
		opts.TileLimit = DefaultTileLimit
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	p, err := parsePages(opts.Now)
	if err != nil {
		return nil, err
	}
	s := &Server{src: src, opts: opts, pages: p, mux: http.NewServeMux()}
	var h http.Handler = s.mux
	if opts.Auth != nil {
		if opts.Auth.Reviewer == nil || opts.Auth.Config == nil {
			return nil, errors.New("dashboard: authentication needs a reviewer and the API server's configuration")
		}
		s.auth = newAuthenticator(*opts.Auth)
		h = s.authenticated(h)
	}
	s.routes()
	s.handler = http.NewCrossOriginProtection().Handler(h)
	return s, nil
}

func (s *Server) routes() {
	s.page("/{$}", "overview", s.overview)
	s.page("/promotions/{name}", "rollout", s.promotion)
	s.page("/profiles/{name}", "rollout", s.profile)
	s.page("/runs/{name}", "rollout", s.run)
	s.page("/namespaces/{namespace}/runs/{name}", "rollout", s.run)
	s.page("/clusters/{namespace}/{name}", "cluster", s.sveltosCluster)
	s.page("/memberclusters/{name}", "cluster", s.memberCluster)
	s.mux.Handle("GET /static/", http.FileServerFS(staticFS()))
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	if s.auth != nil {
		s.mux.HandleFunc("POST /login", s.signIn)
		s.mux.HandleFunc("POST /logout", s.signOut)
	}
	if s.acts() {
		s.actions()
	}
}

// acts says whether the dashboard offers actions at all.
func (s *Server) acts() bool {
	if s.auth != nil {
		return s.opts.Actions
	}
	return s.opts.Writer != nil
}

// actsFor says whether the pages offer the request's viewer actions: never an anonymous one.
func (s *Server) actsFor(ctx context.Context) bool {
	v := viewerOf(ctx)
	return s.acts() && (v == nil || !v.anonymous())
}

// writer performs the request's actions: as its viewer when the dashboard authenticates.
func (s *Server) writer(r *http.Request) (client.Client, error) {
	if s.auth == nil {
		return s.opts.Writer, nil
	}
	v := viewerOf(r.Context())
	if v == nil {
		return nil, errNoCredentials
	}
	return s.auth.actAs(v)
}

// ServeHTTP serves the dashboard. Requests that change something and come from another site
// are refused, so that a page elsewhere cannot act through a viewer's browser.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Referrer-Policy", "same-origin")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; form-action 'self'")
	s.handler.ServeHTTP(w, r)
}

// Serve serves handler at addr until ctx is done. Bound to a loopback address, it answers only
// requests addressed to a loopback name, which keeps other sites from reading it through DNS
// rebinding.
func Serve(ctx context.Context, addr string, handler http.Handler, log logr.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("dashboard: %w", err)
	}
	return ServeListener(ctx, ln, handler, log)
}

// ServeListener is Serve on a listener already open. A dashboard that does not authenticate its
// viewers serves only on a loopback address.
func ServeListener(ctx context.Context, ln net.Listener, handler http.Handler, log logr.Logger) error {
	loopback := Loopback(ln.Addr())
	if s, ok := handler.(*Server); ok && s.auth == nil && !loopback {
		_ = ln.Close()
		return fmt.Errorf("dashboard: refusing to serve at %s without authentication: anyone who reaches it would read, and act, "+
			"as the dashboard's identity; serve it on a loopback address such as 127.0.0.1, or authenticate its viewers", ln.Addr())
	}
	scheme := "http"
	if s, ok := handler.(*Server); ok {
		secure, err := s.tlsListener(ctx, ln)
		if err != nil {
			_ = ln.Close()
			return err
		}
		if secure != ln {
			ln, scheme = secure, "https"
		}
	}
	if loopback {
		handler = loopbackOnly(handler)
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		// No write timeout: the live streams stay open as long as their pages.
		BaseContext: func(net.Listener) context.Context { return ctx },
	}
	log.Info("dashboard serving", "address", scheme+"://"+ln.Addr().String())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// The live streams end with ctx; Shutdown waits for the rest.
	if err := srv.Shutdown(shutdown); err != nil {
		_ = srv.Close()
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Loopback says whether addr is a loopback address, which only this machine reaches.
func Loopback(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// loopbackOnly refuses requests whose Host is not a loopback name or address.
func loopbackOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = strings.Trim(r.Host, "[]")
		}
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			http.Error(w, "this dashboard answers only at a loopback address such as 127.0.0.1 or localhost", http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}
