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

package plan

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestWaves(t *testing.T) {
	for _, tc := range []struct {
		clusters []string
		limit    int
		want     string
	}{
		{nil, 0, "[]"},
		{[]string{"a", "b", "c"}, 0, "[[a b c]]"},
		{[]string{"a", "b", "c"}, 1, "[[a] [b] [c]]"},
		{[]string{"a", "b", "c"}, 2, "[[a b] [c]]"},
		{[]string{"a", "b", "c"}, 5, "[[a b c]]"},
	} {
		if got := fmt.Sprint(Waves(tc.clusters, tc.limit)); got != tc.want {
			t.Errorf("Waves(%v, %d) = %s, want %s", tc.clusters, tc.limit, got, tc.want)
		}
	}
	// A wave may not be appended to in place of the next one.
	w := Waves([]string{"a", "b", "c"}, 1)
	_ = append(w[0], "x")
	if w[1][0] != "b" {
		t.Errorf("waves share their backing array: %v", w)
	}
}

// TestWriteText renders a plan with every part the text shows, against testdata/text.golden.
func TestWriteText(t *testing.T) {
	p := &Plan{Kind: "ClusterPromotion", Name: "kyverno", Stages: []Stage{
		{Name: "dev", Waves: [][]string{{"dev/dev1", "dev/dev2"}}, Changes: map[string]Change{
			"dev/dev1": objectsChange(nil),
			"dev/dev2": {Summary: "no preview: connection refused", Error: "connection refused"},
		}},
		{Name: "prod", Waves: [][]string{{"prod/eu"}, {"prod/us"}}, Unavailable: map[string]string{"prod/ap": "paused"}, Changes: map[string]Change{
			"prod/eu": {Summary: "1 to create, 1 to update; upgrade kyverno/kyverno 3.5.2 -> 3.6.2",
				Objects: []ObjectChange{
					{Action: "Create", Object: "Namespace policies"},
					{Action: "Update", Object: "ConfigMap policies/settings", Changes: []string{`~ data.mode: "audit" -> "enforce"`}},
				},
				Releases: []ReleaseChange{{Action: "Upgrade", Release: "kyverno/kyverno", From: "3.5.2", To: "3.6.2"}, {Action: "NoChange", Release: "kyverno/other"}},
			},
		}},
	}}
	var b bytes.Buffer
	if err := WriteText(&b, []*Plan{p}); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "text.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if b.String() != string(want) {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestDecode(t *testing.T) {
	objs, err := Decode([]byte(`apiVersion: v1
kind: ConfigMap
metadata: {name: content}
---
apiVersion: config.projectsveltos.io/v1beta1
kind: ClusterPromotion
metadata: {name: p}
spec:
  stages: [{name: dev}]
---
{"apiVersion": "placement.kubernetes-fleet.io/v1beta1", "kind": "ClusterStagedUpdateRun", "metadata": {"name": "r"}, "spec": {"placementName": "x"}}
`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range objs {
		got = append(got, fmt.Sprintf("%T %s", o, o.GetName()))
	}
	if fmt.Sprint(got) != "[*v1beta1.ClusterPromotion p *v1beta1.ClusterStagedUpdateRun r]" {
		t.Errorf("decoded %v", got)
	}
	if _, err := Decode([]byte("apiVersion: config.projectsveltos.io/v1beta1\nkind: ClusterPromotion\nmetadata: {name: p}\nspec: {stagez: []}\n")); err == nil {
		t.Error("an unknown field was accepted")
	}
}

// TestDecodeProfile: a namespaced Profile is planned like a ClusterProfile.
func TestDecodeProfile(t *testing.T) {
	objs, err := Decode([]byte("apiVersion: config.projectsveltos.io/v1beta1\nkind: Profile\nmetadata: {name: web, namespace: eng}\nspec: {maxUpdate: 1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 || fmt.Sprintf("%T %s/%s", objs[0], objs[0].GetNamespace(), objs[0].GetName()) != "*v1beta1.Profile eng/web" {
		t.Errorf("decoded %v", objs)
	}
}
