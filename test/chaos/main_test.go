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
// while the controller is SIGKILLed at random instants and API servers go down mid-wave. The
// verdict comes from the fleet's storage, never from Stagecoach's status (see internal/testing/chaos).
//
//	make chaos TRIALS=200
package chaos

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/stagecoach-dev/stagecoach/internal/controller"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// controllerMode is the first argument with which the test binary runs as the controller, a
// process of its own that a trial can kill.
const controllerMode = "stagecoach-controller"

// TestMain starts a fleet of four clusters in three stages: dev, staging1 and staging2 (the
// wave), prod. Run with controllerMode, the binary is the controller instead.
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == controllerMode {
		if err := runController(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	testenv.Main(m,
		sandbox.ClusterSpec{Name: "dev", Labels: map[string]string{"env": "dev"}},
		sandbox.ClusterSpec{Name: "staging1", Labels: map[string]string{"env": "staging"}},
		sandbox.ClusterSpec{Name: "staging2", Labels: map[string]string{"env": "staging"}},
		sandbox.ClusterSpec{Name: "prod", Labels: map[string]string{"env": "prod"}},
	)
}

// runController runs every Stagecoach reconciler against the management cluster, as
// `stagecoach controller` does, with the sandbox's short probe and health intervals.
func runController(kubeconfig string) error {
	return testenv.RunControllerProcess(kubeconfig, func(mgr ctrl.Manager) error {
		return controller.Setup(mgr, controller.Options{RecordApprovers: testenv.RecordApprovers, ProbeInterval: time.Second, HealthInterval: 500 * time.Millisecond, DriftInterval: 30 * time.Second,
			ChartSources: controller.ChartSources{TenantRefusedNetworks: testenv.TenantRefusedChartNetworks},
			// The fleet's own chart cache: the shared one may hold another run's chart of the same
			// version from a chart repository that had the same port.
			ChartCacheDir: filepath.Join(filepath.Dir(kubeconfig), "chart-cache")})
	})
}
