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

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestClusterOutage stops the edge cluster's API server: the cluster is reported Down with the
// reason, its summary says it waits for the cluster, and once the API server is back the change
// made meanwhile is deployed without anyone touching anything.
func TestClusterOutage(t *testing.T) {
	t.Parallel()
	const ns = "e2e-outage"
	createConfigMap(t, "e2e-outage", map[string]string{"config.yaml": configMapManifest(ns, "settings", "before")})
	p := sveltosProfile("e2e-outage", map[string]string{"env": "edge"})
	p.Spec.PolicyRefs = []configv1beta1.PolicyRef{configMapRef("e2e-outage")}
	createProfile(t, p)
	edge := managed(t, "edge")
	waitConfigMapValue(t, edge, ns, "settings", "before")

	if err := sandbox.Kill(testenv.Fleet.Dir, "edge-kube-apiserver"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { testenv.Recover(t) })
	c := testenv.Client(t)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cl := &libv1beta1.SveltosCluster{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: "edge", Name: "edge"}, cl); err != nil {
			return err
		}
		if cl.Status.Ready || cl.Status.ConnectionStatus != libv1beta1.ConnectionDown || cl.Status.FailureMessage == nil ||
			!strings.Contains(*cl.Status.FailureMessage, "connection refused") {
			return fmt.Errorf("edge: ready=%v connection=%s failure=%v", cl.Status.Ready, cl.Status.ConnectionStatus, cl.Status.FailureMessage)
		}
		return nil
	})

	updateConfigMap(t, "e2e-outage", map[string]string{"config.yaml": configMapManifest(ns, "settings", "after")})
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cs, err := summary(ctx, t, p.Name, "edge")
		if err != nil {
			return err
		}
		if cs.Status.FailureMessage == nil || !strings.Contains(*cs.Status.FailureMessage, "cluster edge/edge is not ready") {
			return fmt.Errorf("summary failureMessage %v", cs.Status.FailureMessage)
		}
		return nil
	})

	testenv.Recover(t)
	waitConfigMapValue(t, edge, ns, "settings", "after")
	expectFeature(t, p.Name, "edge", libv1beta1.FeatureResources, libv1beta1.FeatureStatusProvisioned)
}
