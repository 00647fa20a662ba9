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

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/sigstore/sigstore/pkg/signature/payload"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	registryremote "oras.land/oras-go/v2/registry/remote"
)

// What `cosign sign --key` stores beside an artifact (cosign v2, and v3 with
// --new-bundle-format=false): an image manifest tagged sha256-<digest>.sig in the artifact's
// repository, each layer a simple-signing payload naming the signed manifest's digest, with its
// base64 signature in an annotation.
const (
	cosignPayloadType   = "application/vnd.dev.cosign.simplesigning.v1+json"
	cosignSignatureNote = "dev.cosignproject.cosign/signature"
)

func classicTag(manifest digest.Digest) string {
	return manifest.Algorithm().String() + "-" + manifest.Encoded() + ".sig"
}

// classicSignatures checks the signatures tagged sha256-<digest>.sig: whether one verifies,
// and why each other does not.
func classicSignatures(ctx context.Context, repo *registryremote.Repository, manifest digest.Digest, key signature.Verifier) (bool, []string, error) {
	tag := classicTag(manifest)
	_, raw, err := oras.FetchBytes(ctx, repo, tag, oras.FetchBytesOptions{MaxBytes: maxManifest})
	if err != nil {
		if isNotFound(err) {
			return false, nil, nil
		}
		return false, nil, fmt.Errorf("reading the cosign signature %s: %w", tag, err)
	}
	var sigs ocispec.Manifest
	if err := json.Unmarshal(raw, &sigs); err != nil {
		return false, []string{fmt.Sprintf("signature manifest %s is not JSON: %v", tag, err)}, nil
	}
	if len(sigs.Layers) == 0 {
		return false, []string{"signature manifest " + tag + " holds no signature"}, nil
	}
	var why []string
	for i, layer := range sigs.Layers[:min(len(sigs.Layers), maxSignatures)] {
		reason, err := checkSignature(ctx, repo, layer, manifest, key)
		if err != nil {
			return false, nil, fmt.Errorf("reading signature %d of %s: %w", i+1, tag, err)
		}
		if reason == "" {
			return true, nil, nil
		}
		why = append(why, fmt.Sprintf("signature %d %s", i+1, reason))
	}
	return false, why, nil
}

// checkSignature returns why layer is not a valid signature of manifest by key, "" if it is;
// an error only when the registry could not be read.
func checkSignature(ctx context.Context, repo *registryremote.Repository, layer ocispec.Descriptor, manifest digest.Digest, key signature.Verifier) (string, error) {
	if layer.MediaType != cosignPayloadType {
		return "is not a simple-signing payload (" + layer.MediaType + ")", nil
	}
	sig, err := base64.StdEncoding.DecodeString(layer.Annotations[cosignSignatureNote])
	if err != nil || len(sig) == 0 {
		return "has no " + cosignSignatureNote + " annotation", nil
	}
	if layer.Size > maxPayload {
		return fmt.Sprintf("has a payload larger than %d KiB", maxPayload>>10), nil
	}
	body, err := content.FetchAll(ctx, repo.Blobs(), layer)
	if err != nil {
		return "", err
	}
	if err := key.VerifySignature(bytes.NewReader(sig), bytes.NewReader(body)); err != nil {
		return "does not verify with the public key", nil
	}
	var p payload.SimpleContainerImage
	if err := json.Unmarshal(body, &p); err != nil {
		return "has a payload that is not JSON: " + err.Error(), nil
	}
	if p.Critical.Type != payload.CosignSignatureType {
		return fmt.Sprintf("has a payload of type %q", p.Critical.Type), nil
	}
	if signed := p.Critical.Image.DockerManifestDigest; signed != manifest.String() {
		return fmt.Sprintf("is valid but signs manifest %s, not this chart's", signed), nil
	}
	return "", nil
}
