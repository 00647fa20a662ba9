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

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

func configMapManifest(ns, name, value string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n  namespace: %s\ndata:\n  value: %q\n", name, ns, value)
}

func deploymentManifest(ns, name string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[2]s
  namespace: %[1]s
spec:
  replicas: 2
  selector:
    matchLabels: {app: %[2]s}
  template:
    metadata:
      labels: {app: %[2]s}
    spec:
      containers:
      - name: app
        image: example.com/app:1
`, ns, name)
}

// waitConfigMapValue waits until the ConfigMap on a managed cluster holds value ("" = absent).
func waitConfigMapValue(t *testing.T, cs kubernetes.Interface, ns, name, value string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
		switch {
		case value == "" && apierrors.IsNotFound(err):
			return nil
		case err != nil:
			return err
		case cm.Data["value"] != value:
			return fmt.Errorf("ConfigMap %s/%s value %q, want %q", ns, name, cm.Data["value"], value)
		}
		return nil
	})
}

func waitAvailable(t *testing.T, cs kubernetes.Interface, ns, name string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		d, err := cs.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range d.Status.Conditions {
			if c.Type == appsv1.DeploymentAvailable && c.Status == corev1.ConditionTrue && d.Status.AvailableReplicas == *d.Spec.Replicas {
				return nil
			}
		}
		return fmt.Errorf("deployment %s/%s not available: %+v", ns, name, d.Status)
	})
}

// TestResources deploys manifests from a ConfigMap to the matching cluster only, then changes
// and prunes them, and withdraws them when the profile goes.
func TestResources(t *testing.T) {
	t.Parallel()
	const ns = "e2e-resources"
	createConfigMap(t, "e2e-resources", map[string]string{
		"config.yaml": configMapManifest(ns, "settings", "one"),
		"deploy.yaml": deploymentManifest(ns, "web"),
	})
	p := sveltosProfile("e2e-resources", map[string]string{"env": "dev"})
	p.Spec.PolicyRefs = []configv1beta1.PolicyRef{configMapRef("e2e-resources")}
	createProfile(t, p)

	dev, staging := managed(t, "dev"), managed(t, "staging")
	cs := expectFeature(t, p.Name, "dev", libv1beta1.FeatureResources, libv1beta1.FeatureStatusProvisioned)
	waitConfigMapValue(t, dev, ns, "settings", "one")
	waitAvailable(t, dev, ns, "web")
	if _, err := staging.CoreV1().Namespaces().Get(t.Context(), ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("staging, which does not match, got namespace %s (%v)", ns, err)
	}
	if got := fmt.Sprint(cs.Status.DeployedGVKs); !strings.Contains(got, "ConfigMap.v1.") || !strings.Contains(got, "Deployment.v1.apps") {
		t.Errorf("deployedGVKs %s", got)
	}

	// Change one object, drop the other: the change lands, the dropped one is pruned.
	updateConfigMap(t, "e2e-resources", map[string]string{"config.yaml": configMapManifest(ns, "settings", "two")})
	waitConfigMapValue(t, dev, ns, "settings", "two")
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if _, err := dev.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("deployment web not pruned (%v)", err)
		}
		return nil
	})
}

// TestDriftIsReverted edits a deployed object by hand; ContinuousWithDriftDetection puts it back.
func TestDriftIsReverted(t *testing.T) {
	t.Parallel()
	const ns = "e2e-drift"
	createConfigMap(t, "e2e-drift", map[string]string{"config.yaml": configMapManifest(ns, "settings", "desired")})
	p := sveltosProfile("e2e-drift", map[string]string{"env": "staging"})
	p.Spec.SyncMode = configv1beta1.SyncModeContinuousWithDriftDetection
	p.Spec.PolicyRefs = []configv1beta1.PolicyRef{configMapRef("e2e-drift")}
	createProfile(t, p)
	staging := managed(t, "staging")
	waitConfigMapValue(t, staging, ns, "settings", "desired")

	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cm, err := staging.CoreV1().ConfigMaps(ns).Get(ctx, "settings", metav1.GetOptions{})
		if err != nil {
			return err
		}
		cm.Data["value"] = "edited by hand"
		_, err = staging.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{FieldManager: "kubectl-edit"})
		return err
	})
	waitConfigMapValue(t, staging, ns, "settings", "desired")
}

// TestDryRun changes nothing on the cluster and reports what would change.
func TestDryRun(t *testing.T) {
	t.Parallel()
	const ns = "e2e-dryrun"
	createConfigMap(t, "e2e-dryrun", map[string]string{"config.yaml": configMapManifest(ns, "settings", "would")})
	p := sveltosProfile("e2e-dryrun", map[string]string{"env": "prod"})
	p.Spec.SyncMode = configv1beta1.SyncModeDryRun
	p.Spec.PolicyRefs = []configv1beta1.PolicyRef{configMapRef("e2e-dryrun")}
	createProfile(t, p)

	c := testenv.Client(t)
	report := &corev1.ConfigMap{}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		key := client.ObjectKey{Namespace: "prod", Name: configv1beta1.DryRunReportName(p.Name + "-sveltos-prod")}
		if err := c.Get(ctx, key, report); err != nil {
			return err
		}
		if !strings.Contains(report.Data["resources"], "ConfigMap "+ns+"/settings") {
			return fmt.Errorf("report %q does not list the ConfigMap", report.Data["resources"])
		}
		return nil
	})
	if _, err := managed(t, "prod").CoreV1().Namespaces().Get(t.Context(), ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a DryRun profile created namespace %s (%v)", ns, err)
	}
}

// TestInvalidYAMLIsReportedAndHarmless breaks a ConfigMap that was deployed: the summary says
// which key is wrong, what was deployed stays, and another profile keeps deploying.
func TestInvalidYAMLIsReportedAndHarmless(t *testing.T) {
	t.Parallel()
	const ns = "e2e-badyaml"
	createConfigMap(t, "e2e-badyaml", map[string]string{"config.yaml": configMapManifest(ns, "settings", "good")})
	p := sveltosProfile("e2e-badyaml", map[string]string{"env": "dev"})
	p.Spec.PolicyRefs = []configv1beta1.PolicyRef{configMapRef("e2e-badyaml")}
	createProfile(t, p)
	dev := managed(t, "dev")
	waitConfigMapValue(t, dev, ns, "settings", "good")

	updateConfigMap(t, "e2e-badyaml", map[string]string{"config.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [unclosed\n"})
	cs := expectFeature(t, p.Name, "dev", libv1beta1.FeatureResources, libv1beta1.FeatureStatusFailedNonRetriable)
	msg := failureMessage(cs, libv1beta1.FeatureResources)
	if !strings.Contains(msg, "ConfigMap default/e2e-badyaml") || !strings.Contains(msg, `"config.yaml"`) {
		t.Errorf("failure message %q does not name the ConfigMap and key", msg)
	}
	waitConfigMapValue(t, dev, ns, "settings", "good")

	// Another profile on the same cluster is unaffected.
	createConfigMap(t, "e2e-badyaml-other", map[string]string{"config.yaml": configMapManifest(ns+"-other", "settings", "fine")})
	other := sveltosProfile("e2e-badyaml-other", map[string]string{"env": "dev"})
	other.Spec.PolicyRefs = []configv1beta1.PolicyRef{configMapRef("e2e-badyaml-other")}
	createProfile(t, other)
	waitConfigMapValue(t, dev, ns+"-other", "settings", "fine")
}

// TestStopMatching withdraws content from a cluster that stops matching, unless the profile
// says LeavePolicies.
func TestStopMatching(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		behavior configv1beta1.StopMatchingBehavior
		left     string
	}{
		{"e2e-withdraw", configv1beta1.WithdrawPolicies, ""},
		{"e2e-leave", configv1beta1.LeavePolicies, "kept"},
	} {
		createConfigMap(t, tc.name, map[string]string{"config.yaml": configMapManifest(tc.name, "settings", "kept")})
		p := sveltosProfile(tc.name, map[string]string{"env": "staging"})
		p.Spec.StopMatchingBehavior = tc.behavior
		p.Spec.PolicyRefs = []configv1beta1.PolicyRef{configMapRef(tc.name)}
		createProfile(t, p)
	}
	staging := managed(t, "staging")
	for _, tc := range []string{"e2e-withdraw", "e2e-leave"} {
		waitConfigMapValue(t, staging, tc, "settings", "kept")
		// The cluster stops matching: the selector moves away from it.
		updateProfile(t, tc, func(p *configv1beta1.ClusterProfile) {
			p.Spec.ClusterSelector.MatchLabels = map[string]string{"env": "nowhere"}
		})
	}
	waitConfigMapValue(t, staging, "e2e-withdraw", "settings", "")
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if _, err := summary(ctx, t, "e2e-leave", "staging"); !apierrors.IsNotFound(err) {
			return fmt.Errorf("summary of e2e-leave on staging still there (%v)", err)
		}
		return nil
	})
	waitConfigMapValue(t, staging, "e2e-leave", "settings", "kept")
}

func failureMessage(cs *configv1beta1.ClusterSummary, id libv1beta1.FeatureID) string {
	for _, f := range cs.Status.FeatureSummaries {
		if f.FeatureID == id && f.FailureMessage != nil {
			return *f.FailureMessage
		}
	}
	return ""
}
