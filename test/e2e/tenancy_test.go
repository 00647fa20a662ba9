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
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"fmt"
	"strings"
	"testing"

	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/chartrepo"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/helm"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// createAll creates objects on the management cluster and deletes them when the test ends.
func createAll(t *testing.T, objs ...client.Object) {
	t.Helper()
	c := testenv.Client(t)
	for _, o := range objs {
		if err := c.Create(t.Context(), o); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, o := range objs {
			_ = c.Delete(context.Background(), o)
		}
	})
}

// tenantLabels are the labels that make a profile the ServiceAccount's.
func tenantLabels(ns, sa string) map[string]string {
	return map[string]string{configv1beta1.ServiceAccountNameLabel: sa, configv1beta1.ServiceAccountNamespaceLabel: ns}
}

// grant gives the ServiceAccount ns/sa the rules in namespace where (a Role and its binding), or
// cluster-wide when where is empty.
func grant(t *testing.T, where, ns, sa, name string, rules ...rbacv1.PolicyRule) {
	t.Helper()
	subjects := []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: ns, Name: sa}}
	if where == "" {
		createAll(t, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules},
			&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, Subjects: subjects,
				RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name}})
		return
	}
	createAll(t, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: where, Name: name}, Rules: rules},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: where, Name: name}, Subjects: subjects,
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name}})
}

// readSecret is the right to get one Secret by name.
func readSecret(name string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}, ResourceNames: []string{name}}
}

// says fails unless msg says each of wants.
func says(msg string, wants ...string) error {
	for _, w := range wants {
		if !strings.Contains(msg, w) {
			return fmt.Errorf("%q does not say %q", msg, w)
		}
	}
	return nil
}

// waitFeatureFailure waits until the feature of a summary fails with a message saying wants.
func waitFeatureFailure(t *testing.T, key client.ObjectKey, id libv1beta1.FeatureID, wants ...string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cs := &configv1beta1.ClusterSummary{}
		if err := testenv.Client(t).Get(ctx, key, cs); err != nil {
			return err
		}
		return says(failureMessage(cs, id), wants...)
	})
}

// expectAbsent fails unless get finds nothing.
func expectAbsent(t *testing.T, what string, get func(ctx context.Context) error) {
	t.Helper()
	if err := get(t.Context()); !apierrors.IsNotFound(err) {
		t.Errorf("%s exists (%v)", what, err)
	}
}

// waitProfileCondition waits until a profile's condition is False (Ready) or True (Stalled) and
// says wants.
func waitProfileCondition(t *testing.T, p client.Object, conditions func(client.Object) []metav1.Condition, typ string,
	status metav1.ConditionStatus, wants ...string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got := p.DeepCopyObject().(client.Object)
		if err := testenv.Client(t).Get(ctx, client.ObjectKeyFromObject(p), got); err != nil {
			return err
		}
		c := meta.FindStatusCondition(conditions(got), typ)
		if c == nil || c.Status != status {
			return fmt.Errorf("%s is %+v", typ, c)
		}
		return says(c.Message, wants...)
	})
}

func profileConditions(o client.Object) []metav1.Condition {
	return o.(configv1beta1.ProfileObj).ProfileStatus().Conditions
}

// TestTenantReadsAsItsServiceAccount: a tenant's ClusterProfile reads a kube-system Secret
// through helmCharts valuesFrom, and through templateResourceRefs (with a templated namespace,
// read by each summary), as its ServiceAccount: both are forbidden, with the API server's
// words in status, and nothing is deployed. Granted the Secret by a RoleBinding, the same
// ServiceAccount reads it and both charts deploy: the tenant's rights decide.
func TestTenantReadsAsItsServiceAccount(t *testing.T) {
	t.Parallel()
	const tenantNS, sa, secret, ns = "tenant-a", "e2e-tv-reader", "e2e-tv-values", "e2e-tv"
	user := "system:serviceaccount:" + tenantNS + ":" + sa
	createAll(t,
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: sa}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: secret},
			StringData: map[string]string{"values.yaml": "message: from-kube-system\n"}})

	values := sveltosProfile("e2e-tv-valuesfrom", map[string]string{"env": "dev"})
	values.Labels = tenantLabels(tenantNS, sa)
	chart := webapp(t, "tv", ns, "1.0.0")
	chart.ValuesFrom = []configv1beta1.ValueFrom{{Kind: "Secret", Namespace: "kube-system", Name: secret}}
	values.Spec.HelmCharts = []configv1beta1.HelmChart{chart}
	createProfile(t, values)

	refs := sveltosProfile("e2e-tv-tplref", map[string]string{"env": "dev"})
	refs.Labels = tenantLabels(tenantNS, sa)
	chart = webapp(t, "tt", ns, "1.0.0")
	chart.Values = `message: '{{ index (getResource "stolen").data "values.yaml" | b64dec | trim }}'`
	refs.Spec.HelmCharts = []configv1beta1.HelmChart{chart}
	refs.Spec.TemplateResourceRefs = []configv1beta1.TemplateResourceRef{{Identifier: "stolen",
		Resource: corev1.ObjectReference{APIVersion: "v1", Kind: "Secret", Namespace: `{{ "kube-system" }}`, Name: secret}}}
	createProfile(t, refs)

	c := testenv.Client(t)
	forbidden := []string{`secrets "` + secret + `" is forbidden`, user}
	waitProfileCondition(t, values, profileConditions, configv1beta1.ProfileReadyCondition, metav1.ConditionFalse,
		append(forbidden, "as ServiceAccount "+tenantNS+"/"+sa)...)
	testenv.ExpectEvent(t, timeout, c, values, "ContentUnreadable")
	waitFeatureFailure(t, client.ObjectKey{Namespace: "dev", Name: refs.Name + "-sveltos-dev"}, libv1beta1.FeatureHelm, forbidden...)

	dev := managed(t, "dev")
	for _, release := range []string{"tv", "tt"} {
		expectAbsent(t, "release "+release+" on dev", func(ctx context.Context) error {
			_, err := dev.CoreV1().ConfigMaps(ns).Get(ctx, release+"-info", metav1.GetOptions{})
			return err
		})
	}
	expectAbsent(t, "the summary of the profile whose content is unreadable", func(ctx context.Context) error {
		return c.Get(ctx, client.ObjectKey{Namespace: "dev", Name: values.Name + "-sveltos-dev"}, &configv1beta1.ClusterSummary{})
	})

	grant(t, "kube-system", tenantNS, sa, "e2e-tv-reader", readSecret(secret))
	waitMessage(t, "dev", ns, "tv", "from-kube-system", "")
	waitMessage(t, "dev", ns, "tt", "message: from-kube-system", "")

	// The grant taken back takes effect at the next read (nothing is cached): an edit of the
	// Secret is not read, and what is deployed stays.
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "e2e-tv-reader"}}
	if err := c.Delete(t.Context(), binding); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		s := &corev1.Secret{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: secret}, s); err != nil {
			return err
		}
		s.Data["values.yaml"] = []byte("message: edited\n")
		return c.Update(ctx, s)
	})
	waitProfileCondition(t, values, profileConditions, configv1beta1.ProfileReadyCondition, metav1.ConditionFalse, forbidden...)
	if got := messageOn(t, "dev", ns, "tv"); got != "from-kube-system" {
		t.Errorf("release tv says %q once its content became unreadable, want what it said", got)
	}
}

// TestTenantLocalContentCannotEscalate: Local content of a tenant's ClusterProfile is created
// as its ServiceAccount: a ClusterRoleBinding making it cluster-admin, and a ConfigMap in
// kube-system, are refused with the API server's words and nothing is created; a ConfigMap in
// its own namespace, which its Role allows, is.
func TestTenantLocalContentCannotEscalate(t *testing.T) {
	t.Parallel()
	const tenantNS, sa = "tenant-d", "e2e-tl-deployer"
	user := "system:serviceaccount:" + tenantNS + ":" + sa
	createAll(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: sa}})
	grant(t, tenantNS, tenantNS, sa, "e2e-tl-deployer",
		rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "create", "patch", "update", "delete"}})
	grant(t, "", tenantNS, sa, "e2e-tl-namespaces", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"get"}})

	escalate := fmt.Sprintf(`apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: e2e-tl-escalate
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cluster-admin
subjects:
- kind: ServiceAccount
  name: %s
  namespace: %s
`, sa, tenantNS)
	// The content is the tenant's: in its namespace, which its Role lets it read.
	local := func(name, content string) {
		createConfigMapIn(t, tenantNS, name, map[string]string{"content.yaml": content})
		p := sveltosProfile(name, map[string]string{"env": "dev"})
		p.Labels = tenantLabels(tenantNS, sa)
		ref := configv1beta1.PolicyRef{Kind: "ConfigMap", Namespace: tenantNS, Name: name}
		ref.DeploymentType = configv1beta1.DeploymentTypeLocal
		p.Spec.PolicyRefs = []configv1beta1.PolicyRef{ref}
		createProfile(t, p)
	}
	local("e2e-tl-escalate", escalate)
	local("e2e-tl-kube-system", configMapManifest("kube-system", "e2e-tl-planted", "v1"))
	local("e2e-tl-own", configMapManifest(tenantNS, "e2e-tl-own-object", "v1"))

	expectFeature(t, "e2e-tl-own", "dev", libv1beta1.FeatureResources, libv1beta1.FeatureStatusProvisioned)
	c := testenv.Client(t)
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: tenantNS, Name: "e2e-tl-own-object"}, &corev1.ConfigMap{}); err != nil {
		t.Errorf("the allowed content is not on the management cluster: %v", err)
	}
	for _, p := range []string{"e2e-tl-escalate", "e2e-tl-kube-system"} {
		waitFeatureFailure(t, client.ObjectKey{Namespace: "dev", Name: p + "-sveltos-dev"}, libv1beta1.FeatureResources, "forbidden", user)
	}
	expectAbsent(t, "ClusterRoleBinding e2e-tl-escalate", func(ctx context.Context) error {
		return c.Get(ctx, client.ObjectKey{Name: "e2e-tl-escalate"}, &rbacv1.ClusterRoleBinding{})
	})
	expectAbsent(t, "ConfigMap kube-system/e2e-tl-planted", func(ctx context.Context) error {
		return c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "e2e-tl-planted"}, &corev1.ConfigMap{})
	})
}

// TestTenantProfileStaysInItsNamespace: a Profile with tenant labels deploys Local content as
// its ServiceAccount; one without deploys none (the controller runs without
// --local-deployment-as-controller) and may not read a cluster-scoped object through
// templateResourceRefs; one whose labels name a ServiceAccount of another namespace is refused.
// (A reference naming another namespace is read from the Profile's own: see
// TestProfileSeesItsNamespaceOnly.)
func TestTenantProfileStaysInItsNamespace(t *testing.T) {
	t.Parallel()
	const tenantNS, sa, cluster, ns = "tenant-b", "e2e-tb-deployer", "e2e-tb-dev", "e2e-tb"
	selector := map[string]string{"e2e-tenancy": tenantNS}
	registerTenantCluster(t, tenantNS, cluster, "dev", selector)
	createAll(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: sa}})
	grant(t, tenantNS, tenantNS, sa, "e2e-tb-deployer",
		rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "create", "patch", "update", "delete"}})
	grant(t, "", tenantNS, sa, "e2e-tb-namespaces", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"get"}})
	createConfigMapIn(t, tenantNS, "e2e-tb-local", map[string]string{"content.yaml": configMapManifest(tenantNS, "e2e-tb-from-profile", "v1")})

	profile := func(name string, labels map[string]string, mutate func(*configv1beta1.Profile)) *configv1beta1.Profile {
		p := &configv1beta1.Profile{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: name, Labels: labels}}
		p.Spec.ClusterSelector.MatchLabels = selector
		mutate(p)
		createNamespacedProfile(t, p)
		return p
	}
	local := func(p *configv1beta1.Profile) {
		p.Spec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: "ConfigMap", Name: "e2e-tb-local", DeploymentType: configv1beta1.DeploymentTypeLocal}}
	}
	profile("e2e-tb-local", tenantLabels(tenantNS, sa), local)
	profile("e2e-tb-anon", nil, local)
	profile("e2e-tb-scoped", nil, func(p *configv1beta1.Profile) {
		chart := webapp(t, "tb", ns, "1.0.0")
		chart.Values = `message: '{{ (getResource "admin").metadata.name }}'`
		p.Spec.HelmCharts = []configv1beta1.HelmChart{chart}
		p.Spec.TemplateResourceRefs = []configv1beta1.TemplateResourceRef{{Identifier: "admin",
			Resource: corev1.ObjectReference{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "cluster-admin"}}}
	})
	// The tenancy admission policy refuses such a Profile from anyone, admins included; only the
	// controller's own writes pass it, so one made as the controller (with the rights of
	// system:masters, to create Profiles) tries the controller's own refusal behind it.
	other := &configv1beta1.Profile{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: "e2e-tb-other", Labels: tenantLabels("tenant-a", sa)}}
	other.Spec.ClusterSelector.MatchLabels = selector
	other.Spec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: "ConfigMap", Name: "e2e-tb-local"}}
	if err := testenv.Client(t).Create(t.Context(), other.DeepCopy()); err == nil || !strings.Contains(err.Error(), "a Profile acts only as a ServiceAccount of its own namespace") {
		t.Fatalf("an admin's Profile naming another namespace's ServiceAccount: %v, want the admission policy's refusal", err)
	}
	asController := rest.CopyConfig(testenv.Fleet.Management.Config)
	asController.Impersonate = rest.ImpersonationConfig{UserName: testenv.ChartServiceAccount, Groups: []string{"system:masters", "system:authenticated"}}
	controller, err := client.New(asController, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	if err := controller.Create(t.Context(), other); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = testenv.Client(t).Delete(context.Background(), other) })

	c := testenv.Client(t)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		return c.Get(ctx, client.ObjectKey{Namespace: tenantNS, Name: "e2e-tb-from-profile"}, &corev1.ConfigMap{})
	})
	summaryKey := func(profile string) client.ObjectKey {
		return client.ObjectKey{Namespace: tenantNS, Name: "p--" + profile + "-sveltos-" + cluster}
	}
	waitFeatureFailure(t, summaryKey("e2e-tb-anon"), libv1beta1.FeatureResources, configv1beta1.ServiceAccountNameLabel)
	waitFeatureFailure(t, summaryKey("e2e-tb-scoped"), libv1beta1.FeatureHelm, "ClusterRole cluster-admin is cluster-scoped", tenantNS)
	waitProfileCondition(t, other, profileConditions, configv1beta1.ProfileStalledCondition, metav1.ConditionTrue,
		"a Profile acts as a ServiceAccount of its own namespace")
	expectAbsent(t, "the summary of the Profile naming another namespace's ServiceAccount", func(ctx context.Context) error {
		return c.Get(ctx, summaryKey("e2e-tb-other"), &configv1beta1.ClusterSummary{})
	})
	expectAbsent(t, "release tb on dev", func(ctx context.Context) error {
		_, err := managed(t, "dev").CoreV1().ConfigMaps(ns).Get(ctx, "tb-info", metav1.GetOptions{})
		return err
	})
}

// TestTenantPromotionReadsAsItsTenant: a ClusterPromotion with tenant labels reads its content
// as the tenant: a kube-system Secret in valuesFrom stalls it with the API server's words and
// no stage starts; granted the Secret, it rolls out, and its stage profile is the tenant's too.
func TestTenantPromotionReadsAsItsTenant(t *testing.T) {
	t.Parallel()
	const tenantNS, sa, secret, ns = "tenant-c", "e2e-tp-promoter", "e2e-tp-values", "e2e-tp"
	createAll(t,
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: sa}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: secret},
			StringData: map[string]string{"values.yaml": "message: promoted-from-secret\n"}})
	p := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: "e2e-tp", Labels: tenantLabels(tenantNS, sa)}}
	chart := webapp(t, "tp", ns, "1.0.0")
	chart.ValuesFrom = []configv1beta1.ValueFrom{{Kind: "Secret", Namespace: "kube-system", Name: secret}}
	p.Spec.ProfileSpec.HelmCharts = []configv1beta1.HelmChart{chart}
	p.Spec.Stages = []configv1beta1.Stage{stage("dev", "dev", &configv1beta1.Trigger{Auto: &configv1beta1.AutoTrigger{Delay: &metav1.Duration{}}})}
	createPromotion(t, p)

	waitProfileCondition(t, p, func(o client.Object) []metav1.Condition { return o.(*configv1beta1.ClusterPromotion).Status.Conditions },
		configv1beta1.PromotionReadyCondition, metav1.ConditionFalse, `secrets "`+secret+`" is forbidden`, "system:serviceaccount:"+tenantNS+":"+sa)
	c := testenv.Client(t)
	stageProfile := client.ObjectKey{Name: p.StageProfileName("dev")}
	expectAbsent(t, "the stage profile", func(ctx context.Context) error {
		return c.Get(ctx, stageProfile, &configv1beta1.ClusterProfile{})
	})
	expectAbsent(t, "release tp on dev", func(ctx context.Context) error {
		_, err := managed(t, "dev").CoreV1().ConfigMaps(ns).Get(ctx, "tp-info", metav1.GetOptions{})
		return err
	})

	grant(t, "kube-system", tenantNS, sa, "e2e-tp-promoter", readSecret(secret))
	waitMessage(t, "dev", ns, "tp", "promoted-from-secret", "")
	got := &configv1beta1.ClusterProfile{}
	if err := c.Get(t.Context(), stageProfile, got); err != nil {
		t.Fatal(err)
	}
	for k, v := range tenantLabels(tenantNS, sa) {
		if got.Labels[k] != v {
			t.Errorf("the stage profile's labels %v lack %s=%s", got.Labels, k, v)
		}
	}
}

// TestTenantReadsFluxSourceAsItsServiceAccount: the GitRepository a tenant's ClusterProfile
// names is read as its ServiceAccount, which may not until a Role lets it get the source; the
// artifact itself is then the controller's to download from source-controller.
func TestTenantReadsFluxSourceAsItsServiceAccount(t *testing.T) {
	t.Parallel()
	const tenantNS, sa, ns = "tenant-a", "e2e-tf-reader", "e2e-tf"
	newGitSource(t, ns, "manifests", "one", func(value string) map[string][]byte {
		return map[string][]byte{"settings.yaml": []byte(configMapManifest(ns, "e2e-tf-settings", value))}
	})
	createAll(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: sa}})
	p := sveltosProfile("e2e-tf", map[string]string{"env": "qa"})
	p.Labels = tenantLabels(tenantNS, sa)
	p.Spec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: sourcev1.GitRepositoryKind, Namespace: ns, Name: "manifests"}}
	createProfile(t, p)

	waitProfileCondition(t, p, profileConditions, configv1beta1.ProfileReadyCondition, metav1.ConditionFalse,
		`gitrepositories.source.toolkit.fluxcd.io "manifests" is forbidden`, "system:serviceaccount:"+tenantNS+":"+sa)
	expectAbsent(t, "the source's manifests on qa", func(ctx context.Context) error {
		_, err := managed(t, "qa").CoreV1().ConfigMaps(ns).Get(ctx, "e2e-tf-settings", metav1.GetOptions{})
		return err
	})

	grant(t, ns, tenantNS, sa, "e2e-tf-reader",
		rbacv1.PolicyRule{APIGroups: []string{sourcev1.GroupVersion.Group}, Resources: []string{"gitrepositories"}, Verbs: []string{"get"}})
	expectValue(t, "qa", ns, "e2e-tf-settings", "one")
}

// TestTenantReadsChartKeyAsItsServiceAccount: the Secret holding a chart's cosign public key
// (as any Secret a chart names: registry credentials, CA, provenance keyring) is read as the
// tenant's ServiceAccount when its summary deploys the chart: forbidden, the chart is not
// deployed; granted, it is.
func TestTenantReadsChartKeyAsItsServiceAccount(t *testing.T) {
	t.Parallel()
	const tenantNS, sa, secret, ns = "tenant-b", "e2e-tk-deployer", "e2e-tk-key", "e2e-tk"
	url, stop, err := chartrepo.ServeOCI(context.Background(), "../../testdata/charts")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chartrepo.CosignSign(t.Context(), url, "webapp", "1.0.0", key); err != nil {
		t.Fatal(err)
	}
	pub, err := cryptoutils.MarshalPublicKeyToPEM(key.Public())
	if err != nil {
		t.Fatal(err)
	}
	createAll(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: sa}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: secret}, Data: map[string][]byte{helm.CosignKey: pub}})

	p := sveltosProfile("e2e-tk", map[string]string{"env": "staging"})
	p.Labels = tenantLabels(tenantNS, sa)
	p.Spec.HelmCharts = []configv1beta1.HelmChart{{
		RepositoryURL: url, RepositoryName: "charts", ChartName: "charts/webapp", ChartVersion: "1.0.0",
		ReleaseName: "signed", ReleaseNamespace: ns, HelmChartAction: configv1beta1.HelmChartActionInstall,
		RegistryCredentialsConfig: &configv1beta1.RegistryCredentialsConfig{PlainHTTP: true},
		SignatureVerification: &configv1beta1.CosignVerification{Provider: configv1beta1.CosignProviderPublicKey,
			SecretRef: &corev1.SecretReference{Namespace: "kube-system", Name: secret}},
	}}
	createProfile(t, p)
	waitFeatureFailure(t, client.ObjectKey{Namespace: "staging", Name: p.Name + "-sveltos-staging"}, libv1beta1.FeatureHelm,
		"reading signatureVerification public key Secret kube-system/"+secret+" as ServiceAccount "+tenantNS+"/"+sa,
		`secrets "`+secret+`" is forbidden`)
	staging := managed(t, "staging")
	expectAbsent(t, "release signed on staging", func(ctx context.Context) error {
		_, err := staging.CoreV1().ConfigMaps(ns).Get(ctx, "signed-info", metav1.GetOptions{})
		return err
	})

	grant(t, "kube-system", tenantNS, sa, "e2e-tk-deployer", readSecret(secret))
	waitRelease(t, staging, ns, "signed", "1.0.0")
}
