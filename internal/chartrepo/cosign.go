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

package chartrepo

import (
	"bytes"
	"context"
	"crypto"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/opencontainers/go-digest"
	"github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/sigstore/sigstore/pkg/signature/payload"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/registry/remote"
)

// CosignSign signs chart name at version in the registry at ociURL (as ServeOCI returns it)
// the way `cosign sign --key --tlog-upload=false` does, with nothing but the registry: a
// simple-signing payload naming the chart's manifest digest, signed with key, pushed as the
// layer of an image manifest tagged sha256-<digest>.sig beside the chart, the base64 signature
// in the layer's dev.cosignproject.cosign/signature annotation. It returns the signed digest.
func CosignSign(ctx context.Context, ociURL, name, version string, key crypto.Signer) (string, error) {
	return CosignSignDigest(ctx, ociURL, name, version, "", key)
}

// CosignSignDigest is CosignSign with a payload naming the manifest digest signed instead of
// the chart's own (when not empty): a valid signature of another artifact, replayed.
func CosignSignDigest(ctx context.Context, ociURL, name, version, signed string, key crypto.Signer) (string, error) {
	repo, err := remote.NewRepository(strings.TrimPrefix(ociURL, "oci://") + "/" + name)
	if err != nil {
		return "", err
	}
	repo.PlainHTTP = true
	chart, err := repo.Resolve(ctx, strings.ReplaceAll(version, "+", "_"))
	if err != nil {
		return "", fmt.Errorf("resolving %s %s: %w", name, version, err)
	}
	if signed == "" {
		signed = chart.Digest.String()
	}
	return signed, sign(ctx, repo, chart.Digest, signed, key)
}

func sign(ctx context.Context, repo *remote.Repository, manifest digest.Digest, signed string, key crypto.Signer) error {
	body, err := json.Marshal(payload.SimpleContainerImage{Critical: payload.Critical{
		Identity: payload.Identity{DockerReference: repo.Reference.Registry + "/" + repo.Reference.Repository},
		Image:    payload.Image{DockerManifestDigest: signed},
		Type:     payload.CosignSignatureType,
	}})
	if err != nil {
		return err
	}
	signer, err := signature.LoadSigner(key, crypto.SHA256)
	if err != nil {
		return err
	}
	sig, err := signer.SignMessage(bytes.NewReader(body))
	if err != nil {
		return err
	}
	layer, err := oras.PushBytes(ctx, repo, "application/vnd.dev.cosign.simplesigning.v1+json", body)
	if err != nil {
		return fmt.Errorf("pushing the signature payload: %w", err)
	}
	layer.Annotations = map[string]string{"dev.cosignproject.cosign/signature": base64.StdEncoding.EncodeToString(sig)}
	config, err := json.Marshal(map[string]any{
		"architecture": "", "os": "", "config": map[string]any{},
		"rootfs": map[string]any{"type": "layers", "diff_ids": []string{layer.Digest.String()}},
	})
	if err != nil {
		return err
	}
	configDesc, err := oras.PushBytes(ctx, repo, ocispec.MediaTypeImageConfig, config)
	if err != nil {
		return fmt.Errorf("pushing the signature config: %w", err)
	}
	m, err := json.Marshal(ocispec.Manifest{
		Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest,
		Config: configDesc, Layers: []ocispec.Descriptor{layer},
	})
	if err != nil {
		return err
	}
	tag := manifest.Algorithm().String() + "-" + manifest.Encoded() + ".sig"
	if _, err := oras.TagBytes(ctx, repo, ocispec.MediaTypeImageManifest, m, tag); err != nil {
		return fmt.Errorf("pushing the signature manifest %s: %w", tag, err)
	}
	return nil
}

// CosignSignBundle signs chart name at version as cosign 3 does by default with a key
// (`cosign sign --key`, new bundle format): an in-toto statement naming the chart's manifest
// digest, in a DSSE envelope signed with key, in a Sigstore bundle pushed as an OCI referrer of
// the chart (listed under the referrers tag schema, this registry having no referrers API).
func CosignSignBundle(ctx context.Context, ociURL, name, version string, key crypto.Signer) (string, error) {
	repo, err := remote.NewRepository(strings.TrimPrefix(ociURL, "oci://") + "/" + name)
	if err != nil {
		return "", err
	}
	repo.PlainHTTP = true
	repo.SkipReferrersGC = true
	chart, err := repo.Resolve(ctx, strings.ReplaceAll(version, "+", "_"))
	if err != nil {
		return "", fmt.Errorf("resolving %s %s: %w", name, version, err)
	}
	statement, err := json.Marshal(map[string]any{
		"_type":         "https://in-toto.io/Statement/v1",
		"subject":       []any{map[string]any{"digest": map[string]string{chart.Digest.Algorithm().String(): chart.Digest.Encoded()}}},
		"predicateType": "https://sigstore.dev/cosign/sign/v1",
		"predicate":     map[string]any{},
	})
	if err != nil {
		return "", err
	}
	const payloadType = "application/vnd.in-toto+json"
	signer, err := signature.LoadSigner(key, crypto.SHA256)
	if err != nil {
		return "", err
	}
	sig, err := signer.SignMessage(bytes.NewReader(dsse.PAE(payloadType, statement)))
	if err != nil {
		return "", err
	}
	const bundleType = "application/vnd.dev.sigstore.bundle.v0.3+json"
	bundle, err := json.Marshal(map[string]any{
		"mediaType":            bundleType,
		"verificationMaterial": map[string]any{"publicKey": map[string]string{"hint": ""}},
		"dsseEnvelope": dsse.Envelope{
			PayloadType: payloadType,
			Payload:     base64.StdEncoding.EncodeToString(statement),
			Signatures:  []dsse.Signature{{Sig: base64.StdEncoding.EncodeToString(sig)}},
		},
	})
	if err != nil {
		return "", err
	}
	layer, err := oras.PushBytes(ctx, repo, bundleType, bundle)
	if err != nil {
		return "", fmt.Errorf("pushing the bundle: %w", err)
	}
	empty, err := oras.PushBytes(ctx, repo, ocispec.MediaTypeEmptyJSON, []byte("{}"))
	if err != nil {
		return "", fmt.Errorf("pushing the empty config: %w", err)
	}
	m, err := json.Marshal(ocispec.Manifest{
		Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest,
		ArtifactType: bundleType, Config: empty, Layers: []ocispec.Descriptor{layer}, Subject: &chart,
		Annotations: map[string]string{
			"dev.sigstore.bundle.content": "dsse-envelope", "dev.sigstore.bundle.predicateType": "https://sigstore.dev/cosign/sign/v1",
		},
	})
	if err != nil {
		return "", err
	}
	if _, err := oras.PushBytes(ctx, repo, ocispec.MediaTypeImageManifest, m); err != nil {
		return "", fmt.Errorf("pushing the bundle manifest: %w", err)
	}
	return chart.Digest.String(), nil
}
