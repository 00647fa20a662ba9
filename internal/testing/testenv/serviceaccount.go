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

package testenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
	"github.com/stagecoach-dev/stagecoach/internal/testing/chartrender"
)

// ChartNamespace is where the shared controller's ServiceAccount lives, as after
// `helm install stagecoach charts/stagecoach -n stagecoach-system`.
const ChartNamespace = "stagecoach-system"

// TenantNamespaces hold the ServiceAccounts that tests use as tenants: the chart is rendered
// with values that let the controller impersonate ServiceAccounts of these namespaces, and no
// others. asChartServiceAccount creates them.
var TenantNamespaces = []string{"tenant-a", "tenant-b", "tenant-c", "tenant-d"}

// ChartServiceAccount is the user the shared controller acts as; set by Main.
var ChartServiceAccount string

// RecordApprovers says whether Main applied the chart's MutatingAdmissionPolicy that stamps
// approvers: the shared controller then trusts those stamps (controller.Options.RecordApprovers),
// as the chart's --record-approvers does.
var RecordApprovers bool

// asChartServiceAccount applies the ServiceAccount, RBAC objects and tenancy admission policy of
// the Helm chart, rendered with its default values but for tenancy.namespaces (TenantNamespaces),
// to the management cluster, and returns a config that authenticates as that ServiceAccount, with
// a token of its own: the controller's own impersonation of tenants' ServiceAccounts is then
// checked against the chart's rules too (a config impersonating the ServiceAccount could not
// impersonate anyone else in turn). The sandbox's API server enforces RBAC and the policy, so a
// controller running with it proves the chart grants what the controller needs, and every suite
// runs under the policy (tests write profiles as the sandbox's admin, a member of system:masters).
func asChartServiceAccount(ctx context.Context, admin *rest.Config) (*rest.Config, string, error) {
	dir, err := chartDir()
	if err != nil {
		return nil, "", err
	}
	manifest, err := chartrender.Render(ctx, dir, chartrender.Options{Release: "stagecoach", Namespace: ChartNamespace,
		Values: map[string]any{"tenancy": map[string]any{"namespaces": tenantNamespaces()}}})
	if err != nil {
		return nil, "", err
	}
	objs, err := manifests.Parse("the chart", map[string][]byte{"manifest": []byte(manifest)})
	if err != nil {
		return nil, "", err
	}
	c, err := client.New(admin, client.Options{Scheme: scheme.New()})
	if err != nil {
		return nil, "", err
	}
	for _, name := range append([]string{ChartNamespace}, TenantNamespaces...) {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if err := client.IgnoreAlreadyExists(c.Create(ctx, ns)); err != nil {
			return nil, "", err
		}
	}
	user, name := "", ""
	for _, obj := range objs {
		switch obj.GetKind() {
		case "ServiceAccount":
			name = obj.GetName()
			user = "system:serviceaccount:" + ChartNamespace + ":" + name
		case "MutatingAdmissionPolicy":
			RecordApprovers = true
		case "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
			"MutatingAdmissionPolicyBinding":
		default:
			continue
		}
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("stagecoach-testenv"), client.ForceOwnership); err != nil {
			return nil, "", fmt.Errorf("applying %s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	if user == "" {
		return nil, "", errors.New("the chart renders no ServiceAccount")
	}
	if RecordApprovers {
		if err := waitForMutatingPolicies(ctx, c); err != nil {
			return nil, "", err
		}
	}
	cs, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return nil, "", err
	}
	life := int64((48 * time.Hour).Seconds())
	tr, err := cs.CoreV1().ServiceAccounts(ChartNamespace).CreateToken(ctx, name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &life}}, metav1.CreateOptions{})
	if err != nil {
		return nil, "", fmt.Errorf("requesting a token for %s: %w", user, err)
	}
	cfg := rest.AnonymousClientConfig(admin)
	cfg.BearerToken = tr.Status.Token
	return cfg, user, nil
}

// chartDir finds charts/stagecoach in the current directory or a parent: tests run in their
// package's directory.
func chartDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		chart := filepath.Join(dir, "charts", "stagecoach")
		if _, err := os.Stat(filepath.Join(chart, "Chart.yaml")); err == nil {
			return chart, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("charts/stagecoach not found in the working directory or its parents")
		}
		dir = parent
	}
}

// tenantNamespaces is TenantNamespaces as Helm values hold a list.
func tenantNamespaces() []any {
	out := make([]any, 0, len(TenantNamespaces))
	for _, ns := range TenantNamespaces {
		out = append(out, ns)
	}
	return out
}

// TenantRefusedChartNetworks is controller.ChartSources.TenantRefusedNetworks for suites whose
// tenants' profiles install charts from the local chart repository: the default refused
// networks but loopback, where the repository listens. Link-local addresses and the service
// network stay refused.
var TenantRefusedChartNetworks = []string{"link-local", "service-network"}

// ChartServiceAccountConfig installs the chart's ServiceAccount and RBAC on Fleet's management
// cluster, as MainWithController does, for a suite that runs the controller as a process of its
// own; it returns a config with a token of that ServiceAccount and the user it authenticates as.
func ChartServiceAccountConfig(ctx context.Context) (*rest.Config, string, error) {
	cfg, user, err := asChartServiceAccount(ctx, Fleet.Management.Config)
	if err == nil {
		ChartServiceAccount = user
	}
	return cfg, user, err
}
