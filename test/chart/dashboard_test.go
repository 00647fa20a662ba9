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

package chart_test

import (
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/stagecoach-dev/stagecoach/internal/testing/chartrender"
)

// TestDashboardValues: with the dashboard on, a NetworkPolicy guards its port unless the values
// turn it off; its ClusterRole reviews tokens and access and impersonates no one; only a trusted
// proxy adds a role of its own to impersonate; the removed actions.as fails with words that say
// what replaced it.
func TestDashboardValues(t *testing.T) {
	t.Parallel()
	renderWith := func(values map[string]any) (string, error) {
		return chartrender.Render(t.Context(), chartDir, chartrender.Options{Release: "stagecoach", Namespace: "stagecoach-system", Values: values})
	}
	on := map[string]any{"dashboard": map[string]any{"enabled": true}}
	out, err := renderWith(on)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "kind: NetworkPolicy") || !strings.Contains(out, "{port: dashboard, protocol: TCP}") {
		t.Error("the dashboard is on and no NetworkPolicy guards its port")
	}
	found := false
	for _, doc := range strings.Split(out, "\n---\n") {
		var r rbacv1.ClusterRole
		if yaml.Unmarshal([]byte(doc), &r) != nil || r.Kind != "ClusterRole" || r.Name != "stagecoach-dashboard" {
			continue
		}
		found = true
		want := map[string]bool{"tokenreviews/create": false, "subjectaccessreviews/create": false}
		for _, rule := range r.Rules {
			for _, res := range rule.Resources {
				for _, verb := range rule.Verbs {
					if verb == "impersonate" || verb == "*" || res == "*" {
						t.Errorf("the dashboard's ClusterRole may %s %s", verb, res)
					}
					if _, ok := want[res+"/"+verb]; ok {
						want[res+"/"+verb] = true
					}
				}
			}
		}
		for right, ok := range want {
			if !ok {
				t.Errorf("the dashboard's ClusterRole lacks %s", right)
			}
		}
	}
	if !found {
		t.Error("no ClusterRole stagecoach-dashboard")
	}
	off := map[string]any{"dashboard": map[string]any{"enabled": true}, "networkPolicy": map[string]any{"enabled": false}}
	if out, err := renderWith(off); err != nil || strings.Contains(out, "kind: NetworkPolicy") {
		t.Errorf("networkPolicy.enabled false still renders a NetworkPolicy (%v)", err)
	}
	if out, err := renderWith(nil); err != nil || strings.Contains(out, "kind: NetworkPolicy") {
		t.Errorf("without the dashboard, a NetworkPolicy is rendered by default (%v)", err)
	}
	proxy := map[string]any{"dashboard": map[string]any{"enabled": true, "tls": map[string]any{"secretName": "dash-tls"},
		"proxy": map[string]any{"clientCAConfigMap": "front-proxy-ca", "allowedNames": []any{"front-proxy"}, "extraKeys": []any{"scopes"}}}}
	out, err = renderWith(proxy)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--dashboard-proxy-client-ca-file=/etc/stagecoach/dashboard-proxy/ca.crt", "--dashboard-proxy-allowed-names=front-proxy",
		"--dashboard-tls-cert-file=/etc/stagecoach/dashboard-tls/tls.crt", "name: stagecoach-dashboard-proxy", "- userextras/scopes", "secretName: dash-tls"} {
		if !strings.Contains(out, want) {
			t.Errorf("with a trusted proxy, the chart lacks %q", want)
		}
	}
	noTLS := map[string]any{"dashboard": map[string]any{"enabled": true, "proxy": map[string]any{"clientCAConfigMap": "front-proxy-ca"}}}
	if _, err := renderWith(noTLS); err == nil || !strings.Contains(err.Error(), "needs dashboard.tls.secretName") {
		t.Errorf("a proxy without TLS: %v, want a failure that asks for dashboard.tls.secretName", err)
	}
	old := map[string]any{"dashboard": map[string]any{"enabled": true, "actions": map[string]any{"as": "system:serviceaccount:p:a"}}}
	if _, err := renderWith(old); err == nil || !strings.Contains(err.Error(), "dashboard.actions.enabled: true") {
		t.Errorf("dashboard.actions.as: %v, want a failure that names dashboard.actions.enabled", err)
	}
}
