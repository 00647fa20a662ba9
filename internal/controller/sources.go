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

package controller

import (
	"context"
	"fmt"
	"net/netip"
	"strings"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/stagecoach-dev/stagecoach/internal/deploy/helm"
)

// ChartSources bound the Helm repositories and OCI registries profiles' charts come from
// (docs/deploying.md#where-charts-may-come-from). Hosts lists, when not empty, are the only
// hosts allowed; refused networks are never connected to, whatever a host name resolves to.
type ChartSources struct {
	// TenantHosts and TenantRefusedNetworks apply to tenants' profiles. A nil
	// TenantRefusedNetworks means DefaultTenantRefusedNetworks.
	TenantHosts, TenantRefusedNetworks []string
	// AdminHosts and AdminRefusedNetworks apply to platform admins' profiles; empty allows
	// every source.
	AdminHosts, AdminRefusedNetworks []string
	// ServiceNetwork states the management cluster's service network (CIDRs). Empty: the
	// ServiceCIDR objects (networking.k8s.io/v1), or else the kubernetes Service's address.
	ServiceNetwork []string
}

// DefaultTenantRefusedNetworks keep tenants' charts off cloud metadata and other link-local
// addresses, off the controller's own pod, and off the management cluster's Services.
var DefaultTenantRefusedNetworks = []string{"link-local", "loopback", helm.ServiceNetworkName}

// The flags that set ChartSources, named in refusals.
const (
	FlagTenantChartHosts           = "--tenant-chart-hosts"
	FlagTenantRefusedChartNetworks = "--tenant-refused-chart-networks"
	FlagAdminChartHosts            = "--admin-chart-hosts"
	FlagAdminRefusedChartNetworks  = "--admin-refused-chart-networks"
)

// sourcePolicies turns s into the chart cache's policies.
func sourcePolicies(ctx context.Context, r client.Reader, s ChartSources, log logr.Logger) (helm.Sources, error) {
	if s.TenantRefusedNetworks == nil {
		s.TenantRefusedNetworks = DefaultTenantRefusedNetworks
	}
	var service []netip.Prefix
	for _, list := range [][]string{s.TenantRefusedNetworks, s.AdminRefusedNetworks} {
		for _, n := range list {
			if strings.TrimSpace(n) == helm.ServiceNetworkName && service == nil {
				var err error
				if service, err = serviceNetwork(ctx, r, s.ServiceNetwork, log); err != nil {
					return helm.Sources{}, err
				}
			}
		}
	}
	tenant, err := helm.ParseNetworks(s.TenantRefusedNetworks, service)
	if err != nil {
		return helm.Sources{}, fmt.Errorf("%s: %w", FlagTenantRefusedChartNetworks, err)
	}
	out := helm.Sources{Tenant: &helm.SourcePolicy{Hosts: s.TenantHosts, Refused: tenant, Whose: "tenants'",
		HostsFlag: FlagTenantChartHosts, NetworksFlag: FlagTenantRefusedChartNetworks}}
	if len(s.AdminHosts) > 0 || len(s.AdminRefusedNetworks) > 0 {
		admin, err := helm.ParseNetworks(s.AdminRefusedNetworks, service)
		if err != nil {
			return helm.Sources{}, fmt.Errorf("%s: %w", FlagAdminRefusedChartNetworks, err)
		}
		out.Admin = &helm.SourcePolicy{Hosts: s.AdminHosts, Refused: admin, Whose: "platform admins'",
			HostsFlag: FlagAdminChartHosts, NetworksFlag: FlagAdminRefusedChartNetworks}
	}
	return out, nil
}

// serviceNetwork is the management cluster's service network: as stated, or the ranges of
// its ServiceCIDR objects, or else the one address known for sure, the kubernetes Service's.
func serviceNetwork(ctx context.Context, r client.Reader, stated []string, log logr.Logger) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range stated {
		p, err := netip.ParsePrefix(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("--service-network %q: %w", s, err)
		}
		out = append(out, p.Masked())
	}
	if len(out) > 0 {
		return out, nil
	}
	var cidrs networkingv1.ServiceCIDRList
	if err := r.List(ctx, &cidrs); err == nil {
		for _, c := range cidrs.Items {
			for _, s := range c.Spec.CIDRs {
				if p, err := netip.ParsePrefix(s); err == nil {
					out = append(out, p.Masked())
				}
			}
		}
	}
	if len(out) > 0 {
		log.Info("service network read from ServiceCIDRs", "cidrs", out)
		return out, nil
	}
	var svc corev1.Service
	if err := r.Get(ctx, types.NamespacedName{Namespace: "default", Name: "kubernetes"}, &svc); err != nil {
		log.Info("the service network is unknown: tenants' charts are not kept off it; state it with --service-network",
			"reason", err.Error())
		return []netip.Prefix{}, nil
	}
	for _, ip := range svc.Spec.ClusterIPs {
		if a, err := netip.ParseAddr(ip); err == nil {
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
		}
	}
	log.Info("ServiceCIDRs are not served: only the kubernetes Service's address is known of the service network; state it with --service-network",
		"addresses", out)
	return out, nil
}
