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
	generated := rbacv1.ClusterRole{}
	data, err := os.ReadFile("../../config/rbac/role.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &generated); err != nil {
		t.Fatal(err)
	}
	roles := map[string]rbacv1.ClusterRole{}
	for _, doc := range strings.Split(render(t, ""), "\n---\n") {
		var r rbacv1.ClusterRole
		if err := yaml.Unmarshal([]byte(doc), &r); err == nil && r.Kind == "ClusterRole" {
			roles[r.Name] = r
		}
	}
	main, reader := roles["stagecoach"], roles["stagecoach-placement-reader"]
	if a, b := toYAML(t, main.Rules), toYAML(t, generated.Rules); a != b {
		t.Errorf("the chart's ClusterRole differs from config/rbac/role.yaml:\n%s\nwant\n%s", a, b)
	}
	for _, r := range main.Rules {
		if containsWildcard(r.APIGroups) || containsWildcard(r.Resources) || containsWildcard(r.Verbs) {
			t.Errorf("the controller's ClusterRole has a wildcard rule: %+v", r)
		}
	}
	if len(reader.Rules) == 0 {
		t.Fatalf("no placement reader role in %v", roles)
	}
	for _, r := range reader.Rules {
		if strings.Join(r.Verbs, ",") != "get,list,watch" || containsWildcard(r.APIGroups) || containsWildcard(r.Resources) {
			t.Errorf("placement reader rule %+v does more than read named kinds", r)
		}
	}
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
