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
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// WithMetadata adds labels and annotations to every object of the release (a profile's
// extraLabels and extraAnnotations), through a post-renderer. They count in the release's spec
// hash, so changing them upgrades the release.
func WithMetadata(labels, annotations map[string]string) DeployOption {
	return func(c *deployCall) {
		if len(labels) > 0 || len(annotations) > 0 {
			c.metadata = &metadataRenderer{labels: labels, annotations: annotations}
		}
	}
}

// metadataRenderer is a Helm post-renderer setting labels and annotations on every object.
type metadataRenderer struct {
	labels, annotations map[string]string
}

// Run rewrites each YAML document of the rendered manifests; empty documents are dropped.
func (m *metadataRenderer) Run(rendered *bytes.Buffer) (*bytes.Buffer, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(rendered, 4096)
	out := &bytes.Buffer{}
	for {
		obj := map[string]any{}
		if err := dec.Decode(&obj); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("adding extraLabels and extraAnnotations: %w", err)
		}
		if len(obj) == 0 {
			continue
		}
		u := &unstructured.Unstructured{Object: obj}
		u.SetLabels(merged(u.GetLabels(), m.labels))
		u.SetAnnotations(merged(u.GetAnnotations(), m.annotations))
		data, err := yaml.Marshal(u.Object)
		if err != nil {
			return nil, err
		}
		out.WriteString("---\n")
		out.Write(data)
	}
}

// hashInput is what the renderer adds to the release's spec hash.
func (m *metadataRenderer) hashInput() string {
	if m == nil {
		return ""
	}
	var b bytes.Buffer
	for _, kv := range []map[string]string{m.labels, m.annotations} {
		for _, k := range slices.Sorted(maps.Keys(kv)) {
			fmt.Fprintf(&b, "%s=%s\x00", k, kv[k])
		}
		b.WriteByte(0)
	}
	return b.String()
}

// merged returns have with extra set over it, nil when both are empty.
func merged(have, extra map[string]string) map[string]string {
	if len(extra) == 0 {
		return have
	}
	out := maps.Clone(have)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, extra)
	return out
}
