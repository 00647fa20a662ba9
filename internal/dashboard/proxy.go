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

package dashboard

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Proxy trusts an authenticating proxy in front of the dashboard, as kube-apiserver's
// requestheader authentication does: a request that presents a TLS client certificate signed by
// ClientCA (and, when AllowedNames is set, with one of those common names) is from the user its
// X-Remote-User, X-Remote-Uid, X-Remote-Group and X-Remote-Extra-KEY headers name. The headers of
// any other request are refused. Proxied viewers have no token of theirs, so their actions are
// performed by impersonating them, which needs the right to impersonate users, groups and extras.
type Proxy struct {
	ClientCAs    *x509.CertPool
	AllowedNames []string
}

// Header names, as kube-apiserver's --requestheader-*-headers flags usually set them.
const (
	remoteUser        = "X-Remote-User"
	remoteUID         = "X-Remote-Uid"
	remoteGroup       = "X-Remote-Group"
	remoteExtraPrefix = "X-Remote-Extra-"
)

// LoadProxy reads the proxy's client CA bundle (PEM).
func LoadProxy(caFile string, allowedNames []string) (*Proxy, error) {
	data, err := os.ReadFile(caFile) //nolint:gosec // a file the operator names
	if err != nil {
		return nil, fmt.Errorf("the dashboard's proxy client CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("the dashboard's proxy client CA %s holds no PEM certificate", caFile)
	}
	return &Proxy{ClientCAs: pool, AllowedNames: allowedNames}, nil
}

// proxied says who the trusted proxy says r is from; nil when r names no user. A request naming
// a user without the proxy's certificate is refused, not served as someone else.
func (p *Proxy) proxied(r *http.Request) (*Viewer, error) {
	name := r.Header.Get(remoteUser)
	if name == "" {
		return nil, nil
	}
	if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 || len(r.TLS.VerifiedChains[0]) == 0 {
		return nil, &authError{remoteUser + " is trusted only from the authenticating proxy, which presents a client certificate of the dashboard's proxy CA"}
	}
	if cn := r.TLS.VerifiedChains[0][0].Subject.CommonName; len(p.AllowedNames) > 0 && !slices.Contains(p.AllowedNames, cn) {
		return nil, &authError{fmt.Sprintf("the client certificate %q is not one of the authenticating proxy's names", cn)}
	}
	extra := map[string][]string{}
	for h, values := range r.Header {
		if key, ok := strings.CutPrefix(h, remoteExtraPrefix); ok {
			if k, err := url.PathUnescape(strings.ToLower(key)); err == nil {
				extra[k] = append(extra[k], values...)
			}
		}
	}
	v := newViewer(name, r.Header.Get(remoteUID), r.Header.Values(remoteGroup), extra, "")
	v.proxied = true
	return v, nil
}

// impersonate is a client that acts as v by impersonation, with the identity of cfg.
func impersonate(cfg *rest.Config, v *Viewer, opts client.Options) (client.Client, error) {
	as := rest.CopyConfig(cfg)
	as.Impersonate = rest.ImpersonationConfig{UserName: v.Name, UID: v.UID, Groups: v.Groups, Extra: v.Extra}
	return client.New(as, opts)
}

// TLS serves the dashboard over TLS with a certificate and key read from files, read again when
// they change.
type TLS struct{ CertFile, KeyFile string }

// tlsListener wraps ln in TLS with the certificate of t, asking for (not requiring) a client
// certificate of the proxy's CA when a proxy is trusted.
func (s *Server) tlsListener(ctx context.Context, ln net.Listener) (net.Listener, error) {
	t := s.opts.TLS
	if t == nil {
		if s.auth != nil && s.auth.Proxy != nil {
			return nil, fmt.Errorf("dashboard: trusting an authenticating proxy needs TLS, to see its client certificate")
		}
		return ln, nil
	}
	w, err := certwatcher.New(t.CertFile, t.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("dashboard: serving certificate: %w", err)
	}
	go func() { _ = w.Start(ctx) }()
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: w.GetCertificate}
	if s.auth != nil && s.auth.Proxy != nil {
		cfg.ClientAuth, cfg.ClientCAs = tls.VerifyClientCertIfGiven, s.auth.Proxy.ClientCAs
	}
	return tls.NewListener(ln, cfg), nil
}
