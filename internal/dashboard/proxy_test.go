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
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"

	"github.com/stagecoach-dev/stagecoach/internal/testing/testcert"
)

// TestProxy: behind a trusted authenticating proxy, a request with the proxy's client certificate
// is served as the user its headers name, and that user's actions are performed by
// impersonating it, so the API server's 403 is the viewer's; the same headers without the
// certificate, or with a certificate of another name, are a 401.
func TestProxy(t *testing.T) {
	t.Parallel()
	ca := testcert.NewAuthority(t)
	// The API server the actions go to: it records whom they impersonate, and refuses them.
	var mu sync.Mutex
	var impersonated http.Header
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		impersonated = r.Header.Clone()
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,`+
			`"message":"clusterpromotions.config.projectsveltos.io \"web\" is forbidden: User \"alice\" cannot patch resource \"clusterpromotions\""}`)
	}))
	t.Cleanup(api.Close)

	f := &fakeReviewer{rules: []rule{{"alice", "list", "clusterpromotions", ""}, {"alice", "get", "clusterpromotions", ""}, {"alice", "get", "clusterprofiles", ""}}}
	c := f.client(promotion())
	certFile, keyFile := testcert.WriteFiles(t, ca.Server(t, net.ParseIP("127.0.0.1")))
	srv, err := New(testSource(c, c.Scheme()), Options{Log: logr.Discard(), Actions: true, TLS: &TLS{CertFile: certFile, KeyFile: keyFile},
		Auth: &Auth{Reviewer: c, Config: &rest.Config{Host: api.URL}, Proxy: &Proxy{ClientCAs: ca.Pool, AllowedNames: []string{"front-proxy"}}}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = ServeListener(ctx, ln, srv, logr.Discard()) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	base := "https://" + ln.Addr().String()

	send := func(method, path string, cert *tls.Certificate) (int, string) {
		t.Helper()
		cfg := &tls.Config{RootCAs: ca.Pool, MinVersion: tls.VersionTLS12}
		if cert != nil {
			cfg.Certificates = []tls.Certificate{*cert}
		}
		hc := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		req, _ := http.NewRequestWithContext(t.Context(), method, base+path, strings.NewReader(""))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set(remoteUser, "alice")
		req.Header.Add(remoteGroup, "team")
		req.Header.Set(remoteExtraPrefix+"Scopes", "read")
		var resp *http.Response
		var err error
		for range 50 { // the listener serves once ServeListener has wrapped it
			if resp, err = hc.Do(req); err == nil || !strings.Contains(err.Error(), "connection refused") {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	proxy, other := ca.Client(t, "front-proxy"), ca.Client(t, "someone-else")
	if code, body := send(http.MethodGet, "/", &proxy); code != http.StatusOK || !strings.Contains(body, `Signed in as <strong id="viewer">alice</strong>`) || strings.Contains(body, `id="signout"`) {
		t.Errorf("through the proxy: %d\n%s", code, body)
	}
	for name, cert := range map[string]*tls.Certificate{"no certificate": nil, "another name's certificate": &other} {
		if code, body := send(http.MethodGet, "/", cert); code != http.StatusUnauthorized || strings.Contains(body, "alice") {
			t.Errorf("X-Remote-User with %s: %d, want 401\n%s", name, code, body)
		}
	}
	code, body := send(http.MethodPost, "/promotions/web/suspend", &proxy)
	if code != http.StatusForbidden || !strings.Contains(body, `User &#34;alice&#34; cannot patch resource &#34;clusterpromotions&#34;`) {
		t.Errorf("alice's suspend: %d, want the API server's 403\n%s", code, body)
	}
	mu.Lock()
	defer mu.Unlock()
	if impersonated.Get("Impersonate-User") != "alice" || impersonated.Get("Impersonate-Group") != "team" || impersonated.Get("Impersonate-Extra-Scopes") != "read" {
		t.Errorf("the action was not sent as alice, impersonated: %v", impersonated)
	}
}
