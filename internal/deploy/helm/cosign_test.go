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

package helm

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/chartrepo"
)

// cosignKey makes a key pair as `cosign generate-key-pair` would, and a Secret holding its
// public half under cosign.pub.
func cosignKey(t *testing.T, name string) (*ecdsa.PrivateKey, *corev1.Secret) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := cryptoutils.MarshalPublicKeyToPEM(key.Public())
	if err != nil {
		t.Fatal(err)
	}
	return key, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "keys", Name: name},
		Data:       map[string][]byte{CosignKey: pub},
	}
}

// TestFetchSigned signs charts in the local OCI registry with cosign's layout and checks that
// only a chart whose manifest the Secret's key signed is returned.
func TestFetchSigned(t *testing.T) {
	url, stop, err := chartrepo.ServeOCI(t.Context(), "../../../testdata/charts")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	key, trusted := cosignKey(t, "trusted")
	_, stranger := cosignKey(t, "stranger")
	signed100, err := chartrepo.CosignSign(t.Context(), url, "webapp", "1.0.0", key)
	if err != nil {
		t.Fatal(err)
	}
	// 1.1.0 carries a valid signature by the trusted key, of 1.0.0's manifest.
	if _, err := chartrepo.CosignSignDigest(t.Context(), url, "webapp", "1.1.0", signed100, key); err != nil {
		t.Fatal(err)
	}
	noKey := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "keys", Name: "empty"}, Data: map[string][]byte{"key": []byte("x")}}
	cache, err := NewCache(CacheOptions{Dir: t.TempDir(), Log: logr.Discard()})
	if err != nil {
		t.Fatal(err)
	}
	d := &Deployer{cache: cache, secrets: fake.NewClientBuilder().WithObjects(trusted, stranger, noKey).Build()}
	plain := &Credentials{PlainHTTP: true}
	signedChart := func(version, secret string) configv1beta1.HelmChart {
		return configv1beta1.HelmChart{
			RepositoryURL: url, RepositoryName: "charts", ChartName: "charts/webapp", ChartVersion: version,
			ReleaseName: "web", ReleaseNamespace: "web",
			SignatureVerification: &configv1beta1.CosignVerification{
				Provider:  configv1beta1.CosignProviderPublicKey,
				SecretRef: &corev1.SecretReference{Namespace: "keys", Name: secret},
			},
		}
	}

	for _, version := range []string{"1.0.0", "~1.0"} {
		ch, err := d.fetch(t.Context(), signedChart(version, "trusted"), plain, nil)
		if err != nil || ch.Metadata.Version != "1.0.0" {
			t.Fatalf("version %q, signed by the trusted key: %v", version, err)
		}
	}

	failures := map[string]struct {
		hc   configv1beta1.HelmChart
		want string
	}{
		"another key":            {signedChart("1.0.0", "stranger"), "signature 1 does not verify with the public key (public key from Secret keys/stranger)"},
		"a replayed signature":   {signedChart("1.1.0", "trusted"), "is valid but signs manifest " + signed100 + ", not this chart's"},
		"no signature":           {signedChart("2.0.0", "trusted"), "no cosign signature of manifest sha256:"},
		"a Secret without a key": {signedChart("1.0.0", "empty"), `has no key "cosign.pub"`},
	}
	for name, c := range failures {
		_, err := d.fetch(t.Context(), c.hc, plain, nil)
		if err == nil || !IsPermanent(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want a permanent error containing %q", name, err, c.want)
		}
		if name != "a Secret without a key" && !errors.Is(err, ErrSignature) {
			t.Errorf("%s: %v is not ErrSignature", name, err)
		}
	}

	if _, err := d.fetch(t.Context(), signedChart("9.9.9", "trusted"), plain, nil); !errors.Is(err, ErrVersionNotFound) || !IsPermanent(err) {
		t.Errorf("a version the registry does not have: %v", err)
	}

	keyless := signedChart("1.0.0", "trusted")
	keyless.SignatureVerification = &configv1beta1.CosignVerification{
		Provider:          configv1beta1.CosignProviderKeyless,
		MatchOIDCIdentity: []configv1beta1.OIDCIdentityMatcher{{Issuer: "https://token.actions.githubusercontent.com", Subject: ".*"}},
	}
	if _, err := d.fetch(t.Context(), keyless, plain, nil); err == nil || !IsPermanent(err) || !strings.Contains(err.Error(), "provider Keyless is not supported") {
		t.Errorf("keyless: %v", err)
	}
	identity := signedChart("1.0.0", "trusted")
	identity.SignatureVerification.MatchOIDCIdentity = keyless.SignatureVerification.MatchOIDCIdentity
	if _, err := d.fetch(t.Context(), identity, plain, nil); err == nil || !strings.Contains(err.Error(), "matchOIDCIdentity applies to keyless") {
		t.Errorf("a public key with matchOIDCIdentity: %v", err)
	}
	http := signedChart("1.0.0", "trusted")
	http.RepositoryURL = "https://charts.example/"
	if _, err := d.fetch(t.Context(), http, nil, nil); err == nil || !IsPermanent(err) || !strings.Contains(err.Error(), "signatureVerification needs an OCI chart") {
		t.Errorf("an HTTP chart: %v", err)
	}
	bundles(t, d, key)

	down := signedChart("1.0.0", "trusted")
	down.RepositoryURL = "oci://127.0.0.1:1/charts"
	if _, err := d.fetch(t.Context(), down, plain, nil); err == nil || IsPermanent(err) {
		t.Errorf("a registry that does not answer should be retried: %v", err)
	}
}

// bundles checks signatures in cosign 3's default layout, Sigstore bundles attached as
// referrers, alone and beside a classic signature by another key.
func bundles(t *testing.T, d *Deployer, key *ecdsa.PrivateKey) {
	url, stop, err := chartrepo.ServeOCI(t.Context(), "../../../testdata/charts")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	strangerKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		version string
		sign    func(context.Context, string, string, string, crypto.Signer) (string, error)
		key     crypto.Signer
	}{
		{"1.0.0", chartrepo.CosignSignBundle, key},
		{"1.1.0", chartrepo.CosignSignBundle, strangerKey},
		{"2.0.0", chartrepo.CosignSign, strangerKey},
		{"2.0.0", chartrepo.CosignSignBundle, key},
	} {
		if _, err := s.sign(t.Context(), url, "webapp", s.version, s.key); err != nil {
			t.Fatal(err)
		}
	}
	hc := func(version string) configv1beta1.HelmChart {
		return configv1beta1.HelmChart{
			RepositoryURL: url, ChartName: "webapp", ChartVersion: version, ReleaseName: "web", ReleaseNamespace: "web",
			SignatureVerification: &configv1beta1.CosignVerification{
				Provider:  configv1beta1.CosignProviderPublicKey,
				SecretRef: &corev1.SecretReference{Namespace: "keys", Name: "trusted"},
			},
		}
	}
	plain := &Credentials{PlainHTTP: true}
	for _, version := range []string{"1.0.0", "2.0.0"} {
		if ch, err := d.fetch(t.Context(), hc(version), plain, nil); err != nil || ch.Metadata.Version != version {
			t.Errorf("bundle signature of %s by the trusted key: %v", version, err)
		}
	}
	_, err = d.fetch(t.Context(), hc("1.1.0"), plain, nil)
	if !errors.Is(err, ErrSignature) || !IsPermanent(err) || !strings.Contains(err.Error(), "bundle 1 does not verify with the public key") {
		t.Errorf("bundle signature by another key: %v", err)
	}
}
