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
	"errors"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestTenantLabelsAdmission: the chart's ValidatingAdmissionPolicy, on the sandbox's API server,
// lets only a profile's own ServiceAccount, or an admin (group system:masters, or the controller),
// create or change a profile labelled with that ServiceAccount, or take the labels off; only an
// admin may write a profile without them; half a pair of labels, and a Profile naming another
// namespace's ServiceAccount, are refused. Every user tried has the RBAC to write profiles: what
// refuses them is the policy, in its own words. Status writes are left alone.
func TestTenantLabelsAdmission(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	admin := testenv.Client(t)
	const ns, other = "tenant-a", "tenant-b"
	alice, bob := "system:serviceaccount:"+ns+":e2e-vap-alice", "system:serviceaccount:"+ns+":e2e-vap-bob"
	writer := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "e2e-vap-profile-writer"}, Rules: []rbacv1.PolicyRule{{
		APIGroups: []string{"config.projectsveltos.io"},
		Resources: []string{"clusterprofiles", "clusterprofiles/status", "profiles", "clusterpromotions", "clusterpromotions/status"},
		Verbs:     []string{"get", "list", "create", "update", "patch"},
	}}}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "e2e-vap-profile-writer"},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: writer.Name},
		Subjects: []rbacv1.Subject{
			{Kind: "ServiceAccount", Namespace: ns, Name: "e2e-vap-alice"},
			{Kind: "ServiceAccount", Namespace: ns, Name: "e2e-vap-bob"},
			{Kind: "User", APIGroup: rbacv1.GroupName, Name: "e2e-vap-plain"},
		}}
	for _, o := range []client.Object{writer, binding,
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "e2e-vap-alice"}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "e2e-vap-bob"}}} {
		if err := admin.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		ctx := context.Background()
		for _, o := range []client.Object{writer, binding} {
			_ = admin.Delete(ctx, o)
		}
		_ = admin.DeleteAllOf(ctx, &configv1beta1.ClusterProfile{}, client.MatchingLabels{"e2e-vap": "true"})
		_ = admin.DeleteAllOf(ctx, &configv1beta1.Profile{}, client.InNamespace(ns), client.MatchingLabels{"e2e-vap": "true"})
	})
	as := func(user string, groups ...string) client.Client {
		cfg := rest.CopyConfig(testenv.Fleet.Management.Config)
		cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: groups}
		c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	aliceC, bobC, plain := as(alice), as(bob), as("e2e-vap-plain")
	groupAdmin := as("e2e-vap-admin", "system:masters")
	controller := as(testenv.ChartServiceAccount)
	profile := func(name string, sa ...string) *configv1beta1.ClusterProfile {
		p := &configv1beta1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"e2e-vap": "true"}}}
		p.Spec.ClusterSelector.MatchLabels = map[string]string{"e2e-vap": "no-cluster"}
		if len(sa) == 2 {
			p.Labels[configv1beta1.ServiceAccountNamespaceLabel], p.Labels[configv1beta1.ServiceAccountNameLabel] = sa[0], sa[1]
		}
		return p
	}
	refused := func(what string, err error, words string) {
		t.Helper()
		switch {
		case err == nil:
			t.Errorf("%s: allowed", what)
		case !strings.Contains(err.Error(), "ValidatingAdmissionPolicy") || !strings.Contains(err.Error(), words):
			t.Errorf("%s: refused with %q, want the policy's words %q", what, err, words)
		}
	}
	allowed := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Errorf("%s: %v", what, err)
		}
	}
	relabel := func(c client.Client, name string, labels map[string]string) error {
		p := &configv1beta1.ClusterProfile{}
		if err := admin.Get(ctx, client.ObjectKey{Name: name}, p); err != nil {
			return err
		}
		base := p.DeepCopy()
		for k, v := range labels {
			if v == "" {
				delete(p.Labels, k)
			} else {
				p.Labels[k] = v
			}
		}
		return c.Patch(ctx, p, client.MergeFrom(base))
	}

	respec := func(c client.Client, name string) error {
		p := &configv1beta1.ClusterProfile{}
		if err := admin.Get(ctx, client.ObjectKey{Name: name}, p); err != nil {
			return err
		}
		base := p.DeepCopy()
		p.Spec.ClusterSelector.MatchLabels = map[string]string{"e2e-vap": "other-clusters"}
		return c.Patch(ctx, p, client.MergeFrom(base))
	}
	if err := admin.Create(ctx, profile("e2e-vap-probe-admin")); err != nil {
		t.Fatal(err)
	}

	// The policy takes a moment to be enforced once applied.
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		p := profile("e2e-vap-probe")
		if err := plain.Create(ctx, p); err == nil {
			_ = admin.Delete(ctx, p)
			return errors.New("the tenancy policy is not enforced yet")
		}
		return nil
	})

	allowed("alice creates her own profile", aliceC.Create(ctx, profile("e2e-vap-alice", ns, "e2e-vap-alice")))
	allowed("alice changes it", relabel(aliceC, "e2e-vap-alice", map[string]string{"note": "mine"}))
	refused("bob creates a profile labelled alice", bobC.Create(ctx, profile("e2e-vap-bob-as-alice", ns, "e2e-vap-alice")), "only that ServiceAccount itself")
	refused("bob changes what alice's profile deploys", respec(bobC, "e2e-vap-alice"), "only that ServiceAccount itself")
	allowed("bob, whom RBAC lets, labels alice's profile otherwise", relabel(bobC, "e2e-vap-alice", map[string]string{"note": "bob"}))
	refused("bob relabels alice's profile as his", relabel(bobC, "e2e-vap-alice",
		map[string]string{configv1beta1.ServiceAccountNameLabel: "e2e-vap-bob"}), "may change or remove its tenant labels")
	refused("a plain user creates a profile labelled alice", plain.Create(ctx, profile("e2e-vap-plain-as-alice", ns, "e2e-vap-alice")), "e2e-vap-plain may not")
	refused("a plain user creates a profile without tenant labels", plain.Create(ctx, profile("e2e-vap-plain")),
		"a platform admin's: only a member of system:masters may create it or change what it deploys")
	refused("a plain user changes what an admin's profile deploys", respec(plain, "e2e-vap-probe-admin"), "a platform admin's")
	refused("alice labels an admin's profile as hers", relabel(aliceC, "e2e-vap-probe-admin",
		map[string]string{configv1beta1.ServiceAccountNamespaceLabel: ns, configv1beta1.ServiceAccountNameLabel: "e2e-vap-alice"}),
		"a platform admin's: only a member of system:masters may give it tenant labels")
	refused("alice removes her labels", relabel(aliceC, "e2e-vap-alice",
		map[string]string{configv1beta1.ServiceAccountNameLabel: "", configv1beta1.ServiceAccountNamespaceLabel: ""}), "a platform admin's")
	refused("an admin sets half a pair", groupAdmin.Create(ctx, profile("e2e-vap-half", "", "e2e-vap-alice")), "only half of its tenant labels")
	allowed("an admin changes alice's profile", relabel(groupAdmin, "e2e-vap-alice", map[string]string{"note": "admin"}))
	allowed("the controller changes alice's profile", relabel(controller, "e2e-vap-alice", map[string]string{"note": "controller"}))
	allowed("an admin creates a profile without tenant labels", groupAdmin.Create(ctx, profile("e2e-vap-admin")))
	allowed("an admin removes alice's labels", relabel(groupAdmin, "e2e-vap-alice",
		map[string]string{configv1beta1.ServiceAccountNameLabel: "", configv1beta1.ServiceAccountNamespaceLabel: ""}))

	// Status is a subresource the policy leaves alone: RBAC alone decides who writes it.
	p := &configv1beta1.ClusterProfile{}
	if err := admin.Get(ctx, client.ObjectKey{Name: "e2e-vap-admin"}, p); err != nil {
		t.Fatal(err)
	}
	base := p.DeepCopy()
	p.Status.MatchingClusterRefs = []corev1.ObjectReference{{Kind: "SveltosCluster", Namespace: ns, Name: "none"}}
	allowed("bob writes an admin profile's status", bobC.Status().Patch(ctx, p, client.MergeFrom(base)))

	// Whom RBAC lets approve or suspend an admin's promotion may (the dashboard's and the CLI's
	// actions); what it deploys, and the content its stages deploy, only an admin may change.
	promo := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: "e2e-vap-promotion", Labels: map[string]string{"e2e-vap": "true"}}}
	promo.Spec.Stages = []configv1beta1.Stage{{Name: "gate", Trigger: &configv1beta1.Trigger{Manual: &configv1beta1.ManualTrigger{Approved: ptr(false)}}}}
	promo.Spec.Stages[0].ClusterSelector.MatchLabels = map[string]string{"e2e-vap": "no-cluster"}
	// The API server may answer 503 ("Resource kind … not found. There can be a delay …") for a
	// moment while it reloads the schema its admission policies check this kind against.
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		err := admin.Create(ctx, promo.DeepCopy())
		if apierrors.IsServiceUnavailable(err) {
			return err
		}
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		return nil
	})
	t.Cleanup(func() { _ = admin.Delete(context.Background(), promo) })
	operate := func(what string, mutate func(*configv1beta1.ClusterPromotion)) error {
		p := &configv1beta1.ClusterPromotion{}
		if err := admin.Get(ctx, client.ObjectKeyFromObject(promo), p); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		base := p.DeepCopy()
		mutate(p)
		return plain.Patch(ctx, p, client.MergeFrom(base))
	}
	allowed("a plain user approves an admin's promotion", operate("approve", func(p *configv1beta1.ClusterPromotion) {
		p.Spec.Stages[0].Trigger.Manual.Approved = ptr(true)
	}))
	allowed("a plain user suspends it", operate("suspend", func(p *configv1beta1.ClusterPromotion) { p.Spec.Suspend = true }))
	refused("a plain user changes what it deploys", operate("profileSpec", func(p *configv1beta1.ClusterPromotion) {
		p.Spec.ProfileSpec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: "Secret", Namespace: "kube-system", Name: "x"}}
	}), "a platform admin's")
	refused("a plain user adds content to a stage", operate("preHealthCheckDeployment", func(p *configv1beta1.ClusterPromotion) {
		p.Spec.Stages[0].Trigger.Manual.PreHealthCheckDeployment = &configv1beta1.PolicyRefSet{
			List: []configv1beta1.PolicyRef{{Kind: "Secret", Namespace: "kube-system", Name: "x"}}}
	}), "a platform admin's")

	// status.lastKnownGood is what a rollback deploys: only an admin writes an admin's.
	writeStatus := func(c client.Client, mutate func(*configv1beta1.ClusterPromotion)) error {
		p := &configv1beta1.ClusterPromotion{}
		if err := admin.Get(ctx, client.ObjectKeyFromObject(promo), p); err != nil {
			t.Fatal(err)
		}
		base := p.DeepCopy()
		mutate(p)
		return c.Status().Patch(ctx, p, client.MergeFrom(base))
	}
	allowed("a plain user writes an admin promotion's stage status", writeStatus(plain, func(p *configv1beta1.ClusterPromotion) {
		p.Status.CurrentStageName = "gate"
	}))
	refused("a plain user writes an admin promotion's lastKnownGood", writeStatus(plain, func(p *configv1beta1.ClusterPromotion) {
		p.Status.LastKnownGood = &configv1beta1.KnownGoodVersion{ProfileSpecHash: []byte("x"), Time: metav1.Now()}
		p.Status.LastKnownGood.ProfileSpec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: "Secret", Namespace: "kube-system", Name: "x"}}
	}), "status.lastKnownGood is the version a rollback deploys again")
	allowed("an admin writes it", writeStatus(groupAdmin, func(p *configv1beta1.ClusterPromotion) {
		p.Status.LastKnownGood = &configv1beta1.KnownGoodVersion{ProfileSpecHash: []byte("x"), Time: metav1.Now()}
	}))

	// A Profile acts only as a ServiceAccount of its own namespace, whoever writes it.
	tenantProfile := func(name, saNamespace, sa string) *configv1beta1.Profile {
		p := &configv1beta1.Profile{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"e2e-vap": "true",
			configv1beta1.ServiceAccountNamespaceLabel: saNamespace, configv1beta1.ServiceAccountNameLabel: sa}}}
		p.Spec.ClusterSelector.MatchLabels = map[string]string{"e2e-vap": "no-cluster"}
		return p
	}
	allowed("alice creates a Profile of her namespace", aliceC.Create(ctx, tenantProfile("e2e-vap-alice", ns, "e2e-vap-alice")))
	refused("an admin creates a Profile naming another namespace's ServiceAccount",
		groupAdmin.Create(ctx, tenantProfile("e2e-vap-other", other, "deployer")), fmt.Sprintf("own namespace %s", ns))
}
