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
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"helm.sh/helm/v4/pkg/chart/v2/loader"
)

// OCI media types of a Helm chart artifact.
const (
	ociManifestType = "application/vnd.oci.image.manifest.v1+json"
	helmConfigType  = "application/vnd.cncf.helm.config.v1+json"
	helmChartType   = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"
)

// registry is an OCI distribution endpoint holding charts: just enough of the distribution API
// (manifests, blobs, tag lists) for Helm's registry client to pull, and for a test to push
// what cosign pushes beside a chart (push.go).
type registry struct {
	mu    sync.RWMutex
	blobs map[string][]byte            // by digest, manifests included
	tags  map[string]map[string]string // repository → tag → manifest digest
}

// ServeOCI packages every chart under dir and serves them as an OCI registry over plain HTTP
// on 127.0.0.1 with a random port: chart NAME version V is oci://HOST/charts/NAME:V. It returns
// "oci://HOST/charts" and stop; ctx ending stops the registry too.
func ServeOCI(ctx context.Context, dir string) (url string, stop func(), err error) {
	out, err := os.MkdirTemp("", "stagecoach-ocirepo-")
	if err != nil {
		return "", nil, err
	}
	defer func() { _ = os.RemoveAll(out) }()
	archives, err := PackageAll(dir, out)
	if err != nil {
		return "", nil, err
	}
	reg := &registry{blobs: map[string][]byte{}, tags: map[string]map[string]string{}}
	for _, a := range archives {
		if err := reg.add(a); err != nil {
			return "", nil, err
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: reg, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	stopCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		<-stopCtx.Done()
		shutdown, cancelShutdown := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancelShutdown()
		_ = srv.Shutdown(shutdown)
		close(done)
	}()
	return "oci://" + ln.Addr().String() + "/charts", func() { cancel(); <-done }, nil
}

// add stores one chart archive as an artifact tagged with its version ("+" spelled "_").
func (r *registry) add(archive string) error {
	data, err := os.ReadFile(archive)
	if err != nil {
		return err
	}
	ch, err := loader.Load(archive)
	if err != nil {
		return err
	}
	config, err := json.Marshal(ch.Metadata)
	if err != nil {
		return err
	}
	descriptor := func(mediaType string, blob []byte) map[string]any {
		d := r.put(blob)
		return map[string]any{"mediaType": mediaType, "digest": d, "size": len(blob)}
	}
	manifest, err := json.Marshal(map[string]any{
		"schemaVersion": 2,
		"mediaType":     ociManifestType,
		"config":        descriptor(helmConfigType, config),
		"layers":        []any{descriptor(helmChartType, data)},
	})
	if err != nil {
		return err
	}
	repo := "charts/" + ch.Metadata.Name
	if r.tags[repo] == nil {
		r.tags[repo] = map[string]string{}
	}
	r.tags[repo][strings.ReplaceAll(ch.Metadata.Version, "+", "_")] = r.put(manifest)
	return nil
}

func (r *registry) put(blob []byte) string {
	sum := sha256.Sum256(blob)
	d := "sha256:" + hex.EncodeToString(sum[:])
	r.blobs[d] = blob
	return d
}

// ServeHTTP answers /v2/, /v2/<repo>/tags/list, /v2/<repo>/manifests/<ref> and
// /v2/<repo>/blobs/<digest>.
func (r *registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	path := strings.TrimPrefix(req.URL.Path, "/v2/")
	if path == "" || path == req.URL.Path {
		w.WriteHeader(http.StatusOK)
		return
	}
	if req.Method == http.MethodPost || req.Method == http.MethodPut {
		r.push(w, req, path)
		return
	}
	if strings.Contains(path, "/referrers/") {
		// No referrers API: clients fall back to the referrers tag schema (push.go).
		http.NotFound(w, req)
		return
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if repo, ok := strings.CutSuffix(path, "/tags/list"); ok {
		var tags []string
		for t := range r.tags[repo] {
			tags = append(tags, t)
		}
		if tags == nil {
			ociError(w, http.StatusNotFound, "NAME_UNKNOWN", repo)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"name": repo, "tags": tags})
		return
	}
	for _, kind := range []string{"/manifests/", "/blobs/"} {
		repo, ref, ok := strings.Cut(path, kind)
		if !ok {
			continue
		}
		digest := ref
		if !strings.HasPrefix(ref, "sha256:") {
			digest = r.tags[repo][ref]
		}
		blob, found := r.blobs[digest]
		if !found {
			ociError(w, http.StatusNotFound, "MANIFEST_UNKNOWN", repo+":"+ref)
			return
		}
		contentType := "application/octet-stream"
		if kind == "/manifests/" {
			contentType = manifestType(blob)
		}
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Docker-Content-Digest", digest)
		w.Header().Set("Content-Length", fmt.Sprint(len(blob)))
		if req.Method != http.MethodHead {
			_, _ = w.Write(blob)
		}
		return
	}
	ociError(w, http.StatusNotFound, "NAME_UNKNOWN", path)
}

func ociError(w http.ResponseWriter, status int, code, what string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"errors": []any{map[string]string{"code": code, "message": what + " not found"}}})
}
