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

package helm

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/chartrepo"
)

// names resolves host names of its own, as a DNS server under an attacker's control would.
type names map[string][]netip.Addr

func (n names) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := n[host]; ok {
		return a, nil
	}
	return nil, errors.New("no such host")
}

func tenantPolicy(t *testing.T, hosts []string, nets ...string) *SourcePolicy {
	t.Helper()
	refused, err := ParseNetworks(nets, []netip.Prefix{netip.MustParsePrefix("10.96.0.0/12")})
	if err != nil {
		t.Fatal(err)
	}
	return &SourcePolicy{Hosts: hosts, Refused: refused, Whose: "tenants'", HostsFlag: "--tenant-chart-hosts", NetworksFlag: "--tenant-refused-chart-networks",
		Resolver: names{
			"metadata.example.test": {netip.MustParseAddr("169.254.169.254")},
			"mixed.example.test":    {netip.MustParseAddr("203.0.113.7"), netip.MustParseAddr("10.96.0.1")},
			"charts.example.com":    {netip.MustParseAddr("203.0.113.8")},
			"v6.example.test":       {netip.MustParseAddr("::ffff:127.0.0.1")},
		}}
}

func TestSourcePolicy(t *testing.T) {
	defaults := []string{"link-local", "loopback", ServiceNetworkName}
	for _, tc := range []struct {
		name, url string
		hosts     []string
		nets      []string
		refused   string // part of the message; empty: allowed
	}{
		{"cloud metadata", "http://169.254.169.254/charts", nil, defaults, "host 169.254.169.254 is in the network link-local 169.254.0.0/16"},
		{"link-local v6", "http://[fe80::1]/charts", nil, defaults, "link-local fe80::/10"},
		{"loopback", "http://127.0.0.1:8080", nil, defaults, "loopback 127.0.0.0/8"},
		{"unspecified reaches loopback", "http://0.0.0.0:8080", nil, defaults, "loopback 0.0.0.0/8"},
		{"v4 in v6", "http://[::ffff:169.254.169.254]/", nil, defaults, "link-local 169.254.0.0/16"},
		{"service network", "https://10.100.3.4/charts", nil, defaults, "service-network 10.96.0.0/12"},
		{"name resolving to metadata", "http://metadata.example.test/charts", nil, defaults, "resolves to 169.254.169.254"},
		{"one refused address among several", "oci://mixed.example.test/charts/app", nil, defaults, "resolves to 10.96.0.1"},
		{"mapped loopback", "https://v6.example.test/", nil, defaults, "loopback 127.0.0.0/8"},
		{"public repository", "https://charts.example.com/stable", nil, defaults, ""},
		{"unresolvable left to the dial", "https://nowhere.example.test/", nil, defaults, ""},
		{"loopback allowed when not listed", "http://127.0.0.1:8080", nil, []string{"link-local"}, ""},
		{"own CIDR", "http://192.0.2.9/", nil, []string{"192.0.2.0/24"}, "192.0.2.0/24"},
		{"host list: exact", "https://charts.example.com/", []string{"charts.example.com"}, defaults, ""},
		{"host list: wildcard", "oci://ghcr.example.com/x/y", []string{"*.example.com"}, defaults, ""},
		{"host list: not listed", "https://evil.example.org/", []string{"*.example.com"}, defaults, "is not among the hosts tenants' charts may come from"},
		{"host list: CIDR", "http://192.0.2.9/", []string{"192.0.2.0/24"}, defaults, ""},
		{"host list does not lift refused networks", "http://169.254.169.254/", []string{"169.254.0.0/16"}, defaults, "link-local"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tenantPolicy(t, tc.hosts, tc.nets...).check(context.Background(), tc.url)
			if tc.refused == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.refused) || !errors.Is(err, ErrSourceRefused) || !IsPermanent(err) {
				t.Fatalf("got %v, want a permanent refusal with %q", err, tc.refused)
			}
			if !strings.Contains(err.Error(), "--tenant-") {
				t.Errorf("%v does not name the flag that allows it", err)
			}
		})
	}
	var nilPolicy *SourcePolicy
	if err := nilPolicy.check(context.Background(), "http://169.254.169.254/"); err != nil {
		t.Errorf("no policy refused: %v", err)
	}
}

func TestParseNetworksRefusesNonsense(t *testing.T) {
	if _, err := ParseNetworks([]string{"link-local", "the-internet"}, nil); err == nil {
		t.Fatal("an unknown network word was accepted")
	}
}

// TestSourcePolicyChecksConnections: the dialer hook refuses a connection whose resolved
// address is refused, whatever the URL's text said ("localhost" resolves to loopback).
func TestSourcePolicyChecksConnections(t *testing.T) {
	url, stop, err := chartrepo.Serve(context.Background(), "../../../testdata/charts")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	local := strings.Replace(url, "127.0.0.1", "localhost", 1)
	p := tenantPolicy(t, nil, "loopback")
	resp, err := p.httpClient().Get(local + "/index.yaml")
	if err == nil {
		_ = resp.Body.Close()
		t.Fatal("the dialer let a connection to loopback through")
	}
	if !errors.Is(err, ErrSourceRefused) || !IsPermanent(err) || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("got %v, want a permanent refusal naming loopback", err)
	}
	if resp, err := tenantPolicy(t, nil, "link-local").httpClient().Get(local + "/index.yaml"); err != nil {
		t.Fatalf("an allowed connection failed: %v", err)
	} else {
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("index: %s", resp.Status)
		}
	}
}

// TestCacheAppliesTenantPolicy: a tenant's fetch is refused, before any download and also
// when an admin's fetch put the chart in the cache; an admin's fetch is not.
func TestCacheAppliesTenantPolicy(t *testing.T) {
	url, stop, err := chartrepo.Serve(context.Background(), "../../../testdata/charts")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	c, err := NewCache(CacheOptions{Dir: t.TempDir(), Sources: Sources{Tenant: tenantPolicy(t, nil, "link-local", "loopback")}})
	if err != nil {
		t.Fatal(err)
	}
	hc := configv1beta1.HelmChart{RepositoryURL: url, ChartName: "webapp", ChartVersion: "1.0.0"}
	if _, err := c.Fetch(context.Background(), hc, nil); err != nil {
		t.Fatalf("admin fetch: %v", err)
	}
	_, err = c.Fetch(ForTenant(context.Background()), hc, nil)
	if !errors.Is(err, ErrSourceRefused) || !IsPermanent(err) {
		t.Fatalf("tenant fetch of a cached chart from loopback: got %v, want refused", err)
	}
	hc.RepositoryURL = "oci://" + strings.TrimPrefix(url, "http://")
	if _, err := c.Fetch(ForTenant(context.Background()), hc, nil); !errors.Is(err, ErrSourceRefused) {
		t.Fatalf("tenant fetch from an OCI registry on loopback: got %v, want refused", err)
	}
}

// TestTenantPolicyClientsFetch: charts still come through the policy's own clients, from an
// HTTP repository and an OCI registry, when the policy allows their address.
func TestTenantPolicyClientsFetch(t *testing.T) {
	repoURL, stop, err := chartrepo.Serve(context.Background(), "../../../testdata/charts")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	ociURL, stopOCI, err := chartrepo.ServeOCI(context.Background(), "../../../testdata/charts")
	if err != nil {
		t.Fatal(err)
	}
	defer stopOCI()
	c, err := NewCache(CacheOptions{Dir: t.TempDir(), Sources: Sources{Tenant: tenantPolicy(t, nil, "link-local")}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := ForTenant(context.Background())
	for _, tc := range []struct {
		hc    configv1beta1.HelmChart
		creds *Credentials
	}{
		{configv1beta1.HelmChart{RepositoryURL: repoURL, ChartName: "webapp", ChartVersion: "~1.0"}, nil},
		{configv1beta1.HelmChart{RepositoryURL: ociURL, RepositoryName: "charts", ChartName: "charts/webapp", ChartVersion: "~1.0"}, &Credentials{PlainHTTP: true}},
	} {
		if ch, err := c.Fetch(ctx, tc.hc, tc.creds); err != nil || ch.Metadata.Version != "1.0.0" {
			t.Errorf("%s: %v, %v", tc.hc.RepositoryURL, ch, err)
		}
	}
}

// TestSourcePolicyChecksRedirects: a repository that redirects a download to a refused address is
// refused even through an HTTP proxy, where the dialer sees only the proxy's address; a redirect
// to an allowed address is followed.
func TestSourcePolicyChecksRedirects(t *testing.T) {
	var asked []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.String())
		switch r.URL.Host {
		case "charts.example.com":
			http.Redirect(w, r, "http://metadata.example.test/latest/meta-data/", http.StatusFound)
		default:
			_, _ = w.Write([]byte("apiVersion: v1\n"))
		}
	}))
	defer proxy.Close()
	proxyURL, err := url.Parse(proxy.URL)
	if err != nil {
		t.Fatal(err)
	}
	p := tenantPolicy(t, nil, "link-local")
	p.httpClient().Transport.(*http.Transport).Proxy = http.ProxyURL(proxyURL)
	resp, err := p.httpClient().Get("http://charts.example.com/index.yaml")
	if err == nil {
		_ = resp.Body.Close()
		t.Fatalf("a redirect to link-local through a proxy was followed (asked %v)", asked)
	}
	if !errors.Is(err, ErrSourceRefused) || !IsPermanent(err) || !strings.Contains(err.Error(), "link-local") {
		t.Fatalf("got %v, want a permanent refusal naming link-local", err)
	}
	if len(asked) != 1 {
		t.Fatalf("the proxy was asked %v, want only the first URL", asked)
	}
	p.Resolver.(names)["mirror.example.com"] = []netip.Addr{netip.MustParseAddr("203.0.113.9")}
	p.Resolver.(names)["charts.example.com"] = []netip.Addr{netip.MustParseAddr("203.0.113.8")}
	delete(p.Resolver.(names), "metadata.example.test")
	asked = nil
	proxy.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.String())
		if r.URL.Host == "mirror.example.com" {
			http.Redirect(w, r, "http://charts.example.com/index.yaml", http.StatusFound)
			return
		}
		_, _ = w.Write([]byte("apiVersion: v1\n"))
	})
	resp, err = p.httpClient().Get("http://mirror.example.com/index.yaml")
	if err != nil {
		t.Fatalf("an allowed redirect: %v", err)
	}
	_ = resp.Body.Close()
	if len(asked) != 2 {
		t.Fatalf("the proxy was asked %v, want the redirect followed", asked)
	}
}
