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
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	"github.com/sigstore/sigstore/pkg/signature"
	"oras.land/oras-go/v2/content"
	registryremote "oras.land/oras-go/v2/registry/remote"
)

// What cosign 3 stores by default (`cosign sign --key`, new bundle format): a Sigstore bundle
// attached to the artifact as an OCI referrer, holding a DSSE envelope whose payload is an
// in-toto statement with the artifact's digest as subject and cosign's signing predicate type.
const (
	sigstoreBundleType = "application/vnd.dev.sigstore.bundle" // then "+json;version=0.3" or ".v0.3+json"
	inTotoPayloadType  = "application/vnd.in-toto+json"
	cosignSignType     = "https://sigstore.dev/cosign/sign/v1"
)

// bundleSignatures checks the Sigstore bundles referring to manifest, found through the
// registry's referrers API or, without one, the referrers tag schema: whether one verifies,
// and why each other does not. Other referrers (SBOMs, attestations of other kinds) are not
// signatures of the chart and are passed over.
func bundleSignatures(ctx context.Context, repo *registryremote.Repository, manifest ocispec.Descriptor, key signature.Verifier) (bool, []string, error) {
	var bundles []ocispec.Descriptor
	err := repo.Referrers(ctx, manifest, "", func(page []ocispec.Descriptor) error {
		for _, r := range page {
			if strings.HasPrefix(r.ArtifactType, sigstoreBundleType) && len(bundles) < maxSignatures {
				bundles = append(bundles, r)
			}
		}
		return nil
	})
	if err != nil && !isNotFound(err) {
		return false, nil, fmt.Errorf("listing the referrers of %s: %w", manifest.Digest, err)
	}
	var why []string
	for i, desc := range bundles {
		reason, err := checkBundle(ctx, repo, desc, manifest, key)
		if err != nil {
			return false, nil, fmt.Errorf("reading Sigstore bundle %s: %w", desc.Digest, err)
		}
		if reason == "" {
			return true, nil, nil
		}
		if reason != notASignature {
			why = append(why, fmt.Sprintf("bundle %d %s", i+1, reason))
		}
	}
	return false, why, nil
}

const notASignature = "-"

// checkBundle returns why the bundle artifact desc is not a valid signature of manifest by key,
// "" if it is, notASignature for an attestation of another kind; an error only when the
// registry could not be read.
func checkBundle(ctx context.Context, repo *registryremote.Repository, desc, manifest ocispec.Descriptor, key signature.Verifier) (string, error) {
	if desc.Size > maxManifest {
		return "has a manifest too large", nil
	}
	raw, err := content.FetchAll(ctx, repo, desc)
	if err != nil {
		return "", err
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil || len(m.Layers) != 1 || !strings.HasPrefix(m.Layers[0].MediaType, sigstoreBundleType) {
		return "is not a Sigstore bundle artifact (one bundle layer)", nil
	}
	if m.Layers[0].Size > maxPayload {
		return fmt.Sprintf("is larger than %d KiB", maxPayload>>10), nil
	}
	body, err := content.FetchAll(ctx, repo.Blobs(), m.Layers[0])
	if err != nil {
		return "", err
	}
	var bundle struct {
		DSSE *dsse.Envelope `json:"dsseEnvelope"`
	}
	if err := json.Unmarshal(body, &bundle); err != nil {
		return "is not JSON: " + err.Error(), nil
	}
	env := bundle.DSSE
	if env == nil || env.PayloadType != inTotoPayloadType {
		return "holds no DSSE envelope of an in-toto statement", nil
	}
	statement, err := base64.StdEncoding.DecodeString(env.Payload)
	if err != nil {
		return "has a payload that is not base64", nil
	}
	var st struct {
		PredicateType string `json:"predicateType"`
		Subject       []struct {
			Digest map[string]string `json:"digest"`
		} `json:"subject"`
	}
	if err := json.Unmarshal(statement, &st); err != nil {
		return "has a statement that is not JSON: " + err.Error(), nil
	}
	if st.PredicateType != cosignSignType {
		return notASignature, nil // checked before the signature only to leave it out of the message
	}
	verified := false
	for _, s := range env.Signatures {
		sig, err := base64.StdEncoding.DecodeString(s.Sig)
		if err == nil && key.VerifySignature(bytes.NewReader(sig), bytes.NewReader(dsse.PAE(env.PayloadType, statement))) == nil {
			verified = true
			break
		}
	}
	if !verified {
		return "does not verify with the public key", nil
	}
	for _, s := range st.Subject {
		if s.Digest[manifest.Digest.Algorithm().String()] == manifest.Digest.Encoded() {
			return "", nil
		}
	}
	return "is valid but does not name this chart's manifest as its subject", nil
}
