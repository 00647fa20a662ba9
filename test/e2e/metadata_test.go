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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestExtraLabelsAndAnnotations: a profile's extraLabels and extraAnnotations land on every
// object it deploys, from policyRefs and from a Helm chart alike, and changing them updates
// the objects.
func TestExtraLabelsAndAnnotations(t *testing.T) {
	t.Parallel()
	const ns = "e2e-metadata"
	createConfigMap(t, "e2e-metadata", map[string]string{"config.yaml": configMapManifest(ns, "settings", "one")})
	p := sveltosProfile("e2e-metadata", map[string]string{"env": "qa"})
	p.Spec.PolicyRefs = []configv1beta1.PolicyRef{configMapRef("e2e-metadata")}
	p.Spec.HelmCharts = []configv1beta1.HelmChart{webapp(t, "meta", ns, "1.0.0")}
	p.Spec.ExtraLabels = map[string]string{"team": "platform"}
	p.Spec.ExtraAnnotations = map[string]string{"owner": "platform@example.com"}
	createProfile(t, p)

	qa := managed(t, "qa")
	expect := func(team string) {
		t.Helper()
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			cm, err := qa.CoreV1().ConfigMaps(ns).Get(ctx, "settings", metav1.GetOptions{})
			if err != nil {
				return err
			}
			d, err := qa.AppsV1().Deployments(ns).Get(ctx, "meta", metav1.GetOptions{})
			if err != nil {
				return err
			}
			for _, o := range []metav1.Object{cm, d} {
				if o.GetLabels()["team"] != team || o.GetAnnotations()["owner"] != "platform@example.com" {
					return fmt.Errorf("%s: labels %v, annotations %v", o.GetName(), o.GetLabels(), o.GetAnnotations())
				}
			}
			if d.Labels["app.kubernetes.io/name"] != "webapp" {
				return fmt.Errorf("the chart's own labels are gone: %v", d.Labels)
			}
			return nil
		})
	}
	expect("platform")
	updateProfile(t, p.Name, func(p *configv1beta1.ClusterProfile) { p.Spec.ExtraLabels["team"] = "payments" })
	expect("payments")
}
