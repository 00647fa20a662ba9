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

// Package chart_test checks the Helm chart in charts/stagecoach: it lints clean, renders what
// the golden files hold, and grants exactly the generated RBAC rules.
package chart_test

import (
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/v2/lint/support"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/stagecoach-dev/stagecoach/internal/testing/chartrender"
)

const chartDir = "../../charts/stagecoach"

var update = flag.Bool("update", false, "rewrite the golden files")

func TestLint(t *testing.T) {
	for _, values := range []string{"", "testdata/production-values.yaml"} {
		lint := action.NewLint()
		lint.Strict = true
		lint.Namespace = "stagecoach-system"
		res := lint.Run([]string{chartDir}, readValues(t, values))
		for _, m := range res.Messages {
			if m.Severity >= support.WarningSev {
				t.Errorf("%s: %s", values, m)
			}
		}
		for _, err := range res.Errors {
			t.Errorf("%s: %v", values, err)
		}
	}
}

// TestTemplate renders the chart as `helm template` does and compares it with the golden files
// (go test ./test/chart -update rewrites them).
func TestTemplate(t *testing.T) {
	for golden, values := range map[string]string{
		"testdata/default.golden.yaml":    "",
		"testdata/production.golden.yaml": "testdata/production-values.yaml",
		"testdata/sharded.golden.yaml":    "testdata/sharded-values.yaml",
	} {
		got := render(t, values)
		if *update {
			if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s is stale: run go test ./test/chart -update and review the diff", golden)
		}
	}
}

// TestRBAC: the chart's ClusterRole holds exactly the rules generated from the code's markers,
// none of them a wildcard, and the placement reader only reads.
func TestRBAC(t *testing.T) {
	var generated rbacv1.ClusterRole
	var generatedRole rbacv1.Role
	data, err := os.ReadFile("../../config/rbac/role.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var kind struct{ Kind string }
		_ = yaml.Unmarshal([]byte(doc), &kind)
		switch kind.Kind {
		case "ClusterRole":
			err = yaml.Unmarshal([]byte(doc), &generated)
		case "Role":
			err = yaml.Unmarshal([]byte(doc), &generatedRole)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	tenancy := map[string]any{"tenancy": map[string]any{
		"namespaces":      []any{"team-a"},
		"serviceAccounts": []any{map[string]any{"namespace": "team-b", "name": "deployer"}, map[string]any{"namespace": "team-b", "name": "reader"}},
	}}
	for name, values := range map[string]map[string]any{"default": nil, "tenancy": tenancy} {
		t.Run(name, func(t *testing.T) {
			out, err := chartrender.Render(t.Context(), chartDir, chartrender.Options{Release: "stagecoach", Namespace: "stagecoach-system", Values: values})
			if err != nil {
				t.Fatal(err)
			}
			roles := rolesOf(t, out)
			main, reader := roles["ClusterRole//stagecoach"], roles["ClusterRole//stagecoach-placement-reader"]
			if a, b := toYAML(t, main.Rules), toYAML(t, generated.Rules); a != b {
				t.Errorf("the chart's ClusterRole differs from config/rbac/role.yaml:\n%s\nwant\n%s", a, b)
			}
			if a, b := toYAML(t, roles["Role/stagecoach-system/stagecoach"].Rules), toYAML(t, generatedRole.Rules); a != b {
				t.Errorf("the chart's Role in the release namespace differs from config/rbac/role.yaml:\n%s\nwant\n%s", a, b)
			}
			if len(reader.Rules) == 0 {
				t.Fatalf("no placement reader role in %v", slices.Collect(maps.Keys(roles)))
			}
			for _, r := range reader.Rules {
				if strings.Join(r.Verbs, ",") != "get,list,watch" {
					t.Errorf("placement reader rule %+v does more than read named kinds", r)
				}
			}
			impersonable := map[string][]string{"team-a": nil, "team-b": {"deployer", "reader"}}
			if values == nil {
				impersonable = nil
			}
			for key, role := range roles {
				for _, r := range role.Rules {
					checkRule(t, key, r, impersonable)
				}
			}
		})
	}
}

// checkRule fails on a wildcard, a write to Secrets outside the release namespace, and any
// impersonation beyond the ServiceAccounts the values name (nil names: any of the namespace).
func checkRule(t *testing.T, role string, r rbacv1.PolicyRule, impersonable map[string][]string) {
	t.Helper()
	kind, ns, _ := strings.Cut(role, "/")
	ns, _, _ = strings.Cut(ns, "/")
	if containsWildcard(r.APIGroups) || containsWildcard(r.Resources) || containsWildcard(r.Verbs) {
		t.Errorf("%s has a wildcard rule: %+v", role, r)
	}
	core := slices.Contains(r.APIGroups, "")
	writes := slices.ContainsFunc(r.Verbs, func(v string) bool { return !slices.Contains([]string{"get", "list", "watch"}, v) })
	if core && slices.Contains(r.Resources, "secrets") && writes && (kind != "Role" || ns != "stagecoach-system") {
		t.Errorf("%s writes Secrets outside the release namespace: %+v", role, r)
	}
	if !slices.Contains(r.Verbs, "impersonate") {
		return
	}
	for _, res := range r.Resources {
		switch {
		case res != "serviceaccounts":
			t.Errorf("%s impersonates %s: %+v", role, res, r)
		case kind != "Role":
			t.Errorf("%s impersonates ServiceAccounts of every namespace: %+v", role, r)
		default:
			names, ok := impersonable[ns]
			switch {
			case !ok:
				t.Errorf("%s impersonates ServiceAccounts of namespace %s, which the values do not list: %+v", role, ns, r)
			case names != nil && len(r.ResourceNames) == 0:
				t.Errorf("%s impersonates every ServiceAccount of %s, the values only %v: %+v", role, ns, names, r)
			case names != nil && !slices.Equal(r.ResourceNames, names):
				t.Errorf("%s impersonates %v in %s, the values %v", role, r.ResourceNames, ns, names)
			}
		}
	}
}

// rolesOf returns the ClusterRoles and Roles of a rendered manifest, by "kind/namespace/name".
func rolesOf(t *testing.T, manifest string) map[string]rbacv1.Role {
	t.Helper()
	roles := map[string]rbacv1.Role{}
	for _, doc := range strings.Split(manifest, "\n---\n") {
		var r rbacv1.Role
		if err := yaml.Unmarshal([]byte(doc), &r); err == nil && (r.Kind == "ClusterRole" || r.Kind == "Role") {
			roles[r.Kind+"/"+r.Namespace+"/"+r.Name] = r
		}
	}
	return roles
}

func containsWildcard(s []string) bool { return slices.Contains(s, "*") }

func toYAML(t *testing.T, v any) string {
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// render renders the chart's templates as release "stagecoach" in namespace stagecoach-system.
// The CRDs are left out: make verify-generated keeps them equal to config/crd.
func render(t *testing.T, valuesFile string) string {
	t.Helper()
	out, err := chartrender.Render(t.Context(), chartDir,
		chartrender.Options{Release: "stagecoach", Namespace: "stagecoach-system", Values: readValues(t, valuesFile)})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func readValues(t *testing.T, file string) map[string]any {
	t.Helper()
	values := map[string]any{}
	if file == "" {
		return values
	}
	data, err := os.ReadFile(filepath.Clean(file))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &values); err != nil {
		t.Fatal(err)
	}
	return values
}

// TestTenancyValuesNeedNames: a tenancy.serviceAccounts entry without a namespace or a name is
// refused when the chart renders, rather than granting something else.
func TestTenancyValuesNeedNames(t *testing.T) {
	values := map[string]any{"tenancy": map[string]any{"serviceAccounts": []any{map[string]any{"name": "deployer"}}}}
	_, err := chartrender.Render(t.Context(), chartDir, chartrender.Options{Release: "stagecoach", Namespace: "stagecoach-system", Values: values})
	if err == nil || !strings.Contains(err.Error(), "each entry of tenancy.serviceAccounts needs a namespace and a name") {
		t.Errorf("render: %v", err)
	}
}
