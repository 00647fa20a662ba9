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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

const restartedAt = "kubectl.kubernetes.io/restartedAt"

// mountingDeployment is a Deployment whose pods mount the ConfigMap named cm.
func mountingDeployment(ns, name, cm string) string {
	return strings.Replace(deploymentManifest(ns, name), "      containers:\n",
		fmt.Sprintf("      volumes:\n      - name: settings\n        configMap: {name: %s}\n      containers:\n", cm), 1)
}

// TestReloaderRestartsReaders: with reloader, a change of a ConfigMap the profile deploys
// restarts the Deployment that mounts it (kubectl's restartedAt annotation on its pod
// template), and leaves alone the Deployment that does not read it.
func TestReloaderRestartsReaders(t *testing.T) {
	t.Parallel()
	const ns = "e2e-reloader"
	manifests := func(value string) map[string]string {
		return map[string]string{
			"config.yaml": configMapManifest(ns, "settings", value),
			"reader.yaml": mountingDeployment(ns, "reader", "settings"),
			"other.yaml":  deploymentManifest(ns, "other"),
		}
	}
	createConfigMap(t, "e2e-reloader", manifests("one"))
	p := sveltosProfile("e2e-reloader", map[string]string{"env": "staging"})
	p.Spec.PolicyRefs = []configv1beta1.PolicyRef{configMapRef("e2e-reloader")}
	p.Spec.Reloader = true
	createProfile(t, p)

	staging := managed(t, "staging")
	expectFeature(t, p.Name, "staging", libv1beta1.FeatureResources, libv1beta1.FeatureStatusProvisioned)
	waitAvailable(t, staging, ns, "reader")
	template := func(name string) map[string]string {
		d, err := staging.AppsV1().Deployments(ns).Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return d.Spec.Template.Annotations
	}
	if a := template("reader")[restartedAt]; a != "" {
		t.Fatalf("the first deployment restarted the reader (%s)", a)
	}

	updateConfigMap(t, "e2e-reloader", manifests("two"))
	waitConfigMapValue(t, staging, ns, "settings", "two")
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		d, err := staging.AppsV1().Deployments(ns).Get(ctx, "reader", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if d.Spec.Template.Annotations[restartedAt] == "" {
			return fmt.Errorf("deployment reader not restarted: pod template annotations %v", d.Spec.Template.Annotations)
		}
		return nil
	})
	waitAvailable(t, staging, ns, "reader")
	if a := template("other")[restartedAt]; a != "" {
		t.Errorf("the deployment that does not read the ConfigMap was restarted (%s)", a)
	}
	expectFeature(t, p.Name, "staging", libv1beta1.FeatureResources, libv1beta1.FeatureStatusProvisioned)
}

// TestReloaderRestartsHelmReaders: with reloader, a Helm upgrade that changes a chart's
// ConfigMap restarts the chart's Deployment that mounts it.
func TestReloaderRestartsHelmReaders(t *testing.T) {
	t.Parallel()
	const ns = "e2e-reloader-helm"
	p := sveltosProfile("e2e-reloader-helm", map[string]string{"env": "staging"})
	hc := testedChart(t, "reloaded", ns, configv1beta1.HelmOptions{})
	hc.Values = "message: one\n"
	p.Spec.HelmCharts = []configv1beta1.HelmChart{hc}
	p.Spec.Reloader = true
	createProfile(t, p)

	staging := managed(t, "staging")
	expectFeature(t, p.Name, "staging", libv1beta1.FeatureHelm, libv1beta1.FeatureStatusProvisioned)
	waitAvailable(t, staging, ns, "reloaded")
	d, err := staging.AppsV1().Deployments(ns).Get(t.Context(), "reloaded", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a := d.Spec.Template.Annotations[restartedAt]; a != "" {
		t.Fatalf("the install restarted the Deployment (%s)", a)
	}

	updateProfile(t, p.Name, func(p *configv1beta1.ClusterProfile) { p.Spec.HelmCharts[0].Values = "message: two\n" })
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		d, err := staging.AppsV1().Deployments(ns).Get(ctx, "reloaded", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if d.Spec.Template.Annotations[restartedAt] == "" {
			return fmt.Errorf("deployment reloaded not restarted: pod template annotations %v", d.Spec.Template.Annotations)
		}
		return nil
	})
	waitAvailable(t, staging, ns, "reloaded")
}
