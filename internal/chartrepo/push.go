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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// maxPush bounds a pushed blob or manifest; signatures and test charts are a few kilobytes.
const maxPush = 16 << 20

// manifestType is the media type a stored manifest declares: an image manifest for charts and
// signatures, an image index for a referrers list kept under the referrers tag schema.
func manifestType(blob []byte) string {
	var m struct {
		MediaType string `json:"mediaType"`
	}
	if json.Unmarshal(blob, &m) != nil || m.MediaType == "" {
		return ociManifestType
	}
	return m.MediaType
}

// push answers the monolithic uploads of the distribution API, which is how oras-go and cosign
// push: POST /v2/<repo>/blobs/uploads/ opens an upload, PUT on the returned location with
// ?digest= stores the blob, and PUT /v2/<repo>/manifests/<tag or digest> stores a manifest.
// Chunked uploads (PATCH) are not needed by them and not served.
func (r *registry) push(w http.ResponseWriter, req *http.Request, path string) {
	if repo, ok := strings.CutSuffix(path, "/blobs/uploads/"); ok && req.Method == http.MethodPost {
		w.Header().Set("Location", "/v2/"+repo+"/blobs/uploads/upload")
		w.WriteHeader(http.StatusAccepted)
		return
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, maxPush+1))
	if err != nil || len(body) > maxPush {
		ociError(w, http.StatusRequestEntityTooLarge, "SIZE_INVALID", path)
		return
	}
	if repo, _, ok := strings.Cut(path, "/blobs/uploads/"); ok && req.Method == http.MethodPut {
		want := req.URL.Query().Get("digest")
		if digestOf(body) != want {
			ociError(w, http.StatusBadRequest, "DIGEST_INVALID", want)
			return
		}
		r.store(repo, "", body)
		created(w, "/v2/"+repo+"/blobs/"+want, want)
		return
	}
	if repo, ref, ok := strings.Cut(path, "/manifests/"); ok && req.Method == http.MethodPut {
		if strings.HasPrefix(ref, "sha256:") && digestOf(body) != ref {
			ociError(w, http.StatusBadRequest, "DIGEST_INVALID", ref)
			return
		}
		d := r.store(repo, ref, body)
		created(w, "/v2/"+repo+"/manifests/"+d, d)
		return
	}
	ociError(w, http.StatusMethodNotAllowed, "UNSUPPORTED", req.Method+" "+path)
}

// store keeps blob and, for a manifest pushed by tag, points the tag at it.
func (r *registry) store(repo, ref string, blob []byte) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := r.put(blob)
	if ref != "" && !strings.HasPrefix(ref, "sha256:") {
		if r.tags[repo] == nil {
			r.tags[repo] = map[string]string{}
		}
		r.tags[repo][ref] = d
	}
	return d
}

func digestOf(blob []byte) string {
	sum := sha256.Sum256(blob)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func created(w http.ResponseWriter, location, digest string) {
	w.Header().Set("Location", location)
	w.Header().Set("Docker-Content-Digest", digest)
	w.WriteHeader(http.StatusCreated)
}
