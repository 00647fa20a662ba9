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
	"context"
	"errors"
	"testing"

	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fluxsource"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

func gitRepository(digest string) *sourcev1.GitRepository {
	repo := &sourcev1.GitRepository{ObjectMeta: metav1.ObjectMeta{Namespace: "src", Name: "repo"}}
	if digest != "" {
		repo.Status.Artifact = &fluxmeta.Artifact{URL: "http://127.0.0.1:1/repo.tar.gz", Revision: "main@sha1:" + digest, Digest: "sha256:" + digest}
	}
	return repo
}

// stubDownload replaces Download for the test and counts its calls.
func stubDownload(t *testing.T, err error) *int {
	calls := new(int)
	saved := Download
	Download = func(_ context.Context, _ string, a fluxsource.Artifact) ([]byte, error) {
		*calls++
		return []byte("tarball of " + a.Revision), err
	}
	t.Cleanup(func() { Download = saved })
	return calls
}

func TestArtifactIsFrozenByDigest(t *testing.T) {
	ctx := context.Background()
	s := scheme.New()
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(gitRepository("aaa")).Build()
	owner := Owner{Object: &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: "rollout", UID: "u1"}}, Kind: "ClusterPromotion"}
	calls := stubDownload(t, nil)
	ref := Ref{Kind: sourcev1.GitRepositoryKind, Namespace: "src", Name: "repo"}
	spec := &configv1beta1.Spec{PolicyRefs: []configv1beta1.PolicyRef{{Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name, Path: "deploy"}}}
	refs := SpecRefs(spec)
	if len(refs) != 1 || refs[0] != ref {
		t.Fatalf("SpecRefs = %v; want the GitRepository", refs)
	}

	contents, err := Read(ctx, tenancy.Admin(c), refs)
	if err != nil || len(contents) != 1 || contents[0].Artifact == nil || contents[0].Artifact.Digest != "sha256:aaa" {
		t.Fatalf("Read = %+v, %v; want the artifact", contents, err)
	}
	names, err := Ensure(ctx, c, s, owner, contents)
	if err != nil {
		t.Fatal(err)
	}
	cp := &corev1.ConfigMap{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: Namespace(), Name: names[ref]}, cp); err != nil {
		t.Fatalf("copy %q: %v", names[ref], err)
	}
	if from, ok := IsArtifactCopy(cp); !ok || from != "GitRepository src/repo" || !bytes.Equal(cp.BinaryData[ArtifactKey], []byte("tarball of main@sha1:aaa")) ||
		cp.Data[RevisionKey] != "main@sha1:aaa" || cp.Immutable == nil || !*cp.Immutable {
		t.Errorf("copy %+v", cp)
	}
	if _, err := Ensure(ctx, c, s, owner, contents); err != nil || *calls != 1 {
		t.Errorf("a second Ensure downloaded again (%d downloads, %v): the copy is named by its digest", *calls, err)
	}

	// The reference is frozen as one to the copy, its path kept; Collect keeps the copy.
	FreezeSpec(spec, names)
	if got := spec.PolicyRefs[0]; got.Kind != "ConfigMap" || got.Name != names[ref] || got.Path != "deploy" {
		t.Errorf("frozen reference %+v", got)
	}
	if keep := Keep(names); !keep[Ref{Kind: "ConfigMap", Namespace: "src", Name: names[ref]}] {
		t.Errorf("Keep %v leaves the copy out", keep)
	}

	// A new commit is another version, with a copy of its own.
	newer := gitRepository("bbb")
	if err := c.Status().Update(ctx, newer); err != nil {
		if err := c.Delete(ctx, gitRepository("")); err != nil {
			t.Fatal(err)
		}
		if err := c.Create(ctx, newer); err != nil {
			t.Fatal(err)
		}
	}
	next, err := Read(ctx, tenancy.Admin(c), refs)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(Digest(contents), Digest(next)) || copyName(contents[0], owner) == copyName(next[0], owner) {
		t.Error("a new artifact leaves the version's digest or the copy's name as they were")
	}
}

func TestArtifactNotReadyOrUnreadable(t *testing.T) {
	ctx := context.Background()
	s := scheme.New()
	owner := Owner{Object: &configv1beta1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Name: "p", UID: "u2"}}, Kind: "ClusterProfile"}
	ref := Ref{Kind: sourcev1.GitRepositoryKind, Namespace: "src", Name: "repo"}

	// Without an artifact yet, or without the source, nothing is frozen: whoever deploys says why.
	for name, c := range map[string]client.Client{
		"no artifact": fake.NewClientBuilder().WithScheme(s).WithObjects(gitRepository("")).Build(),
		"no source":   fake.NewClientBuilder().WithScheme(s).Build(),
	} {
		contents, err := Read(ctx, tenancy.Admin(c), []Ref{ref})
		if err != nil || len(contents) != 1 || contents[0].Artifact != nil {
			t.Errorf("%s: Read = %+v, %v; want the reference unfrozen", name, contents, err)
		}
	}

	// A download that fails stops the version: a stage must never get the live source instead.
	stubDownload(t, errors.New("connection refused"))
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(gitRepository("aaa")).Build()
	contents, err := Read(ctx, tenancy.Admin(c), []Ref{ref})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Ensure(ctx, c, s, owner, contents); err == nil {
		t.Error("Ensure succeeded although the artifact could not be downloaded")
	}
}
