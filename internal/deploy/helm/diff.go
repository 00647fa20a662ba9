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
	"maps"
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"
	"sigs.k8s.io/yaml"
)

// manifestDiff compares two rendered manifests object by object (matched by kind, namespace
// and name, so that Helm's ordering of documents does not matter) and returns one unified diff
// per object that changed, appeared or disappeared.
func manifestDiff(oldManifest, newManifest string) string {
	before, after := manifestObjects(oldManifest), manifestObjects(newManifest)
	keys := slices.Collect(maps.Keys(before))
	for k := range after {
		if _, ok := before[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out strings.Builder
	for _, k := range keys {
		a, b := before[k], after[k]
		if a == b {
			continue
		}
		from, to := "a/"+k, "b/"+k
		if a == "" {
			from = "/dev/null"
		}
		if b == "" {
			to = "/dev/null"
		}
		text, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
			A: difflib.SplitLines(a), B: difflib.SplitLines(b), FromFile: from, ToFile: to, Context: 3,
		})
		out.WriteString(text)
	}
	return out.String()
}

// manifestObjects splits a manifest into its objects, keyed "Kind/namespace/name".
func manifestObjects(manifest string) map[string]string {
	objects := map[string]string{}
	for _, doc := range releaseutil.SplitManifests(manifest) {
		var head struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name      string `json:"name"`
				Namespace string `json:"namespace"`
			} `json:"metadata"`
		}
		if yaml.Unmarshal([]byte(doc), &head) != nil || head.Kind == "" {
			continue
		}
		objects[head.Kind+"/"+head.Metadata.Namespace+"/"+head.Metadata.Name] = strings.TrimSpace(doc) + "\n"
	}
	return objects
}
