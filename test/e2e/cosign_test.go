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
	"strings"
	"testing"

	"github.com/sigstore/sigstore/pkg/cryptoutils"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/chartrepo"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/helm"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestCosignSignatureVerification deploys an OCI chart signed with the key of a Secret, then
// refuses the upgrade to a version signed by another key: the cluster keeps the verified
// release and its summary says why. A version signed with the key in cosign 3's bundle layout
// then deploys.
func TestCosignSignatureVerification(t *testing.T) {
	t.Parallel()
	const ns = "e2e-cosign"
	// A registry of this test's own: the signatures it pushes concern no other test.
	url, stop, err := chartrepo.ServeOCI(context.Background(), "../../testdata/charts")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	trusted, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	other, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chartrepo.CosignSign(t.Context(), url, "webapp", "1.0.0", trusted); err != nil {
		t.Fatal(err)
	}
	if _, err := chartrepo.CosignSign(t.Context(), url, "webapp", "1.1.0", other); err != nil {
		t.Fatal(err)
	}
	if _, err := chartrepo.CosignSignBundle(t.Context(), url, "webapp", "2.0.0", trusted); err != nil {
		t.Fatal(err)
	}
	pub, err := cryptoutils.MarshalPublicKeyToPEM(trusted.Public())
	if err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "e2e-cosign-key"},
		Data:       map[string][]byte{helm.CosignKey: pub},
	}
	c := testenv.Client(t)
	if err := c.Create(t.Context(), secret); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), secret) })

	p := sveltosProfile("e2e-cosign", map[string]string{"env": "qa"})
	p.Spec.HelmCharts = []configv1beta1.HelmChart{{
		RepositoryURL: url, RepositoryName: "charts", ChartName: "charts/webapp", ChartVersion: "1.0.0",
		ReleaseName: "signed", ReleaseNamespace: ns, HelmChartAction: configv1beta1.HelmChartActionInstall,
		RegistryCredentialsConfig: &configv1beta1.RegistryCredentialsConfig{PlainHTTP: true},
		SignatureVerification: &configv1beta1.CosignVerification{
			Provider:  configv1beta1.CosignProviderPublicKey,
			SecretRef: &corev1.SecretReference{Namespace: "default", Name: "e2e-cosign-key"},
		},
	}}
	createProfile(t, p)
	expectFeature(t, p.Name, "qa", libv1beta1.FeatureHelm, libv1beta1.FeatureStatusProvisioned)
	qa := managed(t, "qa")
	waitRelease(t, qa, ns, "signed", "1.0.0")

	updateProfile(t, p.Name, func(p *configv1beta1.ClusterProfile) { p.Spec.HelmCharts[0].ChartVersion = "1.1.0" })
	cs := expectFeature(t, p.Name, "qa", libv1beta1.FeatureHelm, libv1beta1.FeatureStatusFailedNonRetriable)
	msg := failureMessage(cs, libv1beta1.FeatureHelm)
	for _, want := range []string{"cosign signature verification failed", "does not verify with the public key", "default/e2e-cosign-key", "1.1.0"} {
		if !strings.Contains(msg, want) {
			t.Errorf("failure message %q should say %q", msg, want)
		}
	}
	waitRelease(t, qa, ns, "signed", "1.0.0")

	updateProfile(t, p.Name, func(p *configv1beta1.ClusterProfile) { p.Spec.HelmCharts[0].ChartVersion = "2.0.0" })
	waitRelease(t, qa, ns, "signed", "2.0.0")
	expectFeature(t, p.Name, "qa", libv1beta1.FeatureHelm, libv1beta1.FeatureStatusProvisioned)
}
