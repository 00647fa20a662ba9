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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	registryremote "oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
)

// CosignKey is the key of a signatureVerification Secret that holds the PEM public key, as
// `cosign generate-key-pair` writes cosign.pub.
const CosignKey = "cosign.pub"

// ErrSignature means an OCI chart's cosign signature is missing or does not verify.
var ErrSignature = errors.New("cosign signature verification failed")

// Bounds on what a registry may hand back while signatures are looked for.
const (
	maxManifest   = 4 << 20
	maxPayload    = 1 << 20
	maxSignatures = 16 // looked at per layout; a chart has one or two
)

// cosignVerifier reads the public key signatureVerification names. Keyless signatures need
// Fulcio's roots and Rekor, which an offline verification cannot reach: they are refused.
func (d *Deployer) cosignVerifier(ctx context.Context, hc configv1beta1.HelmChart) (signature.Verifier, error) {
	sv := hc.SignatureVerification
	invalid := func(format string, args ...any) error {
		return permanent(fmt.Errorf("%w: chart %s: signatureVerification: "+format, append([]any{ErrInvalidSpec, hc.ChartName}, args...)...))
	}
	switch {
	case sv.Provider == configv1beta1.CosignProviderKeyless:
		return nil, invalid("provider Keyless is not supported by Stagecoach: it verifies signatures offline, with a public key, " +
			"and keyless signatures need Fulcio and Rekor; sign the chart with a key (cosign sign --key) and use provider PublicKey")
	case sv.Provider != configv1beta1.CosignProviderPublicKey:
		return nil, invalid("unknown provider %q (PublicKey is supported)", sv.Provider)
	case len(sv.MatchOIDCIdentity) > 0:
		return nil, invalid("matchOIDCIdentity applies to keyless signatures, which are not supported; remove it")
	case sv.SecretRef == nil:
		return nil, invalid("provider PublicKey needs secretRef, a Secret holding the public key under %q", CosignKey)
	case hc.ProvenanceVerification != nil:
		return nil, invalid("provenanceVerification is set too; an OCI chart is verified with signatureVerification only")
	}
	secret, err := d.readSecret(ctx, "signatureVerification public key", sv.SecretRef)
	if err != nil {
		return nil, err
	}
	pemKey := secret.Data[CosignKey]
	if len(pemKey) == 0 {
		return nil, invalid("Secret %s/%s has no key %q", secret.Namespace, secret.Name, CosignKey)
	}
	pub, err := cryptoutils.UnmarshalPEMToPublicKey(pemKey)
	if err != nil {
		return nil, invalid("Secret %s/%s: %s is not a PEM public key: %v", secret.Namespace, secret.Name, CosignKey, err)
	}
	v, err := signature.LoadVerifier(pub, crypto.SHA256)
	if err != nil {
		return nil, invalid("Secret %s/%s: %s: %v", secret.Namespace, secret.Name, CosignKey, err)
	}
	return v, nil
}

// FetchSigned is Fetch for an OCI chart that must carry a cosign signature that key verifies,
// over the very manifest whose chart layer is deployed. Only the chart's own registry is
// reached: no transparency log, no certificate authority.
func (c *Cache) FetchSigned(ctx context.Context, hc configv1beta1.HelmChart, creds *Credentials, key signature.Verifier) (*chart.Chart, error) {
	ref, err := parseChartRef(hc)
	if err != nil {
		return nil, err
	}
	if ref.kind != repoOCI {
		return nil, permanent(fmt.Errorf("%w: %s: signatureVerification needs an OCI chart (oci://); "+
			"a chart from an HTTP(S) repository is verified with provenanceVerification", ErrInvalidSpec, ref))
	}
	if ctx, err = c.admit(ctx, ref); err != nil {
		return nil, err
	}
	repo, err := ociRepository(ctx, ref, creds)
	if err != nil {
		return nil, err
	}
	// A verified chart is trusted for the index TTL, so that a fleet deploying it costs the
	// registry a few requests per TTL, not per cluster and reconcile.
	memo := ref.repoURL + " " + ref.version + " " + fingerprint(key)
	v, err, _ := c.group.Do("signed:"+memo, func() (any, error) {
		if hit, ok := c.signed.Load(memo); ok && c.now().Sub(hit.(verifiedChart).at) < c.ttl {
			return hit, nil
		}
		vc, err := verifySigned(ctx, ref, repo, key)
		if err != nil {
			return nil, err
		}
		vc.at = c.now()
		c.signed.Store(memo, vc)
		return vc, nil
	})
	if err != nil {
		return nil, err
	}
	version, layer := v.(verifiedChart).version, v.(verifiedChart).layer
	// Cached by the layer's digest, never by tag: what is deployed is what was verified.
	path := filepath.Join(c.repoDir(ref), layer.Digest.Encoded()+".tgz")
	data, err := c.once(path, func() ([]byte, error) {
		return content.FetchAll(ctx, repo.Blobs(), layer)
	})
	if err != nil {
		return nil, fmt.Errorf("registry %s: chart layer of %s: %w", ref.repoURL, version, err)
	}
	if layer.Digest.Algorithm().FromBytes(data) != layer.Digest {
		_ = os.Remove(path)
		return nil, fmt.Errorf("cached chart %s %s does not match its signed digest; it is downloaded again", ref, version)
	}
	return loadArchive(data, ref)
}

// verifiedChart is the chart layer of a version whose manifest carries a valid signature.
type verifiedChart struct {
	version string
	layer   ocispec.Descriptor
	at      time.Time
}

// verifySigned resolves ref's version to its manifest, checks its signatures and returns the
// chart layer the verified manifest names.
func verifySigned(ctx context.Context, ref chartRef, repo *registryremote.Repository, key signature.Verifier) (verifiedChart, error) {
	version, err := ociVersion(ctx, repo, ref)
	if err != nil {
		return verifiedChart{}, err
	}
	desc, raw, err := oras.FetchBytes(ctx, repo, strings.ReplaceAll(version, "+", "_"), oras.FetchBytesOptions{MaxBytes: maxManifest})
	if err != nil {
		return verifiedChart{}, ociPullError(ref, version, err)
	}
	if err := verifyCosign(ctx, repo, desc, key); err != nil {
		return verifiedChart{}, fmt.Errorf("%s %s: %w", ref, version, err)
	}
	layer, err := chartLayer(raw)
	if err != nil {
		return verifiedChart{}, permanent(fmt.Errorf("%w: %s %s: %w", ErrBadChart, ref, version, err))
	}
	return verifiedChart{version: version, layer: layer}, nil
}

// fingerprint names a public key in cache keys.
func fingerprint(key signature.Verifier) string {
	pub, err := key.PublicKey()
	if err != nil {
		return fmt.Sprintf("%p", key)
	}
	der, err := cryptoutils.MarshalPublicKeyToDER(pub)
	if err != nil {
		return fmt.Sprintf("%p", key)
	}
	sum := sha256.Sum256(der)
	return hex.EncodeToString(sum[:])
}

// verifyCosign finds the signatures of manifest, in both layouts cosign writes, and accepts the
// first that key verifies and that names manifest. A payload is trusted only after its
// signature verifies.
func verifyCosign(ctx context.Context, repo *registryremote.Repository, manifest ocispec.Descriptor, key signature.Verifier) error {
	ok, why, err := classicSignatures(ctx, repo, manifest.Digest, key)
	if ok || err != nil {
		return err
	}
	ok, whyBundles, err := bundleSignatures(ctx, repo, manifest, key)
	if ok || err != nil {
		return err
	}
	why = append(why, whyBundles...)
	if len(why) == 0 {
		return permanent(fmt.Errorf("%w: no cosign signature of manifest %s in the registry: neither a signature tagged %s nor a Sigstore bundle referring to it",
			ErrSignature, manifest.Digest, classicTag(manifest.Digest)))
	}
	return permanent(fmt.Errorf("%w: manifest %s: %s", ErrSignature, manifest.Digest, strings.Join(why, "; ")))
}

// chartLayer is the chart archive's descriptor in a Helm chart manifest.
func chartLayer(raw []byte) (ocispec.Descriptor, error) {
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("the manifest is not JSON: %w", err)
	}
	for _, l := range m.Layers {
		if l.MediaType == helmChartLayerType {
			if err := l.Digest.Validate(); err != nil {
				return ocispec.Descriptor{}, fmt.Errorf("the chart layer's digest: %w", err)
			}
			if l.Size > maxDownload {
				return ocispec.Descriptor{}, fmt.Errorf("the chart layer is larger than %d MiB", maxDownload>>20)
			}
			return l, nil
		}
	}
	return ocispec.Descriptor{}, fmt.Errorf("the manifest has no layer of type %s: not a Helm chart", helmChartLayerType)
}

const helmChartLayerType = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"

// ociRepository reaches the chart's repository with creds, as the Helm client of oci.go does.
func ociRepository(ctx context.Context, ref chartRef, creds *Credentials) (*registryremote.Repository, error) {
	repo, err := registryremote.NewRepository(strings.TrimPrefix(ref.repoURL, "oci://"))
	if err != nil {
		return nil, permanent(fmt.Errorf("%w: %s: %w", ErrInvalidSpec, ref, err))
	}
	hc, err := httpClient(ctx, creds)
	if err != nil {
		return nil, err
	}
	client := &auth.Client{Client: hc, Cache: auth.NewCache()}
	if creds != nil {
		repo.PlainHTTP = creds.PlainHTTP
		if creds.Username != "" {
			client.Credential = auth.StaticCredential(repo.Reference.Registry,
				auth.Credential{Username: creds.Username, Password: creds.Password})
		}
	}
	repo.Client = client
	return repo, nil
}

// ociVersion resolves a range or an empty version against the repository's tags.
func ociVersion(ctx context.Context, repo *registryremote.Repository, ref chartRef) (string, error) {
	if ref.version != "" && !isVersionRange(ref.version) {
		return ref.version, nil
	}
	var tags []string
	err := repo.Tags(ctx, "", func(page []string) error {
		for _, t := range page {
			tags = append(tags, strings.ReplaceAll(t, "_", "+"))
		}
		return nil
	})
	if err != nil {
		return "", ociTagsError(ref, err)
	}
	picked, err := pickVersion(tags, ref.version)
	if err != nil || picked == "" {
		return "", versionError(ref, tags, err)
	}
	return picked, nil
}

func isNotFound(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "not found") || strings.Contains(err.Error(), "MANIFEST_UNKNOWN"))
}
