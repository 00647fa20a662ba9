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

// Package chaos runs crash trials: rollouts through a sandbox fleet, in both dialects at once,
// while the controller users run (bin/stagecoach with the chart's arguments, two replicas electing
// a leader) is SIGKILLed at random instants, and API servers and etcd go down mid-wave. The
// verdict comes from the fleet's storage, never from Stagecoach's status (see internal/testing/chaos).
//
//	make chaos TRIALS=200
package chaos

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// defaultWave is how many clusters the staging stage has unless CHAOS_WAVE says otherwise: two,
// as many as maxUpdate, so that `make test` starts no more API servers than it did. make chaos
// sets five: a wave of maxUpdate 2 then runs in three batches, and a kill can land while two
// clusters update and a third waits for its slot.
const defaultWave = 2

// wave lists the staging clusters, set by TestMain.
var wave []string

// overridden says which clusters the Kubefleet dialect's ResourceOverride gives a value of their
// own: every other staging cluster and prod (label chaosOverrideLabel).
func overridden(name string) bool {
	return name == "prod" || (len(name) > len("staging") && name[len(name)-1]%2 == 0)
}

const chaosOverrideLabel = "chaos-override"

// TestMain starts a fleet of CHAOS_WAVE+2 clusters in three stages: dev, staging1…stagingN (the
// wave), prod.
func TestMain(m *testing.M) {
	n := defaultWave
	if s := os.Getenv("CHAOS_WAVE"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "CHAOS_WAVE=%q: want a number of clusters, at least 1\n", s)
			os.Exit(2)
		}
	}
	specs := []sandbox.ClusterSpec{{Name: "dev", Labels: map[string]string{"env": "dev"}}}
	for i := 1; i <= n; i++ {
		wave = append(wave, fmt.Sprintf("staging%d", i))
		specs = append(specs, sandbox.ClusterSpec{Name: wave[i-1], Labels: map[string]string{"env": "staging"}})
	}
	specs = append(specs, sandbox.ClusterSpec{Name: "prod", Labels: map[string]string{"env": "prod"}})
	for _, s := range specs {
		if overridden(s.Name) {
			s.Labels[chaosOverrideLabel] = "yes"
		}
	}
	for _, r := range rollouts {
		r.Stages[1].Clusters = wave
	}
	testenv.Main(m, specs...)
}
