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
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
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
		if head.Kind == "Secret" {
			doc = redactSecret(doc)
		}
		objects[head.Kind+"/"+head.Metadata.Namespace+"/"+head.Metadata.Name] = strings.TrimSpace(doc) + "\n"
	}
	return objects
}

// redactionKey keys the tags that stand in for Secret values in diffs. It is random per process:
// a changed value shows as a changed tag, but a tag cannot be matched against guesses.
var redactionKey = func() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k) // crypto/rand.Read never fails
	return k
}()

// redactSecret replaces the values of a rendered Secret's data and stringData, and the
// last-applied annotation that would repeat them, with tags. A document that does not parse is
// dropped whole rather than shown.
func redactSecret(doc string) string {
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
		return "# a Secret that could not be parsed: not shown\n"
	}
	for _, field := range []string{"data", "stringData"} {
		values, _ := obj[field].(map[string]any)
		for k, v := range values {
			values[k] = redactedTag(fmt.Sprint(v))
		}
	}
	if md, ok := obj["metadata"].(map[string]any); ok {
		if ann, ok := md["annotations"].(map[string]any); ok {
			if v, ok := ann[lastAppliedAnnotation]; ok {
				ann[lastAppliedAnnotation] = redactedTag(fmt.Sprint(v))
			}
		}
	}
	out, err := yaml.Marshal(obj)
	if err != nil {
		return "# a Secret that could not be redacted: not shown\n"
	}
	return string(out)
}

const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

func redactedTag(value string) string {
	mac := hmac.New(sha256.New, redactionKey)
	mac.Write([]byte(value))
	return fmt.Sprintf("(redacted %x)", mac.Sum(nil)[:4])
}
