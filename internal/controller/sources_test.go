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
	"net/netip"
	"slices"
	"testing"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

func TestServiceNetwork(t *testing.T) {
	kubernetes := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "kubernetes"},
		Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.1", ClusterIPs: []string{"10.96.0.1", "fd00::1"}}}
	cidr := &networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: "kubernetes"},
		Spec: networkingv1.ServiceCIDRSpec{CIDRs: []string{"10.96.0.0/12", "fd00::/108"}}}
	for _, tc := range []struct {
		name   string
		objs   []client.Object
		stated []string
		want   []string
	}{
		{"ServiceCIDRs", []client.Object{kubernetes, cidr}, nil, []string{"10.96.0.0/12", "fd00::/108"}},
		{"stated wins", []client.Object{kubernetes, cidr}, []string{"172.20.0.0/16"}, []string{"172.20.0.0/16"}},
		{"no ServiceCIDRs: the kubernetes Service's addresses", []client.Object{kubernetes}, nil, []string{"10.96.0.1/32", "fd00::1/128"}},
		{"nothing known", nil, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(tc.objs...).Build()
			got, err := serviceNetwork(context.Background(), c, tc.stated, logr.Discard())
			if err != nil {
				t.Fatal(err)
			}
			var s []string
			for _, p := range got {
				s = append(s, p.String())
			}
			if !slices.Equal(s, tc.want) {
				t.Errorf("got %v, want %v", s, tc.want)
			}
		})
	}
	if _, err := serviceNetwork(context.Background(), fake.NewClientBuilder().Build(), []string{"not-a-cidr"}, logr.Discard()); err == nil {
		t.Error("a bad --service-network was accepted")
	}
}

// TestSourcePolicies: tenants get the default refused networks with the service network in
// them; admins are unrestricted until configured.
func TestSourcePolicies(t *testing.T) {
	cidr := &networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: "kubernetes"},
		Spec: networkingv1.ServiceCIDRSpec{CIDRs: []string{"10.96.0.0/12"}}}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(cidr).Build()
	s, err := sourcePolicies(context.Background(), c, ChartSources{}, logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	if s.Admin != nil {
		t.Errorf("admins are restricted by default: %+v", s.Admin)
	}
	var names []string
	for _, n := range s.Tenant.Refused {
		names = append(names, n.Name)
		if n.Name == "service-network 10.96.0.0/12" && !n.Prefix.Contains(netip.MustParseAddr("10.100.0.1")) {
			t.Errorf("service network %v", n.Prefix)
		}
	}
	for _, want := range []string{"link-local 169.254.0.0/16", "loopback 127.0.0.0/8", "service-network 10.96.0.0/12"} {
		if !slices.Contains(names, want) {
			t.Errorf("tenants' refused networks %v lack %s", names, want)
		}
	}
	s, err = sourcePolicies(context.Background(), c, ChartSources{TenantRefusedNetworks: []string{}, AdminRefusedNetworks: []string{"link-local"}}, logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tenant.Refused) != 0 || s.Admin == nil || len(s.Admin.Refused) != 2 {
		t.Errorf("explicit lists not kept: tenant %v, admin %+v", s.Tenant.Refused, s.Admin)
	}
	if _, err := sourcePolicies(context.Background(), c, ChartSources{TenantRefusedNetworks: []string{"everywhere"}}, logr.Discard()); err == nil {
		t.Error("an unknown network was accepted")
	}
}
