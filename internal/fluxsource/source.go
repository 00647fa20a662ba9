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

// Package fluxsource reads the artifacts of Flux sources (GitRepository, OCIRepository, Bucket)
// as Sveltos does: from the source's status.artifact, downloaded from source-controller's
// artifact server, checked against its digest, and unpacked into memory. It bounds what it reads,
// since an artifact is kept, whole, in a frozen copy (package freeze) of a version.
package fluxsource

import (
	"context"
	"errors"
	"fmt"
	"slices"

	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Kinds are the Flux source kinds a reference may name.
var Kinds = []string{sourcev1.GitRepositoryKind, sourcev1.OCIRepositoryKind, sourcev1.BucketKind}

// IsKind reports whether kind names a Flux source.
func IsKind(kind string) bool { return slices.Contains(Kinds, kind) }

// Ref names a Flux source.
type Ref struct{ Kind, Namespace, Name string }

func (r Ref) String() string { return r.Kind + " " + r.Namespace + "/" + r.Name }

// Artifact is what a source's status.artifact says of its latest artifact.
type Artifact struct {
	// URL is where source-controller serves the tarball.
	URL string `json:"url"`
	// Revision is the source's revision, e.g. "main@sha1:<commit>" for a GitRepository.
	Revision string `json:"revision"`
	// Digest is the tarball's digest, "<algorithm>:<hex>".
	Digest string `json:"digest"`
}

// ErrNoArtifact is returned when a source exists but has no artifact yet.
var ErrNoArtifact = errors.New("no artifact yet")

// newObject returns an empty object of a source kind.
func newObject(kind string) (client.Object, error) {
	switch kind {
	case sourcev1.GitRepositoryKind:
		return &sourcev1.GitRepository{}, nil
	case sourcev1.OCIRepositoryKind:
		return &sourcev1.OCIRepository{}, nil
	case sourcev1.BucketKind:
		return &sourcev1.Bucket{}, nil
	}
	return nil, fmt.Errorf("%q is not a Flux source kind; use one of %v", kind, Kinds)
}

// Get reads a source and its artifact. A missing source is the client's NotFound error; a
// source without an artifact yet wraps ErrNoArtifact with the reason source-controller gives in
// its Ready condition.
func Get(ctx context.Context, c client.Reader, ref Ref) (client.Object, Artifact, error) {
	obj, err := newObject(ref.Kind)
	if err != nil {
		return nil, Artifact{}, err
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, obj); err != nil {
		return nil, Artifact{}, err
	}
	a := obj.(sourcev1.Source).GetArtifact()
	if a == nil || a.URL == "" || a.Digest == "" {
		why := "source-controller has not fetched it"
		if cond := apimeta.FindStatusCondition(conditions(obj), "Ready"); cond != nil && cond.Status != metav1.ConditionTrue && cond.Message != "" {
			why = cond.Message
		}
		return obj, Artifact{}, fmt.Errorf("%s has %w: %s", ref, ErrNoArtifact, why)
	}
	return obj, Artifact{URL: a.URL, Revision: a.Revision, Digest: a.Digest}, nil
}

func conditions(obj client.Object) []metav1.Condition {
	switch o := obj.(type) {
	case *sourcev1.GitRepository:
		return o.Status.Conditions
	case *sourcev1.OCIRepository:
		return o.Status.Conditions
	case *sourcev1.Bucket:
		return o.Status.Conditions
	}
	return nil
}
