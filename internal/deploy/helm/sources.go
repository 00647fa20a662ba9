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
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Network is a named address range a SourcePolicy refuses.
type Network struct {
	Name   string // as the operator wrote it: "link-local", "10.96.0.0/12", ...
	Prefix netip.Prefix
}

// SourcePolicy bounds where charts are fetched from: which hosts a repository or registry URL
// may name, and which addresses a connection may reach. The address check runs on the
// connection itself (a net.Dialer control hook), after name resolution, so a host name that
// resolves to a refused address, at any time, is refused too. A nil policy allows everything.
type SourcePolicy struct {
	// Hosts, when not empty, are the only hosts allowed: exact names, "*.example.com"
	// (any subdomain), IP addresses or CIDRs (matched against an IP address in the URL).
	Hosts []string
	// Refused are never connected to.
	Refused []Network
	// Whose names the profiles the policy applies to in messages ("tenants'"), and HostsFlag
	// and NetworksFlag the settings that change it.
	Whose, HostsFlag, NetworksFlag string
	// Resolver resolves host names before a download; nil means net.DefaultResolver. Tests
	// set it to resolve names of their own.
	Resolver interface {
		LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
	}

	once   sync.Once
	client *http.Client
}

// Well-known networks the network lists may name.
var namedNetworks = map[string][]string{
	// Link-local, where clouds serve instance metadata (169.254.169.254, fd00:ec2::254 aside).
	"link-local": {"169.254.0.0/16", "fe80::/10"},
	// Loopback reaches the controller's own pod; 0.0.0.0 and :: reach it too when dialed.
	"loopback": {"127.0.0.0/8", "::1/128", "0.0.0.0/8", "::/128"},
	"private":  {"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"},
}

// ServiceNetworkName is the word that stands for the management cluster's service network in
// a network list; the caller supplies its ranges to ParseNetworks.
const ServiceNetworkName = "service-network"

// ParseNetworks reads a network list: CIDRs, IP addresses, and the words link-local,
// loopback, private and service-network (whose ranges are service).
func ParseNetworks(items []string, service []netip.Prefix) ([]Network, error) {
	var out []Network
	for _, item := range items {
		item = strings.TrimSpace(item)
		switch {
		case item == "":
		case item == ServiceNetworkName:
			for _, p := range service {
				out = append(out, Network{Name: ServiceNetworkName + " " + p.String(), Prefix: p})
			}
		case namedNetworks[item] != nil:
			for _, s := range namedNetworks[item] {
				out = append(out, Network{Name: item + " " + s, Prefix: netip.MustParsePrefix(s)})
			}
		default:
			p, err := parsePrefix(item)
			if err != nil {
				return nil, fmt.Errorf("network %q: neither a CIDR, an IP address, nor one of link-local, loopback, private, %s",
					item, ServiceNetworkName)
			}
			out = append(out, Network{Name: p.String(), Prefix: p})
		}
	}
	return out, nil
}

func parsePrefix(s string) (netip.Prefix, error) {
	if a, err := netip.ParseAddr(s); err == nil {
		return netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()), nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return p, err
	}
	return netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-unmappedBits(p.Addr())).Masked(), nil
}

func unmappedBits(a netip.Addr) int {
	if a.Is4In6() {
		return 96
	}
	return 0
}

// refusal says why addr may not be reached, or "" when it may.
func (p *SourcePolicy) refusal(addr netip.Addr) string {
	addr = addr.Unmap().WithZone("")
	for _, n := range p.Refused {
		if n.Prefix.Contains(addr) {
			return n.Name
		}
	}
	return ""
}

// allowsHost says whether the host of a URL is on the Hosts list (or the list is empty).
func (p *SourcePolicy) allowsHost(host string) bool {
	if len(p.Hosts) == 0 {
		return true
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	addr, addrErr := netip.ParseAddr(host)
	for _, h := range p.Hosts {
		h = strings.ToLower(strings.TrimSpace(h))
		switch {
		case addrErr == nil && strings.Contains(h, "/"):
			if pr, err := parsePrefix(h); err == nil && pr.Contains(addr.Unmap()) {
				return true
			}
		case strings.HasPrefix(h, "*."):
			if strings.HasSuffix(host, h[1:]) {
				return true
			}
		case h == host:
			return true
		}
	}
	return false
}

// check refuses rawURL when its host is not allowed, or when it resolves to a refused address.
// A name that does not resolve now is left to the connection, which checks again.
func (p *SourcePolicy) check(ctx context.Context, rawURL string) error {
	if p == nil {
		return nil
	}
	host := hostOf(rawURL)
	if !p.allowsHost(host) {
		return permanent(fmt.Errorf("%w: %s: host %s is not among the hosts %s charts may come from (%s); %s allows it",
			ErrSourceRefused, rawURL, host, cmp.Or(p.Whose, "these"), strings.Join(p.Hosts, ", "), p.HostsFlag))
	}
	addrs, err := p.lookup(ctx, host)
	if err != nil {
		return nil //nolint:nilerr // the connection, which checks each address, reports it
	}
	for _, a := range addrs {
		if why := p.refusal(a); why != "" {
			return p.refused(rawURL, host, a, why)
		}
	}
	return nil
}

func (p *SourcePolicy) refused(what, host string, addr netip.Addr, network string) error {
	via := ""
	if host != addr.String() {
		via = " resolves to " + addr.String() + ", which"
	}
	return permanent(fmt.Errorf("%w: %s: host %s%s is in the network %s, which %s charts may not come from; %s allows it",
		ErrSourceRefused, what, host, via, network, cmp.Or(p.Whose, "these"), p.NetworksFlag))
}

func (p *SourcePolicy) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return []netip.Addr{a}, nil
	}
	var r interface {
		LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
	} = net.DefaultResolver
	if p.Resolver != nil {
		r = p.Resolver
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return r.LookupNetIP(ctx, "ip", host)
}

// hostOf is the host of a repository URL or of an OCI reference (oci://host/path, host/path).
func hostOf(raw string) string {
	if !strings.Contains(raw, "://") {
		raw = "oci://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Hostname()
}

// control is the net.Dialer hook: it runs for every connection, with the address name
// resolution gave, just before the connection is made.
func (p *SourcePolicy) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: connection to %s (%s): not an IP address", ErrSourceRefused, address, network)
	}
	if why := p.refusal(ap.Addr()); why != "" {
		return p.refused("connection to "+address, ap.Addr().String(), ap.Addr(), why)
	}
	return nil
}

// checkRedirect is the http.Client hook of p's downloads: where a download is redirected is
// resolved and checked against the refused networks, as the first URL is (check). The dialer
// checks every address it connects to, but through an HTTP proxy (HTTPS_PROXY) it connects to the
// proxy only, and a repository could otherwise send the proxy to a refused address. The host list
// is not applied: repositories commonly redirect downloads to a CDN of another name.
func (p *SourcePolicy) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	host := req.URL.Hostname()
	addrs, err := p.lookup(req.Context(), host)
	if err != nil {
		return nil //nolint:nilerr // as check: the connection, which checks each address, reports it
	}
	for _, a := range addrs {
		if why := p.refusal(a); why != "" {
			return p.refused("redirect to "+req.URL.Redacted(), host, a, why)
		}
	}
	return nil
}

// transport is http.DefaultTransport with every connection checked by p.
func (p *SourcePolicy) transport() *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if p != nil {
		d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: p.control}
		tr.DialContext = d.DialContext
	}
	return tr
}

// httpClient is the shared client of p's downloads: connections are reused among the
// profiles p applies to, and never with those of another policy.
func (p *SourcePolicy) httpClient() *http.Client {
	if p == nil {
		return defaultHTTP
	}
	p.once.Do(func() {
		p.client = &http.Client{Timeout: 2 * time.Minute, Transport: p.transport(), CheckRedirect: p.checkRedirect}
	})
	return p.client
}

// Sources are the policies of the two kinds of profile owner.
type Sources struct {
	// Tenant applies to tenants' profiles (configv1beta1.TenantOf); Admin to platform
	// admins'. Nil allows everything.
	Tenant, Admin *SourcePolicy
}

type tenantKey struct{}
type policyKey struct{}

// ForTenant marks ctx as working for a tenant's profile: charts are fetched under the
// tenant source policy.
func ForTenant(ctx context.Context) context.Context {
	return context.WithValue(ctx, tenantKey{}, true)
}

// admit checks the chart's repository against the policy ctx falls under, and returns ctx
// carrying that policy for the downloads that follow.
func (c *Cache) admit(ctx context.Context, ref chartRef) (context.Context, error) {
	p := c.sources.Admin
	if t, _ := ctx.Value(tenantKey{}).(bool); t {
		p = c.sources.Tenant
	}
	if err := p.check(ctx, ref.repoURL); err != nil {
		return ctx, err
	}
	return context.WithValue(ctx, policyKey{}, p), nil
}

// policyFrom is the policy admit chose; nil when none applies.
func policyFrom(ctx context.Context) *SourcePolicy {
	p, _ := ctx.Value(policyKey{}).(*SourcePolicy)
	return p
}
