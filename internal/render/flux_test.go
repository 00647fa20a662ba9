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

package render

import (
	"bytes"
	"compress/gzip"
	"context"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/freeze"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

// artifactTarball packs files as source-controller does: a gzip-compressed tar archive.
func artifactTarball(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(tarOf(t, files)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// artifactCopy is a frozen artifact as package freeze makes it.
func artifactCopy(t *testing.T, annotations map[string]string) *corev1.ConfigMap {
	a := map[string]string{freeze.SourceAnnotation: "GitRepository src/repo"}
	for k, v := range annotations {
		a[k] = v
	}
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "src", Name: "repo-0123456789", Labels: map[string]string{freeze.OwnerLabel: "p"}, Annotations: a},
		Data:       map[string]string{freeze.RevisionKey: "main@sha1:aaa", freeze.DigestKey: "sha256:aaa"},
		BinaryData: map[string][]byte{freeze.ArtifactKey: artifactTarball(t, map[string]string{
			"./deploy/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: x\n",
			"./deploy/README": "not a manifest",
			"./other/b.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: x\n",
		})},
	}
}

func policySummary(ref configv1beta1.PolicyRef, frozen map[string]string) *configv1beta1.ClusterSummary {
	cs := &configv1beta1.ClusterSummary{}
	cs.Spec.ClusterNamespace = "dev"
	cs.Spec.ClusterProfileSpec.PolicyRefs = []configv1beta1.PolicyRef{ref}
	cs.Spec.FrozenContent = frozen
	return cs
}

func TestPolicySourcesFromFrozenArtifacts(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(artifactCopy(t, nil)).Build()
	for name, cs := range map[string]*configv1beta1.ClusterSummary{
		// A promotion's stage refers to the copy itself.
		"a stage's reference to the copy": policySummary(configv1beta1.PolicyRef{Kind: "ConfigMap", Namespace: "src", Name: "repo-0123456789", Path: "./deploy"}, nil),
		// A profile's summary keeps the source's reference, and the copy in frozenContent.
		"a summary's frozen content": policySummary(configv1beta1.PolicyRef{Kind: "GitRepository", Namespace: "src", Name: "repo", Path: "deploy"},
			map[string]string{"GitRepository src/repo": "repo-0123456789"}),
	} {
		sources, err := PolicySources(context.Background(), tenancy.Admin(c), cs)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		src := sources[0]
		if src.String() != "GitRepository src/repo" || src.Revision != "main@sha1:aaa" || !slices.Equal(keys(src.Data), []string{"a.yaml"}) {
			t.Errorf("%s: source %s revision %q with files %v; want GitRepository src/repo at main@sha1:aaa with a.yaml alone",
				name, src, src.Revision, keys(src.Data))
		}
		remote, _, err := Requests(cs, sources, nil)
		if err != nil || len(remote.Objects) != 1 {
			t.Errorf("%s: Requests = %d objects, %v; want the one manifest under path", name, len(remote.Objects), err)
		}
	}
}

func TestPolicySourcesFromArtifactsRefused(t *testing.T) {
	ref := configv1beta1.PolicyRef{Kind: "ConfigMap", Namespace: "src", Name: "repo-0123456789", Path: "missing"}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(artifactCopy(t, nil)).Build()
	_, err := PolicySources(context.Background(), tenancy.Admin(c), policySummary(ref, nil))
	if !IsPermanent(err) || !strings.Contains(err.Error(), `"missing"`) || !strings.Contains(err.Error(), "main@sha1:aaa") {
		t.Errorf("a path the artifact lacks: %v; want a permanent error naming the path and the revision", err)
	}

	ref.Path = "deploy"
	c = fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(artifactCopy(t, map[string]string{libv1beta1.PolicyLuaAnnotation: "ok"})).Build()
	_, err = PolicySources(context.Background(), tenancy.Admin(c), policySummary(ref, nil))
	if !IsPermanent(err) || !strings.Contains(err.Error(), "Lua script") {
		t.Errorf("a Lua source: %v; want it refused by name", err)
	}

	live := configv1beta1.PolicyRef{Kind: "GitRepository", Namespace: "src", Name: "absent"}
	c = fake.NewClientBuilder().WithScheme(scheme.New()).Build()
	_, err = PolicySources(context.Background(), tenancy.Admin(c), policySummary(live, nil))
	if err == nil || IsPermanent(err) || !strings.Contains(err.Error(), "GitRepository src/absent does not exist") {
		t.Errorf("a missing source: %v; want a retried error saying so", err)
	}
	live.Optional = true
	if sources, err := PolicySources(context.Background(), tenancy.Admin(c), policySummary(live, nil)); err != nil || sources[0].Data != nil {
		t.Errorf("a missing optional source: %v, %v; want nothing to deploy", sources, err)
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
