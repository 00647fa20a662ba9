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
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
	"github.com/stagecoach-dev/stagecoach/internal/fluxsource"
	"github.com/stagecoach-dev/stagecoach/internal/kustomize"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

// KustomizeKey is the key of a kustomizationRef's ConfigMap or Secret that holds the
// kustomization, a tarball (gzip-compressed or not), as in Sveltos.
const KustomizeKey = "kustomize.tar.gz"

// Kustomization is one of a summary's kustomizationRefs with the content it reads.
type Kustomization struct {
	Ref configv1beta1.KustomizationRef
	// Source is the ConfigMap or Secret holding the tarball; its Data is nil when an optional
	// one does not exist.
	Source Source
	// ValuesFrom are the sources of the ref's valuesFrom, in order.
	ValuesFrom []Source
	// Files are a Flux source's artifact, the Source naming it with its revision; nil for a
	// ConfigMap or Secret, whose tarball is in the Source's data.
	Files kustomize.Files `json:"-"`
}

// readArtifact reads the artifact of a kustomizationRef to a Flux source.
func (k *Kustomization) readArtifact(ctx context.Context, rd tenancy.Readers, cs *configv1beta1.ClusterSummary) error {
	a, err := ReadArtifact(ctx, rd, k.Ref.Kind, k.Ref.Namespace, k.Ref.Name, k.Ref.Optional, cs)
	if err != nil {
		return err
	}
	if a == nil {
		k.Source = Source{Kind: k.Ref.Kind, Namespace: k.Ref.Namespace, Name: k.Ref.Name} // optional and absent
		return nil
	}
	k.Source, k.Files = a.Source, kustomize.Files(a.Files)
	if k.Files == nil {
		k.Files = kustomize.Files{}
	}
	return nil
}

// Kustomizations reads what the summary's kustomizationRefs name (a ConfigMap or Secret holding a
// tarball, or a Flux source's artifact) and their valuesFrom, in order. Remote URLs are refused
// by name.
func Kustomizations(ctx context.Context, rd tenancy.Readers, cs *configv1beta1.ClusterSummary) ([]Kustomization, error) {
	in := newInstantiator(ctx, rd, cs)
	var out []Kustomization
	for _, ref := range cs.Spec.ClusterProfileSpec.KustomizationRefs {
		switch {
		case ref.RemoteURL != nil:
			return nil, permanent(fmt.Errorf("kustomizationRef remoteURL %s: remote URLs are not supported by Stagecoach yet; "+
				"put the kustomization in a ConfigMap or Secret under key %s", ref.RemoteURL.URL, KustomizeKey))
		case ref.Kind != "ConfigMap" && ref.Kind != "Secret" && !fluxsource.IsKind(ref.Kind):
			return nil, permanent(fmt.Errorf("kustomizationRef %s %s/%s: only ConfigMap, Secret, GitRepository, OCIRepository and Bucket references are supported",
				ref.Kind, ref.Namespace, ref.Name))
		}
		k := Kustomization{Ref: ref}
		var err error
		if !fluxsource.IsKind(ref.Kind) {
			k.Source, err = readSource(ctx, ref.Kind, ref.Namespace, ref.Name, ref.Optional, false, in)
		}
		if err != nil {
			return nil, err
		}
		if fluxsource.IsKind(ref.Kind) || k.Source.artifact {
			// A Flux source (whose name and namespace may be templates of the cluster, as for a
			// ConfigMap), or the frozen copy of its artifact a promotion's stage names.
			if k.Ref.Namespace, k.Ref.Name, err = in.reference(ref.Kind+" "+ref.Name, ref.Namespace, ref.Name); err != nil {
				return nil, err
			}
			if err := k.readArtifact(ctx, rd, cs); err != nil {
				return nil, err
			}
		}
		for _, vf := range ref.ValuesFrom {
			src, err := readSource(ctx, vf.Kind, vf.Namespace, vf.Name, vf.Optional, false, in)
			if err != nil {
				return nil, err
			}
			if err := src.luaRefused(); err != nil {
				return nil, err
			}
			k.ValuesFrom = append(k.ValuesFrom, src)
		}
		out = append(out, k)
	}
	return out, nil
}

// KustomizeRequests builds each kustomization and splits its objects between the managed
// cluster and, for deploymentType Local, the management cluster, as Requests does for
// policyRefs. inst instantiates the refs' values, path and components, and the content of
// valuesFrom annotated projectsveltos.io/template.
func KustomizeRequests(cs *configv1beta1.ClusterSummary, ks []Kustomization, patches []kustomize.Patch, inst Instantiate) (remote, local manifests.Request, err error) {
	spec := &cs.Spec.ClusterProfileSpec
	remote, local = baseRequests(cs, libv1beta1.FeatureKustomize)
	for _, k := range ks {
		files, err := k.files()
		if err != nil {
			return remote, local, err
		}
		if files == nil {
			continue // an optional object that doesn't exist
		}
		objs, err := KustomizeObjects(k.Source.String(), files, k, patches, inst)
		if err != nil {
			return remote, local, err
		}
		for _, o := range objs {
			addMetadata(o, spec.ExtraLabels, spec.ExtraAnnotations)
		}
		opts := manifests.Options{SkipNamespaceCreation: k.Ref.SkipNamespaceCreation, Force: k.Ref.Force, Tier: k.Ref.Tier}
		if k.Ref.DeploymentType == configv1beta1.DeploymentTypeLocal {
			if err := profileNamespaceOnly(cs, objs, k.Source.String()); err != nil {
				return remote, local, err
			}
			local.Objects = append(local.Objects, manifests.ObjectsOf(objs, k.Source.String(), opts)...)
		} else {
			remote.Objects = append(remote.Objects, manifests.ObjectsOf(objs, k.Source.String(), opts)...)
		}
	}
	return remote, local, nil
}

// files are the kustomization's files: a Flux source's artifact, or the tarball of a ConfigMap
// or Secret; nil for an optional one that does not exist.
func (k *Kustomization) files() (kustomize.Files, error) {
	if k.Files != nil || k.Source.Data == nil {
		return k.Files, nil
	}
	data, ok := k.Source.Data[KustomizeKey]
	if !ok {
		return nil, permanent(fmt.Errorf("%s has no key %s: a kustomizationRef's ConfigMap or Secret holds its kustomization as a tarball under that key",
			k.Source, KustomizeKey))
	}
	files, err := kustomize.ReadTarball(data)
	if err != nil {
		return nil, permanent(fmt.Errorf("%s key %s: %w", k.Source, KustomizeKey, err))
	}
	return files, nil
}

// KustomizeObjects builds one kustomization from its files, wherever they come from (a
// ConfigMap's tarball, a Flux artifact): kustomize build of the ref's path with its
// components, its values substituted into the output, every object put in its
// targetNamespace, then the profile's patches applied. what names the source in messages.
func KustomizeObjects(what string, files kustomize.Files, k Kustomization, patches []kustomize.Patch, inst Instantiate) ([]*unstructured.Unstructured, error) {
	path, err := inst.apply(what+" path", k.Ref.Path)
	if err != nil {
		return nil, err
	}
	var components []string
	for _, c := range k.Ref.Components {
		comp, err := inst.apply(what+" components", c)
		if err != nil {
			return nil, err
		}
		components = append(components, comp)
	}
	objs, err := kustomize.Build(files, path, kustomize.BuildOptions{Components: components})
	if err != nil {
		return nil, permanent(fmt.Errorf("%s: %w", what, err))
	}
	values, err := kustomizeValues(what, k, inst)
	if err != nil {
		return nil, err
	}
	if objs, err = kustomize.Substitute(objs, values, nil); err != nil {
		return nil, permanent(fmt.Errorf("%s: %w", what, err))
	}
	if k.Ref.TargetNamespace != "" {
		// On every object, as Sveltos does; deploying takes it off cluster-scoped ones.
		for _, o := range objs {
			o.SetNamespace(k.Ref.TargetNamespace)
		}
	}
	return applyPatches(what, objs, patches)
}

// KustomizeValues gives each kustomization's values as the cluster gets them, templates
// instantiated: what a feature's hash must see, so that a change of what a template reads (the
// cluster's labels, say) deploys again.
func KustomizeValues(ks []Kustomization, inst Instantiate) ([]map[string]string, error) {
	out := make([]map[string]string, 0, len(ks))
	for _, k := range ks {
		values, err := kustomizeValues(k.Source.String(), k, inst)
		if err != nil {
			return nil, err
		}
		out = append(out, values)
	}
	return out, nil
}

// kustomizeValues gathers the values substituted into a kustomization's output, as Sveltos
// does: the ref's values, instantiated; over them the keys of templated valuesFrom, instantiated;
// over all of them the keys of the other valuesFrom, as they are.
func kustomizeValues(what string, k Kustomization, inst Instantiate) (map[string]string, error) {
	values := map[string]string{}
	for key, v := range k.Ref.Values {
		out, err := inst.apply(fmt.Sprintf("%s values[%q]", what, key), v)
		if err != nil {
			return nil, err
		}
		values[key] = out
	}
	static := map[string]string{}
	for _, src := range k.ValuesFrom {
		for _, key := range src.sortedKeys() {
			v := string(src.Data[key])
			if !src.isTemplate() {
				static[key] = v
				continue
			}
			out, err := inst.applyMarked(fmt.Sprintf("%s valuesFrom %s key %q", what, src, key), v)
			if err != nil {
				return nil, err
			}
			values[key] = out
		}
	}
	maps.Copy(values, static)
	return values, nil
}
