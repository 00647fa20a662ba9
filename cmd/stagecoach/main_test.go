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

package main

import (
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/stagecoach-dev/stagecoach/internal/controller"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestMain starts a fleet of three clusters with the controller, which the tests of the
// operator's commands drive as a user would, through the commands themselves run in-process.
func TestMain(m *testing.M) {
	testenv.MainWithController(m,
		func(mgr ctrl.Manager) error {
			return controller.Setup(mgr, controller.Options{RecordApprovers: testenv.RecordApprovers, ProbeInterval: 2 * time.Second, HealthInterval: time.Second,
				ChartSources: controller.ChartSources{TenantRefusedNetworks: testenv.TenantRefusedChartNetworks}})
		},
		sandbox.ClusterSpec{Name: "dev", Labels: map[string]string{"env": "dev"}},
		sandbox.ClusterSpec{Name: "prod", Labels: map[string]string{"env": "prod"}},
		sandbox.ClusterSpec{Name: "qa", Labels: map[string]string{"env": "qa"}},
	)
}

// timeout bounds every wait.
const timeout = 90 * time.Second
