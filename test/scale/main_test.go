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

// Package scale checks what a large fleet needs of Stagecoach on a fleet small enough for every
// test run: managed clusters simulated by internal/fleetsim, the management cluster a real
// kube-apiserver. `make bench-scale` runs the same rollouts over thousands of clusters.
package scale

import (
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/stagecoach-dev/stagecoach/internal/controller"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/testenv"
)

// TestMain starts a management cluster and the controller; each test brings its own simulated
// clusters. A request to a cluster that stopped answering gives up after 5 s, so that the tests
// see within seconds what a fleet sees within the default 30.
func TestMain(m *testing.M) {
	fleet.RequestTimeout = 5 * time.Second
	testenv.MainWithController(m, func(mgr ctrl.Manager) error {
		return controller.Setup(mgr, controller.Options{
			ProbeInterval: 2 * time.Second, HealthInterval: time.Second, DriftInterval: 5 * time.Second,
			// Fewer workers than dead clusters: should a dead cluster hold a worker, the others starve.
			DeployConcurrency: 2,
		})
	})
}
