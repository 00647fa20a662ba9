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
	"path"
	"strings"

	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// refuseRemote fails when the kustomization in dir, or one it builds on, refers to anything
// outside the source: a git repository or an HTTP(S) URL, which kustomize would clone or
// download on every build. Their content would change without a new version, and the
// controller would fetch whatever a profile names; everything a build reads must be in the
// source, frozen with the version.
func refuseRemote(fsys filesys.FileSystem, dir string, seen map[string]bool) error {
	if seen[dir] {
		return nil
	}
	seen[dir] = true
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		file := path.Join(dir, name)
		if !fsys.Exists(file) {
			continue
		}
		data, err := fsys.ReadFile(file)
		if err != nil {
			return buildErr("reading %s: %w", strings.TrimPrefix(file, "/"), err)
		}
		var k map[string]any
		if yaml.Unmarshal(data, &k) != nil {
			return nil // kustomize reports it
		}
		for _, ref := range pathsOf(k) {
			if isRemote(ref) {
				return buildErr("%s refers to %q, outside the kustomization's source: Stagecoach builds only from the files of "+
					"the source (so that each version's content is frozen); put the remote base in the archive", strings.TrimPrefix(file, "/"), ref)
			}
			if next := path.Join(dir, ref); fsys.IsDir(next) {
				if err := refuseRemote(fsys, next, seen); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return nil
}

// pathsOf lists the references a kustomization's fields hold to other files or directories.
func pathsOf(k map[string]any) []string {
	var out []string
	add := func(v any) {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	for _, field := range []string{"resources", "bases", "components", "crds", "configurations", "generators", "transformers",
		"validators", "patchesStrategicMerge"} {
		if list, ok := k[field].([]any); ok {
			for _, v := range list {
				add(v)
			}
		}
	}
	for _, field := range []string{"patches", "patchesJson6902", "replacements"} {
		if list, ok := k[field].([]any); ok {
			for _, v := range list {
				if m, ok := v.(map[string]any); ok {
					add(m["path"])
				}
			}
		}
	}
	if m, ok := k["openapi"].(map[string]any); ok {
		add(m["path"])
	}
	return out
}

// isRemote reports references kustomize would fetch: URLs, go-getter and SCP-style git
// addresses, and the github.com shorthand.
func isRemote(ref string) bool {
	ref = strings.TrimSpace(ref)
	if strings.Contains(ref, "\n") {
		return false // an inline patch
	}
	first, _, _ := strings.Cut(ref, "/")
	return strings.Contains(ref, "://") || strings.HasPrefix(ref, "git::") || strings.HasPrefix(ref, "git@") ||
		(strings.Contains(first, "@") && strings.Contains(first, ":")) || first == "github.com"
}
