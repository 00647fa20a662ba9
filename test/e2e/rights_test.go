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
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestChartServiceAccountRights: asked of the sandbox's API server (SubjectAccessReview, and
// `kubectl auth can-i --as` itself), the chart's ServiceAccount, which the shared controller runs
// as, writes Secrets only in its own namespace, and impersonates only the ServiceAccounts of the
// namespaces the chart's tenancy values name (testenv.TenantNamespaces), never users or groups.
func TestChartServiceAccountRights(t *testing.T) {
	t.Parallel()
	cs := kubernetes.NewForConfigOrDie(testenv.Fleet.Management.Config)
	for _, c := range []struct {
		verb, resource, namespace, name string
		want                            bool
	}{
		{"create", "secrets", "kube-system", "", false},
		{"update", "secrets", "kube-system", "", false},
		{"delete", "secrets", "default", "", false},
		{"patch", "secrets", testenv.TenantNamespaces[0], "", false},
		{"create", "secrets", testenv.ChartNamespace, "", true},
		{"delete", "secrets", testenv.ChartNamespace, "", true},
		{"get", "secrets", "kube-system", "", true}, // placements select Secrets; kubeconfigs are read where they are
		{"impersonate", "serviceaccounts", "kube-system", "", false},
		{"impersonate", "serviceaccounts", "default", "default", false},
		{"impersonate", "serviceaccounts", testenv.TenantNamespaces[0], "deployer", true},
		{"impersonate", "users", "", "admin", false},
		{"impersonate", "groups", "", "system:masters", false},
	} {
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: testenv.ChartServiceAccount,
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Verb: c.verb, Resource: c.resource, Namespace: c.namespace, Name: c.name},
		}}
		got, err := cs.AuthorizationV1().SubjectAccessReviews().Create(t.Context(), review, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Status.Allowed != c.want {
			t.Errorf("can %s %s %s in namespace %q: %v, want %v (%s)", testenv.ChartServiceAccount, c.verb, c.resource, c.namespace,
				got.Status.Allowed, c.want, got.Status.Reason)
		}
	}
	// The same, in kubectl's words.
	bin, err := sandbox.FindKubeBin()
	if err != nil {
		t.Fatal(err)
	}
	for ns, want := range map[string]string{"kube-system": "no", testenv.ChartNamespace: "yes"} {
		out, _ := exec.CommandContext(t.Context(), filepath.Join(bin, "kubectl"), "--kubeconfig", testenv.Fleet.Management.Kubeconfig,
			"auth", "can-i", "create", "secrets", "-n", ns, "--as", testenv.ChartServiceAccount).Output()
		if got := strings.TrimSpace(string(out)); got != want {
			t.Errorf("kubectl auth can-i create secrets -n %s --as %s: %q, want %q", ns, testenv.ChartServiceAccount, got, want)
		}
	}
}
