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

	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
