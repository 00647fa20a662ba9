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
	"errors"
	"fmt"
	"os"
	"path"

	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/provenance"
	repo "helm.sh/helm/v4/pkg/repo/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
)

// KeyringKey is the key of a provenanceVerification Secret that holds the public keyring.
const KeyringKey = "keyring.gpg"

// fetch returns the chart hc names, verified against its provenance file or its cosign
// signature when the chart asks for it; a chart that fails verification is never returned.
func (d *Deployer) fetch(ctx context.Context, hc configv1beta1.HelmChart, creds *Credentials) (*chart.Chart, error) {
	if hc.SignatureVerification != nil {
		key, err := d.cosignVerifier(ctx, hc)
		if err != nil {
			return nil, err
		}
		ch, err := d.cache.FetchSigned(ctx, hc, creds, key)
		if errors.Is(err, ErrSignature) {
			ref := hc.SignatureVerification.SecretRef
			err = fmt.Errorf("%w (public key from Secret %s/%s)", err, ref.Namespace, ref.Name)
		}
		return ch, err
	}
	pv := hc.ProvenanceVerification
	if pv == nil {
		return d.cache.Fetch(ctx, hc, creds)
	}
	secret, err := d.readSecret(ctx, "provenanceVerification keyring", &pv.KeyringSecretRef)
	if err != nil {
		return nil, err
	}
	keyring := secret.Data[KeyringKey]
	if len(keyring) == 0 {
		return nil, permanent(fmt.Errorf("%w: provenanceVerification keyring Secret %s/%s has no key %q",
			ErrInvalidSpec, secret.Namespace, secret.Name, KeyringKey))
	}
	return d.cache.FetchVerified(ctx, hc, creds, keyring)
}

// FetchVerified is Fetch for a chart that must come with a provenance file (<chart URL>.prov)
// signed by a key of keyring (as `gpg --export` writes it, binary or armored) and matching the
// archive's digest. Only HTTP(S) repositories publish provenance files.
func (c *Cache) FetchVerified(ctx context.Context, hc configv1beta1.HelmChart, creds *Credentials, keyring []byte) (*chart.Chart, error) {
	ref, err := parseChartRef(hc)
	if err != nil {
		return nil, err
	}
	if ctx, err = c.admit(ctx, ref); err != nil {
		return nil, err
	}
	if ref.kind == repoOCI {
		return nil, permanent(fmt.Errorf("%w: %s: provenanceVerification needs a chart from an HTTP(S) repository; "+
			"an OCI chart would be verified with signatureVerification", ErrInvalidSpec, ref))
	}
	idx, err := c.index(ctx, ref, creds)
	if err != nil {
		return nil, err
	}
	cv, err := selectVersion(idx, ref)
	if err != nil {
		return nil, err
	}
	exact := ref
	exact.version = cv.Version
	archive, _, err := c.archive(ctx, exact, creds)
	if err != nil {
		return nil, err
	}
	if len(cv.URLs) == 0 {
		return nil, permanent(fmt.Errorf("%w: %s %s: the index lists no download URL", ErrBadChart, ref, cv.Version))
	}
	chartURL, err := repo.ResolveReferenceURL(ref.repoURL, cv.URLs[0])
	if err != nil {
		return nil, permanent(fmt.Errorf("%w: %s %s: download URL %q: %w", ErrBadChart, ref, cv.Version, cv.URLs[0], err))
	}
	prov, err := c.once(c.archivePath(ref, cv.Version)+".prov", func() ([]byte, error) {
		return get(ctx, ref.repoURL, chartURL+".prov", creds, sameHost(ref.repoURL, chartURL))
	})
	if err != nil {
		return nil, fmt.Errorf("provenance file of %s %s: %w", ref, cv.Version, err)
	}
	if err := verifyProvenance(archive, prov, path.Base(chartURL), keyring); err != nil {
		return nil, permanent(fmt.Errorf("%w: %s %s: provenance verification failed: %w", ErrBadChart, ref, cv.Version, err))
	}
	return loadArchive(archive, ref)
}

// verifyProvenance checks that prov is signed by a key of keyring and records archive's digest
// under filename. Helm reads keyrings from files only.
func verifyProvenance(archive, prov []byte, filename string, keyring []byte) error {
	f, err := os.CreateTemp("", "stagecoach-keyring-*.gpg")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(keyring)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	sig, err := provenance.NewFromKeyring(f.Name(), "")
	if err != nil {
		return fmt.Errorf("reading the keyring: %w", err)
	}
	_, err = sig.Verify(archive, prov, filename)
	return err
}
