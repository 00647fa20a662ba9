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

package fluxsource

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// tarball packs files (name → content) as source-controller does: gzipped tar.
func tarball(t *testing.T, files map[string]string, extra ...*tar.Header) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, name := range sortedKeys(files) {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(files[name])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(tw, files[name]); err != nil {
			t.Fatal(err)
		}
	}
	for _, h := range extra {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sortedKeys(m map[string]string) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func sha(data []byte) string { return fmt.Sprintf("sha256:%x", sha256.Sum256(data)) }

// serve serves data at /artifact.tar.gz and returns its URL.
func serve(t *testing.T, data []byte) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/artifact.tar.gz" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/artifact.tar.gz"
}

func TestDownloadChecksDigest(t *testing.T) {
	data := tarball(t, map[string]string{"a.yaml": "kind: ConfigMap\n"})
	url := serve(t, data)
	got, err := Fetcher{}.Download(context.Background(), "GitRepository ns/repo", Artifact{URL: url, Digest: sha(data)})
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Download = %d bytes, %v; want the %d bytes served", len(got), err, len(data))
	}
	_, err = Fetcher{}.Download(context.Background(), "GitRepository ns/repo", Artifact{URL: url, Digest: sha([]byte("other"))})
	var de *DigestError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "does not match its digest") {
		t.Fatalf("Download with a wrong digest: %v; want a DigestError", err)
	}
	_, err = Fetcher{}.Download(context.Background(), "GitRepository ns/repo", Artifact{URL: url, Digest: "md5:abc"})
	if err == nil || !strings.Contains(err.Error(), "cannot check") {
		t.Fatalf("Download with an unknown algorithm: %v; want an error saying the digest cannot be checked", err)
	}
	_, err = Fetcher{}.Download(context.Background(), "GitRepository ns/repo", Artifact{URL: url + "x", Digest: sha(data)})
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("Download of a missing artifact: %v; want the HTTP status", err)
	}
}

func TestDownloadSizeLimit(t *testing.T) {
	data := tarball(t, map[string]string{"big.yaml": strings.Repeat("x", 4096)})
	url := serve(t, data)
	limit := int64(len(data) - 1)
	_, err := Fetcher{MaxSize: limit}.Download(context.Background(), "Bucket ns/b", Artifact{URL: url, Digest: sha(data)})
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Limit != limit {
		t.Fatalf("Download above the limit: %v; want a TooLargeError with limit %d", err, limit)
	}
	if !strings.Contains(err.Error(), "Bucket ns/b") || !strings.Contains(err.Error(), "at most") {
		t.Errorf("message %q should name the source and the limit", err)
	}
	if _, err := (Fetcher{MaxSize: int64(len(data))}).Download(context.Background(), "Bucket ns/b", Artifact{URL: url, Digest: sha(data)}); err != nil {
		t.Fatalf("Download at the limit: %v", err)
	}
	if got := (&TooLargeError{Source: "x", Size: -1, Limit: MaxArtifactSize}).Error(); !strings.Contains(got, "768 KiB") {
		t.Errorf("the default limit reads %q; want it in KiB", got)
	}
}

func TestExtractAndSub(t *testing.T) {
	data := tarball(t, map[string]string{
		"./README.md":         "# repo",
		"./deploy/a.yaml":     "a",
		"./deploy/sub/b.yml":  "b",
		"./deploy/notes.txt":  "n",
		"./deployment/c.yaml": "c",
		"./other/d.json":      "{}",
	}, &tar.Header{Name: "./deploy/link.yaml", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"},
		&tar.Header{Name: "./deploy/", Typeflag: tar.TypeDir, Mode: 0o755})
	files, err := Extract(data)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := files.Names(), []string{"README.md", "deploy/a.yaml", "deploy/notes.txt", "deploy/sub/b.yml", "deployment/c.yaml", "other/d.json"}; !slices.Equal(got, want) {
		t.Fatalf("Extract names %v; want %v (symlinks and directories left out)", got, want)
	}
	for _, p := range []string{"deploy", "./deploy", "/deploy/", "deploy/."} {
		sub, err := files.Sub(p)
		if err != nil {
			t.Fatalf("Sub(%q): %v", p, err)
		}
		if got, want := sub.Manifests().Names(), []string{"a.yaml", "sub/b.yml"}; !slices.Equal(got, want) {
			t.Errorf("Sub(%q).Manifests() = %v; want %v (not deployment/, not notes.txt)", p, got, want)
		}
	}
	for _, p := range []string{"", ".", "./", "/"} {
		if sub, err := files.Sub(p); err != nil || len(sub) != len(files) {
			t.Errorf("Sub(%q) = %d files, %v; want the whole artifact", p, len(sub), err)
		}
	}
	if sub, err := files.Sub("other/d.json"); err != nil || !slices.Equal(sub.Names(), []string{"d.json"}) {
		t.Errorf("Sub of a file = %v, %v; want that file alone", sub.Names(), err)
	}
	if _, err := files.Sub("missing"); !errors.Is(err, ErrPathNotFound) {
		t.Errorf("Sub(missing) = %v; want ErrPathNotFound", err)
	}
	if _, err := files.Sub("../etc"); err == nil {
		t.Error("Sub(../etc) succeeded; want an error for a path leaving the artifact")
	}
	if b, err := fs.ReadFile(files.FS(), "deploy/sub/b.yml"); err != nil || string(b) != "b" {
		t.Errorf("FS read %q, %v", b, err)
	}
}

func TestExtractRefusesEscapesAndBombs(t *testing.T) {
	if _, err := Extract(tarball(t, map[string]string{"../../evil.yaml": "x"})); err == nil {
		t.Error("Extract of ../../evil.yaml succeeded; want an error")
	}
	if _, err := Extract([]byte("not a tarball")); err == nil {
		t.Error("Extract of garbage succeeded")
	}
	// Zeros compress to almost nothing: a small tarball that unpacks beyond the limit.
	big := tarball(t, map[string]string{"zeros": strings.Repeat("\x00", MaxExtractedSize+1)})
	if len(big) > MaxArtifactSize {
		t.Fatalf("the test tarball is %d bytes, above the download limit", len(big))
	}
	if _, err := Extract(big); err == nil || !strings.Contains(err.Error(), "unpacks to more than") {
		t.Errorf("Extract of a bomb: %v; want the unpacked size limit", err)
	}
}
