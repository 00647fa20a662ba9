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
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"testing/fstest"
)

// MaxExtractedSize bounds the files of one artifact once unpacked, so that a small tarball
// cannot unpack into more than the controller's memory can hold.
const MaxExtractedSize = 32 << 20

// Files is an artifact unpacked in memory: regular files by slash-separated path relative to the
// artifact's root, with no leading "./". Directories are implied by the paths; symbolic links
// and other special entries are left out, as they could point outside the artifact.
type Files map[string][]byte

// Extract unpacks a gzipped tarball, as source-controller serves every artifact.
func Extract(tarball []byte) (Files, error) {
	zr, err := gzip.NewReader(bytes.NewReader(tarball))
	if err != nil {
		return nil, fmt.Errorf("the artifact is not a gzipped tarball: %w", err)
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	files := Files{}
	var total int64
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading the artifact's tarball: %w", err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		name, ok := clean(hdr.Name)
		if !ok {
			return nil, fmt.Errorf("the artifact holds %q, a path outside the artifact", hdr.Name)
		}
		if total+hdr.Size > MaxExtractedSize {
			return nil, fmt.Errorf("the artifact unpacks to more than %s; Stagecoach reads at most that", byteSize(MaxExtractedSize))
		}
		data, err := io.ReadAll(io.LimitReader(tr, hdr.Size))
		if err != nil {
			return nil, fmt.Errorf("reading %s from the artifact's tarball: %w", name, err)
		}
		total += int64(len(data))
		files[name] = data
	}
}

// clean makes an archive or user path relative to the artifact's root, as "a/b"; "" is the
// root. It reports false for a path that leaves the root.
func clean(p string) (string, bool) {
	p = strings.TrimLeft(path.Clean(strings.TrimSpace(p)), "/")
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", false
	}
	if p == "." {
		p = ""
	}
	return p, true
}

// ErrPathNotFound is returned by Sub for a path the artifact does not hold.
var ErrPathNotFound = errors.New("path not found")

// Sub selects the files under dir (a directory of the artifact, or one file), with paths
// relative to it, as Sveltos reads a reference's path: "", "." and "./" mean the whole artifact,
// and a leading "/" or "./" is ignored.
func (f Files) Sub(dir string) (Files, error) {
	d, ok := clean(dir)
	if !ok {
		return nil, fmt.Errorf("path %q leaves the artifact", dir)
	}
	if d == "" {
		return f, nil
	}
	if data, ok := f[d]; ok {
		return Files{path.Base(d): data}, nil
	}
	out := Files{}
	for name, data := range f {
		if rest, ok := strings.CutPrefix(name, d+"/"); ok {
			out[rest] = data
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %q", ErrPathNotFound, dir)
	}
	return out, nil
}

// Manifests keeps the files whose names end in .yaml, .yml or .json: the manifests a policyRef
// deploys.
func (f Files) Manifests() Files {
	out := Files{}
	for name, data := range f {
		switch path.Ext(name) {
		case ".yaml", ".yml", ".json":
			out[name] = data
		}
	}
	return out
}

// Names lists the paths in order.
func (f Files) Names() []string { return slices.Sorted(maps.Keys(f)) }

// FS serves the files as a read-only file system, for builders (Kustomize) that read a tree.
func (f Files) FS() fs.FS {
	m := fstest.MapFS{}
	for name, data := range f {
		m[name] = &fstest.MapFile{Data: data, Mode: 0o444}
	}
	return m
}
