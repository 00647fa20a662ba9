//go:build e2e

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
	"fmt"
	"testing"
)

// BenchmarkUpgrade upgrades one release of the webapp chart on a sandbox cluster, a new value
// each time: the time and the deployer's CPU (with -cpuprofile) of a Helm upgrade.
//
//	go test -tags e2e ./internal/deploy/helm/ -run '^$' -bench Upgrade -benchtime 30x -cpuprofile cpu.pprof
func BenchmarkUpgrade(b *testing.B) {
	r := remote(b, 0)
	d := newDeployer(b)
	hc := webapp(testEnv.repoURL, "1.0.0")
	hc.ReleaseName, hc.ReleaseNamespace = "bench", "bench"
	for i := 0; b.Loop(); i++ {
		v, err := ParseValues(fmt.Sprintf("message: m%d", i))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := d.Deploy(b.Context(), r, "bench", hc, v); err != nil {
			b.Fatal(err)
		}
	}
}
