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

// Package e2e runs Stagecoach end to end on a sandbox fleet: every reconciler of the controller
// against a management cluster and four managed clusters, with charts served from a local Helm
// repository. Tests share the fleet and one controller, so each works in its own namespaces with
// its own profiles, and the test that breaks a cluster has a cluster of its own.
package e2e

import (
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/stagecoach-dev/stagecoach/internal/controller"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestMain starts the fleet and the controller. Probes run every 2 s: with three failures in a
// row needed to call a cluster down, a machine busy with other test packages does not make
// healthy clusters flap.
func TestMain(m *testing.M) {
	// Flux sources are read from the real source-controller (TestFluxGitRepositoryPromotion).
	testenv.SourceController = true
	testenv.MainWithController(m,
		func(mgr ctrl.Manager) error {
			return controller.Setup(mgr, controller.Options{RecordApprovers: testenv.RecordApprovers, ProbeInterval: 2 * time.Second, DriftInterval: time.Second, HealthInterval: time.Second,
				ChartSources: controller.ChartSources{TenantRefusedNetworks: testenv.TenantRefusedChartNetworks}})
		},
		// fleet=e2e marks the four clusters the rolling-update tests roll out to.
		sandbox.ClusterSpec{Name: "dev", Labels: map[string]string{"env": "dev", "fleet": "e2e"}},
		sandbox.ClusterSpec{Name: "staging", Labels: map[string]string{"env": "staging", "fleet": "e2e"}},
		sandbox.ClusterSpec{Name: "prod", Labels: map[string]string{"env": "prod", "fleet": "e2e"}},
		sandbox.ClusterSpec{Name: "qa", Labels: map[string]string{"env": "qa", "fleet": "e2e"}},
		// edge is stopped and restarted by the outage test; nothing else uses it.
		sandbox.ClusterSpec{Name: "edge", Labels: map[string]string{"env": "edge"}},
	)
}

// timeout bounds every wait; deployments on the sandbox take seconds.
const timeout = 90 * time.Second
