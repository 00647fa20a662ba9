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

package freeze

import (
	"bytes"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
)

func configMap(name, value string) Content {
	ref := Ref{Kind: "ConfigMap", Namespace: "default", Name: name}
	return Content{Ref: ref, Object: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Data: map[string]string{"k": value}}}
}

func TestDigestFollowsContent(t *testing.T) {
	a := Digest([]Content{configMap("a", "v1")})
	for name, other := range map[string][]Content{
		"an edit":        {configMap("a", "v2")},
		"another object": {configMap("b", "v1")},
		"a deletion":     {{Ref: configMap("a", "v1").Ref}},
		"nothing":        nil,
	} {
		if bytes.Equal(a, Digest(other)) {
			t.Errorf("%s leaves the digest as it was", name)
		}
	}
	if !bytes.Equal(a, Digest([]Content{configMap("a", "v1")})) {
		t.Error("the same content gives another digest")
	}
}

func TestCopyName(t *testing.T) {
	owner := Owner{Object: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "rollout"}}, Kind: "ClusterPromotion"}
	other := Owner{Object: owner.Object, Kind: "ClusterProfile"}
	v1, v2 := copyName(configMap("settings", "v1"), owner), copyName(configMap("settings", "v2"), owner)
	if !strings.HasPrefix(v1, "settings-") || len(v1) != len("settings-")+10 || v1 == v2 {
		t.Errorf("copy names %q and %q", v1, v2)
	}
	if v1 != copyName(configMap("settings", "v1"), owner) || v1 == copyName(configMap("settings", "v1"), other) {
		t.Error("a copy's name must follow its content and its owner")
	}
	long := copyName(configMap(strings.Repeat("x", 253), "v1"), owner)
	if len(long) > 253 {
		t.Errorf("copy name of %d characters", len(long))
	}
}

func TestEncodeDecode(t *testing.T) {
	names := map[Ref]string{{Kind: "ConfigMap", Namespace: "default", Name: "a"}: "a-0123456789", {Kind: "Secret", Namespace: "x", Name: "s"}: "s-9876543210"}
	got := Decode(Encode(names))
	if len(got) != len(names) {
		t.Fatalf("decoded %v", got)
	}
	for ref, name := range names {
		if got[ref] != name {
			t.Errorf("%s: %q, want %q", ref, got[ref], name)
		}
	}
	if Encode(nil) != nil || len(Decode(map[string]string{"nonsense": "x"})) != 0 {
		t.Error("empty or malformed content is not empty")
	}
}

func TestFreezeSpec(t *testing.T) {
	spec := &configv1beta1.Spec{
		PolicyRefs: []configv1beta1.PolicyRef{{Kind: "ConfigMap", Namespace: "default", Name: "a"}, {Kind: "ConfigMap", Name: "per-cluster"}},
		HelmCharts: []configv1beta1.HelmChart{{ValuesFrom: []configv1beta1.ValueFrom{{Kind: "Secret", Namespace: "x", Name: "s"}}}},
		KustomizationRefs: []configv1beta1.KustomizationRef{
			{Kind: "ConfigMap", Namespace: "k", Name: "tarball", ValuesFrom: []configv1beta1.ValueFrom{{Kind: "ConfigMap", Namespace: "k", Name: "values"}}},
			{Kind: "GitRepository", Namespace: "flux-system", Name: "repo"},
		},
		PatchesFrom: []configv1beta1.ValueFrom{{Kind: "Secret", Namespace: "p", Name: "patches"}},
	}
	refs := SpecRefs(spec)
	if len(refs) != 6 {
		t.Fatalf("refs %v: the reference without a namespace is read live, and every other one frozen", refs)
	}
	shared := *spec // shares its lists, as a spec made from a promotion's profileSpec does
	names := map[Ref]string{}
	for _, r := range refs {
		names[r] = r.Name + "-0123456789"
	}
	FreezeSpec(spec, names)
	if spec.PolicyRefs[0].Name != "a-0123456789" || spec.PolicyRefs[1].Name != "per-cluster" || spec.HelmCharts[0].ValuesFrom[0].Name != "s-0123456789" ||
		spec.KustomizationRefs[0].Name != "tarball-0123456789" || spec.KustomizationRefs[0].ValuesFrom[0].Name != "values-0123456789" ||
		spec.KustomizationRefs[1].Kind != "ConfigMap" || spec.KustomizationRefs[1].Name != "repo-0123456789" || spec.PatchesFrom[0].Name != "patches-0123456789" {
		t.Errorf("frozen spec %+v", spec)
	}
	if shared.PolicyRefs[0].Name != "a" || shared.HelmCharts[0].ValuesFrom[0].Name != "s" || shared.KustomizationRefs[0].Name != "tarball" ||
		shared.KustomizationRefs[0].ValuesFrom[0].Name != "values" || shared.PatchesFrom[0].Name != "patches" {
		t.Error("FreezeSpec changed lists it shares with another spec")
	}
}
