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

// Package upstream runs the manifests Sveltos and Kubefleet publish (their documentation,
// samples, demos and cookbooks) against the controller on a sandbox fleet: each must be
// accepted, by check.sh too, and none may fail as "not supported". The corpus is read in place from ../shared/upstream beside the repository
// (or $STAGECOACH_UPSTREAM_DIR); it is never copied into the repository.
package upstream

import (
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/stagecoach-dev/stagecoach/internal/controller"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// corpusLabel marks the one managed cluster every document is pointed at.
const corpusLabel = "stagecoach.dev/upstream-corpus"

func TestMain(m *testing.M) {
	// Documents read Flux sources: their kinds are served, as where Sveltos users run them.
	testenv.SourceController = true
	// Sveltos' multi-tenancy documents name tenant ServiceAccounts of the default namespace: the
	// chart is rendered to let the controller act as them, as an operator running those
	// documents would (tenancy.namespaces).
	testenv.TenantNamespaces = append(testenv.TenantNamespaces, "default")
	testenv.MainWithController(m,
		func(mgr ctrl.Manager) error {
			return controller.Setup(mgr, controller.Options{RecordApprovers: testenv.RecordApprovers, ProbeInterval: 2 * time.Second, HealthInterval: time.Second,
				ChartSources: controller.ChartSources{TenantRefusedNetworks: testenv.TenantRefusedChartNetworks}})
		},
		sandbox.ClusterSpec{Name: "corpus", Labels: map[string]string{corpusLabel: "true"}},
	)
}
