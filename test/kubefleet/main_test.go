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

// Package kubefleet runs Kubefleet's staged update walkthrough (seed 004) end to end on a sandbox
// fleet with the walkthrough's three member clusters, against the whole controller.
package kubefleet

import (
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/stagecoach-dev/stagecoach/internal/controller"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestMain starts member1 (environment=canary, order=2), member2 (environment=staging) and
// member3 (environment=canary, order=1), registered as MemberClusters, and the controller.
func TestMain(m *testing.M) {
	testenv.MainWithController(m,
		func(mgr ctrl.Manager) error {
			// The Cluster Inventory API is on, as the chart has it; MemberClusters' ClusterProfiles go to
			// "default", which exists in every sandbox.
			return controller.Setup(mgr, controller.Options{RecordApprovers: testenv.RecordApprovers, ProbeInterval: 2 * time.Second, DriftInterval: time.Second, HealthInterval: time.Second,
				ClusterInventory: true, InventoryNamespace: "default",
				ChartSources: controller.ChartSources{TenantRefusedNetworks: testenv.TenantRefusedChartNetworks}})
		},
		sandbox.ClusterSpec{Name: "member1", Labels: map[string]string{"environment": "canary", "order": "2"}},
		sandbox.ClusterSpec{Name: "member2", Labels: map[string]string{"environment": "staging"}},
		sandbox.ClusterSpec{Name: "member3", Labels: map[string]string{"environment": "canary", "order": "1"}},
	)
}

// timeout bounds every wait.
const timeout = 2 * time.Minute
