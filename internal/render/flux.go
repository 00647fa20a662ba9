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
	"github.com/stagecoach-dev/stagecoach/internal/fluxsource"
	"github.com/stagecoach-dev/stagecoach/internal/freeze"
	tpl "github.com/stagecoach-dev/stagecoach/internal/template"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

// A policyRef to a Flux source (GitRepository, OCIRepository, Bucket) deploys the manifests
// (.yaml, .yml and .json files) under its path in the source's artifact, as Sveltos does. The
// artifact comes from the version's frozen copy (package freeze), or, when the reference is not
// frozen, from source-controller, as status.artifact names it.

// Artifact is a Flux source's artifact as a summary reads it, unpacked: for policyRefs here, and
// for any other feature that reads a tree of files from a Flux source (Kustomize).
type Artifact struct {
	// Source names the Flux source (never the copy), with its Revision and Annotations; its
	// Data is unset.
	Source
	Files fluxsource.Files
}

// ReadArtifact reads the artifact a reference names: a Flux source (kind GitRepository,
// OCIRepository or Bucket; an empty namespace is the cluster's), from the copy the summary's
// frozenContent names for it, or from source-controller when it has none; or, with kind
// ConfigMap, the frozen copy of an artifact itself, as a promotion's stage profiles name it.
// It returns nil for an optional source that does not exist.
func ReadArtifact(ctx context.Context, rd tenancy.Readers, kind, namespace, name string, optional bool, cs *configv1beta1.ClusterSummary) (*Artifact, error) {
	src := Source{Kind: kind, Namespace: namespace, Name: name}
	if src.Namespace == "" {
		src.Namespace = cs.Spec.ClusterNamespace
	}
	copyName := ""
	switch {
	case kind == "ConfigMap":
		copyName = name
	case fluxsource.IsKind(kind):
		copyName = freeze.Decode(cs.Spec.FrozenContent)[freeze.Ref{Kind: kind, Namespace: src.Namespace, Name: name}]
	default:
		return nil, permanent(fmt.Errorf("%s: kind %q is not a Flux source", src, kind))
	}
	if copyName != "" {
		// The copy a summary's frozenContent names is the controller's; one the spec names itself
		// (a promotion's stage) is the controller's to read only if the profile may (readCopy),
		// and otherwise read as any reference is.
		cm := &corev1.ConfigMap{}
		found, err := readCopy(ctx, rd, src.Namespace, copyName, cm, kind == "ConfigMap")
		if !found && err == nil && kind == "ConfigMap" {
			err = rd.Referenced().Get(ctx, client.ObjectKey{Namespace: src.Namespace, Name: copyName}, cm)
			found = err == nil
		}
		if err != nil && !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("reading the copy of %s%s: %w", src, rd.As(), err)
		}
		if _, ok := freeze.IsArtifactCopy(cm); found && ok {
			return artifactOfCopy(src, cm)
		}
		if kind == "ConfigMap" {
			return nil, permanent(fmt.Errorf("%s is not the frozen artifact of a Flux source", src))
		}
	}
	return liveArtifact(ctx, rd, src, optional)
}

// liveArtifact downloads a Flux source's artifact from source-controller.
// The source object is read as the profile's tenant; its artifact is the controller's to fetch.
func liveArtifact(ctx context.Context, rd tenancy.Readers, src Source, optional bool) (*Artifact, error) {
	obj, a, err := fluxsource.Get(ctx, rd.Referenced(), fluxsource.Ref{Kind: src.Kind, Namespace: src.Namespace, Name: src.Name})
	switch {
	case apierrors.IsNotFound(err):
		if optional {
			return nil, nil
		}
		// Not permanent: the user may well create it next.
		return nil, fmt.Errorf("%s does not exist", src)
	case meta.IsNoMatchError(err):
		return nil, fmt.Errorf("%s: the management cluster does not serve %s; install Flux's source-controller", src, src.Kind)
	case apierrors.IsForbidden(err) || tenancy.IsRefused(err):
		return nil, fmt.Errorf("reading %s%s: %w", src, rd.As(), err)
	case err != nil:
		// No artifact yet comes here too: source-controller may still fetch it.
		return nil, err
	}
	tarball, err := fluxsource.Fetcher{}.Download(ctx, src.String(), a)
	var tooLarge *fluxsource.TooLargeError
	if errors.As(err, &tooLarge) {
		return nil, permanent(err)
	}
	if err != nil {
		return nil, err
	}
	return unpack(src, tarball, a.Revision, sveltosAnnotations(obj.GetAnnotations()))
}

// artifactOfCopy unpacks a frozen artifact, named after the source it was copied from.
func artifactOfCopy(src Source, cm *corev1.ConfigMap) (*Artifact, error) {
	if from, ok := freeze.IsArtifactCopy(cm); ok {
		kind, nsName, _ := strings.Cut(from, " ")
		ns, name, _ := strings.Cut(nsName, "/")
		src.Kind, src.Namespace, src.Name = kind, ns, name
	}
	return unpack(src, cm.BinaryData[freeze.ArtifactKey], cm.Data[freeze.RevisionKey], sveltosAnnotations(cm.Annotations))
}

func unpack(src Source, tarball []byte, revision string, annotations map[string]string) (*Artifact, error) {
	src.Revision, src.Annotations = revision, annotations
	files, err := fluxsource.Extract(tarball)
	if err != nil {
		return nil, permanent(fmt.Errorf("%s revision %s: %w", src, revision, err))
	}
	return &Artifact{Source: src, Files: files}, nil
}

// fluxPolicySource reads the manifests under a policyRef's path in a Flux source's artifact.
func fluxPolicySource(ctx context.Context, rd tenancy.Readers, ref configv1beta1.PolicyRef, cs *configv1beta1.ClusterSummary) (Source, error) {
	src := Source{Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name}
	a, err := ReadArtifact(ctx, rd, ref.Kind, ref.Namespace, ref.Name, ref.Optional, cs)
	if err != nil || a == nil {
		return src, err
	}
	src = a.Source
	// Sveltos instantiates each file of a source annotated projectsveltos.io/template (and
	// runs those annotated projectsveltos.io/lua, which Stagecoach refuses): PolicySources
	// does, as for a ConfigMap.
	src.Template, src.Lua = tpl.IsTemplate(src.Annotations), tpl.IsLua(src.Annotations)
	sub, err := a.Files.Sub(ref.Path)
	if err != nil {
		return src, permanent(fmt.Errorf("%s revision %s: %w", src, src.Revision, err))
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
