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
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fluxsource"
	"github.com/stagecoach-dev/stagecoach/internal/freeze"
)

// A policyRef to a Flux source (GitRepository, OCIRepository, Bucket) deploys the manifests
// (.yaml, .yml and .json files) under its path in the source's artifact, as Sveltos does. The
// artifact comes from the version's frozen copy (package freeze), or, when the reference is not
// frozen, from source-controller, as status.artifact names it.

// fluxPolicySource reads a Flux source reference's manifests.
func fluxPolicySource(ctx context.Context, c client.Reader, ref configv1beta1.PolicyRef, clusterNamespace string,
	copies map[freeze.Ref]string) (Source, error) {
	src := Source{Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name}
	if src.Namespace == "" {
		src.Namespace = clusterNamespace
	}
	if name, ok := copies[freeze.Ref{Kind: src.Kind, Namespace: src.Namespace, Name: src.Name}]; ok {
		cm := &corev1.ConfigMap{}
		err := c.Get(ctx, client.ObjectKey{Namespace: src.Namespace, Name: name}, cm)
		if err == nil {
			if _, ok := freeze.IsArtifactCopy(cm); ok {
				return artifactCopySource(src, cm, ref.Path)
			}
		} else if !apierrors.IsNotFound(err) {
			return src, fmt.Errorf("reading the copy of %s: %w", src, err)
		}
	}
	obj, a, err := fluxsource.Get(ctx, c, fluxsource.Ref{Kind: src.Kind, Namespace: src.Namespace, Name: src.Name})
	switch {
	case apierrors.IsNotFound(err):
		if ref.Optional {
			return src, nil
		}
		// Not permanent: the user may well create it next.
		return src, fmt.Errorf("%s does not exist", src)
	case meta.IsNoMatchError(err):
		return src, fmt.Errorf("%s: the management cluster does not serve %s; install Flux's source-controller", src, src.Kind)
	case err != nil:
		// No artifact yet comes here too: source-controller may still fetch it.
		return src, err
	}
	tarball, err := fluxsource.Fetcher{}.Download(ctx, src.String(), a)
	var tooLarge *fluxsource.TooLargeError
	if errors.As(err, &tooLarge) {
		return src, permanent(err)
	}
	if err != nil {
		return src, err
	}
	return artifactSource(src, tarball, a.Revision, sveltosAnnotations(obj.GetAnnotations()), ref.Path)
}

// artifactCopySource reads the manifests of a frozen artifact. src names the source the copy
// was made of (a promotion's stage profiles refer to the copy itself).
func artifactCopySource(src Source, cm *corev1.ConfigMap, path string) (Source, error) {
	if from, ok := freeze.IsArtifactCopy(cm); ok {
		kind, nsName, _ := strings.Cut(from, " ")
		ns, name, _ := strings.Cut(nsName, "/")
		src.Kind, src.Namespace, src.Name = kind, ns, name
	}
	return artifactSource(src, cm.BinaryData[freeze.ArtifactKey], cm.Data[freeze.RevisionKey], sveltosAnnotations(cm.Annotations), path)
}

// artifactSource unpacks a tarball and keeps the manifests under path.
func artifactSource(src Source, tarball []byte, revision string, annotations map[string]string, path string) (Source, error) {
	src.Revision, src.Annotations, src.artifact = revision, annotations, nil
	// Hook for the template step: Sveltos instantiates each file of a Flux source annotated
	// projectsveltos.io/template (or runs it as Lua with projectsveltos.io/lua), with path itself
	// a template. Until that is wired here, such sources are refused rather than deployed raw.
	for _, a := range []string{libv1beta1.PolicyTemplateAnnotation, libv1beta1.PolicyLuaAnnotation} {
		if _, ok := annotations[a]; ok {
			return src, permanent(fmt.Errorf("%s is annotated %s: templates in Flux sources are not supported by Stagecoach yet", src, a))
		}
	}
	files, err := fluxsource.Extract(tarball)
	if err != nil {
		return src, permanent(fmt.Errorf("%s revision %s: %w", src, revision, err))
	}
	sub, err := files.Sub(path)
	if err != nil {
		return src, permanent(fmt.Errorf("%s revision %s: %w", src, revision, err))
	}
	src.Data = sub.Manifests()
	return src, nil
}

// sveltosAnnotations keeps the annotations that change how Sveltos reads content.
func sveltosAnnotations(all map[string]string) map[string]string {
	var out map[string]string
	for k, v := range all {
		if strings.HasPrefix(k, "projectsveltos.io/") {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}
