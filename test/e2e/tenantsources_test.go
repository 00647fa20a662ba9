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

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// tenantProfile is a ClusterProfile of a tenant: its labels name a ServiceAccount of one of
// testenv.TenantNamespaces.
func tenantProfile(name, tenantNamespace string, selector map[string]string) *configv1beta1.ClusterProfile {
	p := sveltosProfile(name, selector)
	p.Labels = map[string]string{
		configv1beta1.ServiceAccountNameLabel:      name,
		configv1beta1.ServiceAccountNamespaceLabel: tenantNamespace,
	}
	return p
}

// TestTenantChartFromLinkLocalRefused: a tenant names a chart repository at the cloud metadata
// address. The controller refuses it before connecting, says so with the host, the address and
// the flag that would allow it, in status and in an Event, and deploys nothing.
func TestTenantChartFromLinkLocalRefused(t *testing.T) {
	t.Parallel()
	const ns = "e2e-sources-metadata"
	p := tenantProfile("e2e-sources-metadata", testenv.TenantNamespaces[0], map[string]string{"env": "qa"})
	hc := webapp(t, "web", ns, "1.0.0")
	hc.RepositoryURL = "http://169.254.169.254/charts"
	p.Spec.HelmCharts = []configv1beta1.HelmChart{hc}
	createProfile(t, p)

	cs := expectFeature(t, p.Name, "qa", libv1beta1.FeatureHelm, libv1beta1.FeatureStatusFailedNonRetriable)
	msg := failureMessage(cs, libv1beta1.FeatureHelm)
	for _, want := range []string{"169.254.169.254", "link-local 169.254.0.0/16", "--tenant-refused-chart-networks"} {
		if !strings.Contains(msg, want) {
			t.Errorf("failure message %q does not say %q", msg, want)
		}
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		var list eventsv1.EventList
		if err := testenv.Client(t).List(ctx, &list); err != nil {
			return err
		}
		for _, e := range list.Items {
			if e.Regarding.Name == cs.Name && e.Type == "Warning" && strings.Contains(e.Note, "--tenant-refused-chart-networks") &&
				strings.Contains(e.Note, "169.254.169.254") {
				return nil
			}
		}
		return fmt.Errorf("no Warning event on %s names the refused address and the flag", cs.Name)
	})
	qa := managed(t, "qa")
	if _, err := qa.CoreV1().Namespaces().Get(t.Context(), ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("namespace %s on qa: %v, want nothing deployed", ns, err)
	}
	secrets, err := qa.CoreV1().Secrets(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "owner=helm"})
	if err != nil || len(secrets.Items) > 0 {
		t.Errorf("helm release records on qa: %d (%v), want none", len(secrets.Items), err)
	}
}

// TestHealthCheckSecretsRedactedForTenants: a health check's script reads two Secrets of a
// managed cluster and puts their values in its message, which lands in status. A tenant's
// profile sees the one its ServiceAccount may get there (a RoleBinding on that cluster) and
// only the keys of the other; a platform admin's profile sees both.
func TestHealthCheckSecretsRedactedForTenants(t *testing.T) {
	t.Parallel()
	const secretsNS = "e2e-health-secrets"
	staging := managed(t, "staging")
	ctx := t.Context()
	tenantNS := testenv.TenantNamespaces[1]
	const tenantSA = "e2e-health-secrets"
	objs := []func() error{
		func() error {
			_, err := staging.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: secretsNS}}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := staging.CoreV1().Secrets(secretsNS).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "readable"},
				Data: map[string][]byte{"k": []byte("open-value")}}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := staging.CoreV1().Secrets(secretsNS).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "hidden"},
				Data: map[string][]byte{"k": []byte("s3cr3t")}}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := staging.RbacV1().Roles(secretsNS).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "read-one"},
				Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"readable"}, Verbs: []string{"get"}}},
			}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := staging.RbacV1().RoleBindings(secretsNS).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "read-one"},
				RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "read-one"},
				Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: tenantNS, Name: tenantSA}},
			}, metav1.CreateOptions{})
			return err
		},
	}
	for _, create := range objs {
		if err := create(); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		_ = staging.CoreV1().Namespaces().Delete(context.Background(), secretsNS, metav1.DeleteOptions{})
	})

	// base64 of open-value and of s3cr3t, as a Secret's data reads.
	const openValue, hiddenValue = "b3Blbi12YWx1ZQ==", "czNjcjN0"
	check := func(ns string) libv1beta1.ValidateHealth {
		return libv1beta1.ValidateHealth{Name: "reads-secrets", FeatureID: libv1beta1.FeatureHelm, Group: "apps", Version: "v1",
			Kind: "Deployment", Namespace: ns, Script: `function evaluate()
  local a = getResource("v1", "Secret", "` + secretsNS + `", "readable")
  local b = getResource("v1", "Secret", "` + secretsNS + `", "hidden")
  return {healthy = false, message = "readable=" .. a.data.k .. " hidden=" .. b.data.k}
end`}
	}
	tenant := tenantProfile("e2e-health-secrets-tenant", tenantNS, map[string]string{"env": "staging"})
	tenant.Labels[configv1beta1.ServiceAccountNameLabel] = tenantSA
	tenant.Spec.HelmCharts = []configv1beta1.HelmChart{webapp(t, "web", "e2e-hsecrets-tenant", "1.0.0")}
	tenant.Spec.ValidateHealths = []libv1beta1.ValidateHealth{check("e2e-hsecrets-tenant")}
	admin := sveltosProfile("e2e-health-secrets-admin", map[string]string{"env": "staging"})
	admin.Spec.HelmCharts = []configv1beta1.HelmChart{webapp(t, "web", "e2e-hsecrets-admin", "1.0.0")}
	admin.Spec.ValidateHealths = []libv1beta1.ValidateHealth{check("e2e-hsecrets-admin")}
	// A check selecting the Secrets themselves: the first, hidden, is redacted too.
	selecting := tenantProfile("e2e-health-secrets-selecting", tenantNS, map[string]string{"env": "staging"})
	selecting.Labels[configv1beta1.ServiceAccountNameLabel] = tenantSA
	selecting.Spec.HelmCharts = []configv1beta1.HelmChart{webapp(t, "web", "e2e-hsecrets-selecting", "1.0.0")}
	selecting.Spec.ValidateHealths = []libv1beta1.ValidateHealth{{Name: "selects-secrets", FeatureID: libv1beta1.FeatureHelm,
		Version: "v1", Kind: "Secret", Namespace: secretsNS,
		Script: "function evaluate()\n  return {healthy = false, message = \"k=\" .. obj.data.k}\nend"}}
	createProfile(t, tenant)
	createProfile(t, admin)
	createProfile(t, selecting)

	for _, tc := range []struct {
		profile string
		want    string
		leak    string
	}{
		{tenant.Name, "readable=" + openValue + " hidden=(redacted)", hiddenValue},
		{admin.Name, "readable=" + openValue + " hidden=" + hiddenValue, ""},
		{selecting.Name, "Secret " + secretsNS + "/hidden is not healthy: k=(redacted)", hiddenValue},
	} {
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			cs, err := summary(ctx, t, tc.profile, "staging")
			if err != nil {
				return err
			}
			msg := failureMessage(cs, libv1beta1.FeatureHelm)
			if tc.leak != "" && strings.Contains(msg, tc.leak) {
				t.Fatalf("%s: the status carries a Secret's value: %s", tc.profile, msg)
			}
			if !strings.Contains(msg, tc.want) {
				return fmt.Errorf("%s: failure message %q, want %q", tc.profile, msg, tc.want)
			}
			return nil
		})
	}
}

// TestDryRunReportCutsValuesFromSecrets: a DryRun profile's chart takes a value from a
// Secret, and the chart puts it into a ConfigMap. The dry-run report (a ConfigMap anyone who
// reads the cluster's namespace may read) names the Secret instead of the value.
func TestDryRunReportCutsValuesFromSecrets(t *testing.T) {
	t.Parallel()
	const value = "s3cret-message-value"
	c := testenv.Client(t)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "e2e-dryrun-secret-values", Namespace: "default"},
		Data: map[string][]byte{"values.yaml": []byte("message: " + value + "\n")}}
	if err := c.Create(t.Context(), secret); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), secret) })
	p := sveltosProfile("e2e-dryrun-secret-values", map[string]string{"env": "prod"})
	p.Spec.SyncMode = configv1beta1.SyncModeDryRun
	hc := webapp(t, "web", "e2e-dryrun-secret-values", "1.0.0")
	hc.ValuesFrom = []configv1beta1.ValueFrom{{Kind: "Secret", Namespace: "default", Name: secret.Name}}
	p.Spec.HelmCharts = []configv1beta1.HelmChart{hc}
	createProfile(t, p)

	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		report := &corev1.ConfigMap{}
		key := client.ObjectKey{Namespace: "prod", Name: configv1beta1.DryRunReportName(p.Name + "-sveltos-prod")}
		if err := c.Get(ctx, key, report); err != nil {
			return err
		}
		helmReport := report.Data["helm"]
		if strings.Contains(helmReport, value) {
			t.Fatalf("the dry-run report carries the Secret's value:\n%s", helmReport)
		}
		if !strings.Contains(helmReport, "(redacted: from Secret default/"+secret.Name+")") {
			return fmt.Errorf("report %q does not name the Secret in place of its value", helmReport)
		}
		return nil
	})
}

// TestTenantChartFromServiceNetworkRefused: a tenant names a chart repository at the
// management cluster's kubernetes Service. The controller found the service network at start
// (the ServiceCIDR objects) and refuses it.
func TestTenantChartFromServiceNetworkRefused(t *testing.T) {
	t.Parallel()
	var svc corev1.Service
	if err := testenv.Client(t).Get(t.Context(), client.ObjectKey{Namespace: "default", Name: "kubernetes"}, &svc); err != nil {
		t.Fatal(err)
	}
	p := tenantProfile("e2e-sources-service", testenv.TenantNamespaces[2], map[string]string{"env": "dev"})
	hc := webapp(t, "web", "e2e-sources-service", "1.0.0")
	hc.RepositoryURL = "https://" + svc.Spec.ClusterIP + "/charts"
	p.Spec.HelmCharts = []configv1beta1.HelmChart{hc}
	createProfile(t, p)

	cs := expectFeature(t, p.Name, "dev", libv1beta1.FeatureHelm, libv1beta1.FeatureStatusFailedNonRetriable)
	msg := failureMessage(cs, libv1beta1.FeatureHelm)
	t.Log(msg)
	for _, want := range []string{svc.Spec.ClusterIP, "service-network", "--tenant-refused-chart-networks"} {
		if !strings.Contains(msg, want) {
			t.Errorf("failure message %q does not say %q", msg, want)
		}
	}
}
