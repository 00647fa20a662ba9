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
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/stagecoach-dev/stagecoach/internal/fluxsource"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

// A Flux source (GitRepository, OCIRepository, Bucket) is frozen as its artifact: the tarball
// source-controller serves for the revision the version started with, kept in an immutable
// ConfigMap named by the owner and the artifact's digest. Source-controller keeps only its
// latest artifacts, so the copy is what lets a later stage deploy an older revision, after a
// controller restart too.

// Keys of an artifact's copy.
const (
	// ArtifactKey holds the tarball, in binaryData.
	ArtifactKey = "artifact.tar.gz"
	// RevisionKey and DigestKey hold the source's revision and the tarball's digest, in data.
	RevisionKey = "revision"
	DigestKey   = "digest"
)

// Artifact is the artifact of a Flux source as a version reads it.
type Artifact struct {
	fluxsource.Artifact
	// Annotations are the source's annotations that change how its files are read (Sveltos'
	// projectsveltos.io/template and projectsveltos.io/lua); they are frozen with the artifact.
	Annotations map[string]string `json:"annotations,omitempty"`
}

// Download fetches an artifact for a copy; tests may replace it.
var Download = func(ctx context.Context, source string, a fluxsource.Artifact) ([]byte, error) {
	return fluxsource.Fetcher{}.Download(ctx, source, a)
}

// IsArtifactCopy reports whether obj is the copy of a Flux source's artifact, and of which
// source ("GitRepository namespace/name").
func IsArtifactCopy(obj client.Object) (string, bool) {
	if !IsCopy(obj) {
		return "", false
	}
	from := obj.GetAnnotations()[SourceAnnotation]
	kind, _, _ := strings.Cut(from, " ")
	return from, fluxsource.IsKind(kind)
}

// readArtifact reads a Flux source's artifact. A source that does not exist, or has no artifact
// yet, is left unfrozen (Content.Artifact nil): whoever deploys it reports why. The source
// object is read as the profile's tenant; its artifact is the controller's to download.
func readArtifact(ctx context.Context, rd tenancy.Readers, ref Ref) (Content, error) {
	obj, a, err := fluxsource.Get(ctx, rd.Referenced(), fluxsource.Ref(ref))
	switch {
	case apierrors.IsNotFound(err) || meta.IsNoMatchError(err) || errors.Is(err, fluxsource.ErrNoArtifact):
		return Content{Ref: ref}, nil
	case err != nil:
		return Content{}, fmt.Errorf("reading %s%s: %w", ref, rd.As(), err)
	}
	out := Content{Ref: ref, Artifact: &Artifact{Artifact: a}}
	for k, v := range obj.GetAnnotations() {
		if strings.HasPrefix(k, "projectsveltos.io/") {
			if out.Artifact.Annotations == nil {
				out.Artifact.Annotations = map[string]string{}
			}
			out.Artifact.Annotations[k] = v
		}
	}
	return out, nil
}

// ensureArtifact makes the copy of an artifact, unless it exists, and returns its name.
func ensureArtifact(ctx context.Context, c client.Client, scheme *runtime.Scheme, owner Owner, ct Content) (string, error) {
	name := copyName(ct, owner)
	existing := &corev1.ConfigMap{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, existing); err == nil {
		return name, nil
	} else if !apierrors.IsNotFound(err) {
		return "", fmt.Errorf("reading the copy of %s: %w", ct.Ref, err)
	}
	data, err := Download(ctx, ct.String(), ct.Artifact.Artifact)
	if err != nil {
		return "", err
	}
	immutable := true
	cp := &corev1.ConfigMap{
		Data:       map[string]string{RevisionKey: ct.Artifact.Revision, DigestKey: ct.Artifact.Digest},
		BinaryData: map[string][]byte{ArtifactKey: data},
		Immutable:  &immutable,
	}
	cp.SetName(name)
	annotations := map[string]string{SourceAnnotation: ct.String()}
	maps.Copy(annotations, ct.Artifact.Annotations)
	cp.SetAnnotations(annotations)
	if err := place(cp, owner, scheme); err != nil {
		return "", err
	}
	if err := c.Create(ctx, cp); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("copying the artifact of %s (revision %s): %w", ct.Ref, ct.Artifact.Revision, err)
	}
	return name, nil
}
