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

package kustomize

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// MaxSize bounds a kustomization's files, compressed and uncompressed alike, as Sveltos bounds
// the tarballs it extracts.
const MaxSize = 20 << 20

// Files are the files of a kustomization source, by slash-separated path relative to its root.
// A ConfigMap's tarball gives them (ReadTarball), and so can any fs.FS (FilesFrom).
type Files map[string][]byte

// BuildError is a kustomization that cannot be built: a bad tarball, a missing path, kustomize's
// own errors. Retrying the same files cannot fix it.
type BuildError struct{ Err error }

func (e *BuildError) Error() string { return e.Err.Error() }
func (e *BuildError) Unwrap() error { return e.Err }

func buildErr(format string, args ...any) error { return &BuildError{Err: fmt.Errorf(format, args...)} }

// ReadTarball reads a tar archive, gzip-compressed or not, as Sveltos accepts a
// kustomization in a ConfigMap or Secret. Directories are implied by the files' paths; links
// and other special entries are left out, and so are macOS' resource-fork files.
func ReadTarball(data []byte) (Files, error) {
	if len(data) > MaxSize {
		return nil, buildErr("the archive is %d bytes, above the limit of %d", len(data), MaxSize)
	}
	var r io.Reader = bufio.NewReader(bytes.NewReader(data))
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		gz, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, buildErr("reading the gzip archive: %w", err)
		}
		defer func() { _ = gz.Close() }()
		r = gz
	}
	files := Files{}
	total := 0
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, buildErr("reading the tar archive: %w", err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		name := cleanPath(hdr.Name)
		if name == "" {
			continue
		}
		if base := path.Base(name); strings.HasPrefix(base, "._") || strings.HasPrefix(name, "__MACOSX/") {
			continue
		}
		content, err := io.ReadAll(io.LimitReader(tr, int64(MaxSize-total)+1))
		if err != nil {
			return nil, buildErr("reading %s from the archive: %w", name, err)
		}
		total += len(content)
		if total > MaxSize {
			return nil, buildErr("the archive's files hold more than %d bytes", MaxSize)
		}
		files[name] = content
	}
	if len(files) == 0 {
		return nil, buildErr("the archive holds no files")
	}
	return files, nil
}

// cleanPath makes a path relative to the source's root, "" for the root itself. Like a path
// resolved from the root, it cannot leave it: leading ".." are dropped.
func cleanPath(p string) string {
	return strings.TrimPrefix(path.Clean("/"+p), "/")
}

// FilesFrom reads every regular file of fsys, within MaxSize.
func FilesFrom(fsys fs.FS) (Files, error) {
	files := Files{}
	total := 0
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		content, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		if total += len(content); total > MaxSize {
			return buildErr("the files hold more than %d bytes", MaxSize)
		}
		files[p] = content
		return nil
	})
	return files, err
}

// BuildOptions change one build.
type BuildOptions struct {
	// Components, relative to the path, are added to the kustomization's components.
	Components []string
}

// kustomize's builds and patches share state that is not safe for concurrent use
// (kubernetes-sigs/kustomize#3659): one at a time.
var buildMu sync.Mutex

// Build runs kustomize build on dir (slash-separated, relative to the files' root; "" or "."
// is the root) and returns the objects it outputs, in kustomize's order. A directory without a
// kustomization file gets one listing its manifests, as Flux does. Plugins are disabled, and
// files may refer to any other file of the source.
func Build(files Files, dir string, opts BuildOptions) ([]*unstructured.Unstructured, error) {
	dir = cleanPath(dir)
	fsys := filesys.MakeFsInMemory()
	for p, content := range files {
		if err := fsys.WriteFile("/"+p, content); err != nil {
			return nil, buildErr("%s: %w", p, err)
		}
	}
	root := "/" + dir
	if !fsys.IsDir(root) {
		return nil, buildErr("path %q is not a directory of the kustomization's source", dir)
	}
	if err := prepareKustomization(fsys, root, opts.Components); err != nil {
		return nil, err
	}
	if err := refuseRemote(fsys, root, map[string]bool{}); err != nil {
		return nil, err
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	k := krusty.MakeKustomizer(&krusty.Options{
		LoadRestrictions: types.LoadRestrictionsNone,
		PluginConfig:     types.DisabledPluginConfig(),
	})
	m, err := k.Run(fsys, root)
	if err != nil {
		return nil, &BuildError{Err: fmt.Errorf("kustomize build of %q: %w", displayPath(dir), err)}
	}
	return toUnstructured(m)
}

func displayPath(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}

// prepareKustomization adds components to the kustomization file in root, or writes one
// listing the manifests under root when there is none.
func prepareKustomization(fsys filesys.FileSystem, root string, components []string) error {
	var file string
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		if fsys.Exists(path.Join(root, name)) {
			file = path.Join(root, name)
			break
		}
	}
	kust := map[string]any{}
	if file == "" {
		file = path.Join(root, konfig.DefaultKustomizationFileName())
		resources, err := manifestsUnder(fsys, root)
		if err != nil {
			return err
		}
		kust = map[string]any{"apiVersion": types.KustomizationVersion, "kind": types.KustomizationKind, "resources": resources}
	} else if len(components) > 0 {
		data, err := fsys.ReadFile(file)
		if err != nil {
			return buildErr("reading %s: %w", file, err)
		}
		if err := yaml.Unmarshal(data, &kust); err != nil {
			return buildErr("%s is not YAML: %w", strings.TrimPrefix(file, "/"), err)
		}
	} else {
		return nil
	}
	if len(components) > 0 {
		have, _ := kust["components"].([]any)
		for _, c := range components {
			have = append(have, c)
		}
		kust["components"] = have
	}
	data, err := yaml.Marshal(kust)
	if err != nil {
		return err
	}
	return fsys.WriteFile(file, data)
}

// manifestsUnder lists the YAML and JSON files under root, relative to it.
func manifestsUnder(fsys filesys.FileSystem, root string) ([]any, error) {
	var out []string
	err := fsys.Walk(root, func(p string, info fs.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		switch path.Ext(p) {
		case ".yaml", ".yml", ".json":
			out = append(out, strings.TrimPrefix(strings.TrimPrefix(p, root), "/"))
		}
		return nil
	})
	if err != nil {
		return nil, buildErr("listing %s: %w", root, err)
	}
	if len(out) == 0 {
		return nil, buildErr("path %q holds neither a kustomization nor manifests", strings.TrimPrefix(root, "/"))
	}
	slices.Sort(out)
	res := make([]any, len(out))
	for i, p := range out {
		res[i] = p
	}
	return res, nil
}
