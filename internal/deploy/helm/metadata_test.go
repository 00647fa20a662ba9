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
	"strings"
	"testing"
)

func TestMetadataRenderer(t *testing.T) {
	m := &metadataRenderer{labels: map[string]string{"team": "platform"}, annotations: map[string]string{"note": "x"}}
	in := bytes.NewBufferString(`---
# Source: webapp/templates/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: info
  labels: {app: web, team: old}
---
---
apiVersion: v1
kind: Service
metadata:
  name: web
`)
	out, err := m.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(strings.TrimPrefix(out.String(), "---\n"), "---\n")
	if len(docs) != 2 {
		t.Fatalf("%d documents, want 2:\n%s", len(docs), out)
	}
	for _, d := range docs {
		if !strings.Contains(d, "team: platform") || !strings.Contains(d, "note: x") {
			t.Errorf("document without the extra metadata:\n%s", d)
		}
	}
	if !strings.Contains(docs[0], "app: web") {
		t.Errorf("the chart's own label is gone:\n%s", docs[0])
	}
	if _, err := m.Run(bytes.NewBufferString("kind: [")); err == nil {
		t.Error("a manifest that does not parse gave no error")
	}
	if (*metadataRenderer)(nil).hashInput() != "" {
		t.Error("no metadata must not change a release's spec hash")
	}
}
