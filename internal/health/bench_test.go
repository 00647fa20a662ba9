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

package health

import (
	"context"
	"testing"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// The benchmarks measure one health check on one Deployment-sized object (testdata/
// deployment.yaml, ~120 lines of YAML), compiled programs already cached: the cost the
// controller pays per object per check.

func BenchmarkLua(b *testing.B) {
	obj := objectFile(b, "deployment.yaml")
	for _, bc := range []struct {
		name   string
		script string
	}{
		{"seed000-deployment-health", seed000DeploymentHealth},
		{"seed000-issuer-getResource", seed000IssuerHealth},
	} {
		b.Run(bc.name, func(b *testing.B) {
			secret := map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "cloudflare-api-token"}}
			getter := func(context.Context, string, string, string, string) (map[string]any, error) { return secret, nil }
			ev := compile(b, &libv1beta1.ValidateHealth{Name: "bench", Kind: "Deployment", Script: bc.script}, Options{Getter: getter})
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ev.Evaluate(ctx, obj); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCEL(b *testing.B) {
	obj := objectFile(b, "deployment.yaml")
	for _, bc := range []struct {
		name string
		rule string
	}{
		{"ref-9.1-replicas-available", refReplicasAvailable},
		{"conditions-exists", `self.status.conditions.exists(c, c.type == 'Available' && c.status == 'True')`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ev := compile(b, celRules(bc.rule), Options{})
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				res, err := ev.Evaluate(ctx, obj)
				if err != nil || !res.Healthy {
					b.Fatal(res, err)
				}
			}
		})
	}
}

// BenchmarkCompileCached is the cost of Compile when the programs are cached: what a caller
// pays for compiling per check and per cluster.
func BenchmarkCompileCached(b *testing.B) {
	check := celRules(refReplicasAvailable)
	check.Script = seed000DeploymentHealth
	cache := NewCache(0)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(check, Options{Cache: cache}); err != nil {
			b.Fatal(err)
		}
	}
}
