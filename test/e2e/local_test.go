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
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestLocalDeploysAsTheProfilesServiceAccount: deploymentType Local content goes to the
// management cluster as the ServiceAccount the profile names, with exactly its rights; a profile
// that names none is refused, and so is one naming a ServiceAccount the chart's tenancy values
// do not let the controller act as (a kube-system controller's), saying which value grants it.
func TestLocalDeploysAsTheProfilesServiceAccount(t *testing.T) {
	t.Parallel()
	// The controller may impersonate ServiceAccounts of the tenant namespaces only.
	const ns, sa = "tenant-a", "e2e-local-deployer"
	c := testenv.Client(t)
	objs := []client.Object{
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: sa}},
		// ConfigMaps in its own namespace only (and reading namespaces, which deploying checks).
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: sa}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "create", "patch", "update", "delete"}}}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: sa},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: sa},
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: ns, Name: sa}}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "e2e-tenant-namespaces"}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"get"}}}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "e2e-tenant-namespaces"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "e2e-tenant-namespaces"},
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: ns, Name: sa}}},
	}
	for _, o := range objs {
		if err := c.Create(t.Context(), o); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, o := range objs {
			_ = c.Delete(context.Background(), o)
		}
		_ = c.Delete(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "from-profile"}})
	})

	tenant := map[string]string{configv1beta1.ServiceAccountNameLabel: sa, configv1beta1.ServiceAccountNamespaceLabel: ns}
	local := func(name, content string, labels map[string]string) {
		// In the tenant's namespace: a tenant's profile reads its content as its ServiceAccount.
		createConfigMapIn(t, ns, name, map[string]string{"cm.yaml": content})
		p := sveltosProfile(name, map[string]string{"env": "dev"})
		p.Labels = labels
		ref := configv1beta1.PolicyRef{Kind: "ConfigMap", Namespace: ns, Name: name}
		ref.DeploymentType = configv1beta1.DeploymentTypeLocal
		p.Spec.PolicyRefs = []configv1beta1.PolicyRef{ref}
		createProfile(t, p)
	}
	local("e2e-local-allowed", configMapManifest(ns, "e2e-local-from-profile", "v1"), tenant)
	local("e2e-local-forbidden", configMapManifest("default", "tenant-content", "v1"), tenant)
	local("e2e-local-anonymous", configMapManifest(ns, "e2e-local-anon-object", "v1"), nil)
	local("e2e-local-unlisted", configMapManifest(ns, "e2e-local-unlisted-object", "v1"), map[string]string{
		configv1beta1.ServiceAccountNameLabel: "replicaset-controller", configv1beta1.ServiceAccountNamespaceLabel: "kube-system"})

	expectFeature(t, "e2e-local-allowed", "dev", libv1beta1.FeatureResources, libv1beta1.FeatureStatusProvisioned)
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "e2e-local-from-profile"}, &corev1.ConfigMap{}); err != nil {
		t.Errorf("the allowed content is not on the management cluster: %v", err)
	}
	failure := func(profile string, wants ...string) {
		t.Helper()
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			cs, err := summary(ctx, t, profile, "dev")
			if err != nil {
				return err
			}
			for _, f := range cs.Status.FeatureSummaries {
				if f.FeatureID != libv1beta1.FeatureResources || f.FailureMessage == nil {
					continue
				}
				for _, want := range wants {
					if !strings.Contains(*f.FailureMessage, want) {
						return fmt.Errorf("failure %q does not say %q", *f.FailureMessage, want)
					}
				}
				return nil
			}
			return fmt.Errorf("%s has not failed: %+v", profile, cs.Status.FeatureSummaries)
		})
	}
	failure("e2e-local-forbidden", "forbidden", "system:serviceaccount:"+ns+":"+sa)
	// The controller may not act as a ServiceAccount the chart's values do not list: the profile
	// says so, and no summary is written.
	unlisted := &configv1beta1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Name: "e2e-local-unlisted"}}
	waitProfileCondition(t, unlisted, profileConditions, configv1beta1.ProfileReadyCondition, metav1.ConditionFalse,
		"cannot impersonate", "tenancy.namespaces")
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(unlisted), unlisted); err != nil {
		t.Fatal(err)
	}
	testenv.ExpectEvent(t, timeout, c, unlisted, "ContentUnreadable")
	failure("e2e-local-anonymous", configv1beta1.ServiceAccountNameLabel)
	for _, key := range []client.ObjectKey{{Namespace: "default", Name: "tenant-content"}, {Namespace: ns, Name: "e2e-local-anon-object"},
		{Namespace: ns, Name: "e2e-local-unlisted-object"}} {
		if err := c.Get(t.Context(), key, &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
			t.Errorf("ConfigMap %s was deployed (%v)", key, err)
		}
	}
}
