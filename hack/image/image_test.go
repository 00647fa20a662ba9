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

package main

import (
	"archive/tar"
	"bytes"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// TestImage builds the image for this machine's platform, pushes it to a registry on the
// loopback interface, pulls it back, and runs the binary it holds.
func TestImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the stagecoach binary")
	}
	reg := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(reg.Close)
	out := filepath.Join(t.TempDir(), "image")
	host := strings.TrimPrefix(reg.URL, "http://")
	platform := "linux/" + goEnv(t, "GOARCH")
	cmd := exec.Command("go", "run", ".", "-out", out, "-platforms", platform, "-version", "v0.0.0-test",
		"-push", host+"/stagecoach:test", "-insecure")
	cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH=1700000000")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}

	// The layout on disk and the registry hold the same index.
	local, err := layout.ImageIndexFromPath(out)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := name.ParseReference(host+"/stagecoach:test", name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	pushed, err := remote.Index(ref)
	if err != nil {
		t.Fatal(err)
	}
	localDigest, _ := local.Digest()
	pushedDigest, _ := pushed.Digest()
	if localDigest != pushedDigest {
		t.Errorf("layout %s, registry %s", localDigest, pushedDigest)
	}
	im, err := pushed.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1 || im.Manifests[0].Platform == nil || im.Manifests[0].Platform.String() != platform {
		t.Fatalf("index manifests %+v, want one for %s", im.Manifests, platform)
	}
	img, err := pushed.Image(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cf.Config.Entrypoint, " "); got != "/usr/local/bin/stagecoach controller" {
		t.Errorf("entrypoint %q", got)
	}
	if cf.Config.User != "65532:65532" || cf.Created.Time.Unix() != 1700000000 || cf.Config.Labels["org.opencontainers.image.version"] != "v0.0.0-test" {
		t.Errorf("user %q, created %v, labels %v", cf.Config.User, cf.Created, cf.Config.Labels)
	}

	files := layerFiles(t, img)
	for _, f := range []string{"etc/passwd", "etc/ssl/certs/ca-certificates.crt", "tmp/"} {
		if _, ok := files[f]; !ok {
			t.Errorf("the image has no %s", f)
		}
	}
	// The binary is static: it runs outside the image and knows its version.
	exe := filepath.Join(t.TempDir(), "stagecoach")
	if err := os.WriteFile(exe, files["usr/local/bin/stagecoach"], 0o755); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(exe, "--version").CombinedOutput(); err != nil || !strings.Contains(string(b), "v0.0.0-test") {
		t.Errorf("stagecoach --version: %v %s", err, b)
	}
	if b, err := exec.Command("ldd", exe).CombinedOutput(); err == nil && !strings.Contains(string(b), "not a dynamic executable") {
		t.Errorf("the binary is linked dynamically:\n%s", b)
	}
}

func goEnv(t *testing.T, key string) string {
	b, err := exec.Command("go", "env", key).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// layerFiles reads every file of the image's layers, by path; directories map to nil.
func layerFiles(t *testing.T, img v1.Image) map[string][]byte {
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, l := range layers {
		rc, err := l.Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(rc)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if _, err := io.Copy(&buf, tr); err != nil {
				t.Fatal(err)
			}
			if h.ModTime.Unix() != 1700000000 {
				t.Errorf("%s has time %v, not SOURCE_DATE_EPOCH", h.Name, h.ModTime)
			}
			files[h.Name] = buf.Bytes()
		}
		_ = rc.Close()
	}
	return files
}
