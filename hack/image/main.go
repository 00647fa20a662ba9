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

// Command image builds Stagecoach's container image without a container runtime: a static
// stagecoach binary per platform, CA certificates and a non-root user, on an empty base. It
// writes an OCI image layout (an index with one image per platform) and can push the same index
// to a registry.
//
//	go run ./image -out DIR [-platforms linux/amd64,linux/arm64] [-push REF] [-version V]
//
// Run from hack/image (`make image` does); the binary is built from the repository root. The image is reproducible:
// file times and the creation time come from SOURCE_DATE_EPOCH (zero when unset).
package main

import (
	"archive/tar"
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The user the controller runs as: not root, and the same number distroless images use.
const (
	uid      = 65532
	binary   = "/usr/local/bin/stagecoach"
	caBundle = "/etc/ssl/certs/ca-certificates.crt"
)

func main() {
	out := flag.String("out", "", "directory to write the OCI image layout to (replaced)")
	platforms := flag.String("platforms", "linux/amd64", "comma-separated os/arch pairs")
	push := flag.String("push", "", "also push the image index to this reference (registry/repository:tag)")
	version := flag.String("version", "dev", "version stamped into the binary and the image labels")
	root := flag.String("root", "../..", "the repository root, where ./cmd/stagecoach is")
	insecure := flag.Bool("insecure", false, "push over plain HTTP")
	flag.Parse()
	if *out == "" {
		log.Fatal("-out is required")
	}
	created := time.Unix(0, 0).UTC()
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		secs, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			log.Fatalf("SOURCE_DATE_EPOCH=%q: %v", s, err)
		}
		created = time.Unix(secs, 0).UTC()
	}
	ca, err := os.ReadFile(caBundle)
	if err != nil {
		log.Fatalf("reading the CA certificates (Debian: apt install ca-certificates): %v", err)
	}

	var index v1.ImageIndex = empty.Index
	index = mutate.IndexMediaType(index, types.OCIImageIndex)
	for _, p := range strings.Split(*platforms, ",") {
		platform, err := v1.ParsePlatform(p)
		if err != nil {
			log.Fatalf("platform %q: %v", p, err)
		}
		img, err := buildImage(*root, *platform, *version, created, ca)
		if err != nil {
			log.Fatalf("%s: %v", p, err)
		}
		index = mutate.AppendManifests(index, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: platform}})
	}
	if err := os.RemoveAll(*out); err != nil {
		log.Fatal(err)
	}
	if _, err := layout.Write(*out, index); err != nil {
		log.Fatalf("writing %s: %v", *out, err)
	}
	digest, err := index.Digest()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("wrote %s: %s (%s)\n", *out, digest, *platforms)
	if *push != "" {
		var opts []name.Option
		if *insecure {
			opts = append(opts, name.Insecure)
		}
		ref, err := name.ParseReference(*push, opts...)
		if err != nil {
			log.Fatalf("-push %q: %v", *push, err)
		}
		if err := remote.WriteIndex(ref, index); err != nil {
			log.Fatalf("pushing to %s: %v", ref, err)
		}
		fmt.Printf("pushed %s@%s\n", ref, digest)
	}
}

// buildImage builds the binary for one platform and wraps it in an image.
func buildImage(root string, p v1.Platform, version string, created time.Time, ca []byte) (v1.Image, error) {
	dir, err := os.MkdirTemp("", "stagecoach-image-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	bin := filepath.Join(dir, "stagecoach")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X main.version="+version, "-o", bin, "./cmd/stagecoach")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.OS, "GOARCH="+p.Architecture)
	if p.Variant != "" && p.Architecture == "arm" {
		cmd.Env = append(cmd.Env, "GOARM="+strings.TrimPrefix(p.Variant, "v"))
	}
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go build: %w", err)
	}
	exe, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	files, err := rootfs(exe, ca, created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(files)), nil },
		tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), layer)
	if err != nil {
		return nil, err
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Created = v1.Time{Time: created}
	cf.OS, cf.Architecture, cf.Variant = p.OS, p.Architecture, p.Variant
	cf.Config = v1.Config{
		Entrypoint: []string{binary, "controller"},
		User:       fmt.Sprintf("%d:%d", uid, uid),
		WorkingDir: "/",
		Env:        []string{"SSL_CERT_FILE=" + caBundle},
		Labels: map[string]string{
			"org.opencontainers.image.title":    "stagecoach",
			"org.opencontainers.image.version":  version,
			"org.opencontainers.image.source":   "https://github.com/stagecoach-dev/stagecoach",
			"org.opencontainers.image.licenses": "Apache-2.0",
		},
	}
	return mutate.ConfigFile(img, cf)
}

// rootfs is the image's only layer: the binary, the CA bundle, the user and a writable /tmp.
func rootfs(exe, ca []byte, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dirs := []string{"etc/", "etc/ssl/", "etc/ssl/certs/", "home/", "home/nonroot/", "tmp/", "usr/", "usr/local/", "usr/local/bin/"}
	for _, d := range dirs {
		mode, owner := int64(0o755), 0
		switch d {
		case "tmp/":
			mode = 0o1777
		case "home/nonroot/":
			mode, owner = 0o700, uid
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d, Mode: mode, Uid: owner, Gid: owner, ModTime: mtime}); err != nil {
			return nil, err
		}
	}
	files := []struct {
		name string
		mode int64
		data []byte
	}{
		{"etc/passwd", 0o644, []byte(fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", uid, uid))},
		{"etc/group", 0o644, []byte(fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", uid))},
		{strings.TrimPrefix(caBundle, "/"), 0o644, ca},
		{strings.TrimPrefix(binary, "/"), 0o755, exe},
	}
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: f.name, Mode: f.mode, Size: int64(len(f.data)), ModTime: mtime}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
