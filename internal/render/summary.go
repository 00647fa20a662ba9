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
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/helm"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
	"github.com/stagecoach-dev/stagecoach/internal/fluxsource"
	"github.com/stagecoach-dev/stagecoach/internal/freeze"
	"github.com/stagecoach-dev/stagecoach/internal/kustomize"
	tpl "github.com/stagecoach-dev/stagecoach/internal/template"
)

// permanentError marks a failure that retrying the same configuration cannot fix.
type permanentError struct{ error }

func (e permanentError) Unwrap() error { return e.error }

func permanent(err error) error { return permanentError{err} }

// IsPermanent reports errors of this package that retrying the same configuration cannot fix:
// invalid or unsupported content, as opposed to content that may yet be created.
func IsPermanent(err error) bool {
	var perm permanentError
	return errors.As(err, &perm)
}

// SummaryOwner identifies a summary's content of one feature on a cluster; deployers key their
// inventories and ownership marks by it.
func SummaryOwner(cs *configv1beta1.ClusterSummary, id libv1beta1.FeatureID) string {
	return fmt.Sprintf("ClusterSummary %s/%s:%s", cs.Namespace, cs.Name, id)
}

// Source is the content of a ConfigMap, Secret or Flux source a profile refers to: its data,
// key by key (for a Flux source, the manifests under the reference's path, by file path).
type Source struct {
	Kind, Namespace, Name string
	// Data is nil when an optional object does not exist.
	Data map[string][]byte
	// Template and Lua say that the content is a template (annotation projectsveltos.io/template)
	// or a Lua script (projectsveltos.io/lua). Hashes see the content as rendered, not these.
	Template bool `json:"-"`
	Lua      bool `json:"-"`
	// Annotations of the object, which say how its content is read (a template, for one).
	Annotations map[string]string `json:"-"`
	// Revision is a Flux source's artifact revision, e.g. "main@sha1:<commit>".
	Revision string `json:",omitempty"`

	// artifact is set when a ConfigMap reference names the frozen copy of a Flux source's
	// artifact, which fluxPolicySource reads.
	artifact bool
}

// String names the source: "ConfigMap namespace/name".
func (s Source) String() string { return s.Kind + " " + s.Namespace + "/" + s.Name }

// sortedKeys gives a source's keys in a stable order, which is the order documents deploy in.
func (s Source) sortedKeys() []string {
	keys := make([]string, 0, len(s.Data))
	for k := range s.Data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// readSource fetches a referenced ConfigMap or Secret from the management cluster. An empty
// namespace means the cluster's namespace; a namespace or name may be a template of the cluster
// (in resolves it). A Secret deployed by policyRefs must have the type
// reserved for profile content, so that no ordinary Secret is pushed to clusters by mistake.
//
// copies maps references onto the frozen copies to read instead (see package freeze); a copy
// that is gone reads as its original. Messages and hashes name the original either way.
func readSource(ctx context.Context, c client.Reader, kind, namespace, name string, optional, profileContent bool, in *instantiator) (Source, error) {
	namespace, name, err := in.reference(kind+" "+name, namespace, name)
	if err != nil {
		return Source{Kind: kind, Namespace: namespace, Name: name}, err
	}
	copies := in.copies
	src := Source{Kind: kind, Namespace: namespace, Name: name}
	key := client.ObjectKey{Namespace: namespace, Name: name}
	get := func(obj client.Object) error {
		if cp, ok := copies[freeze.Ref{Kind: kind, Namespace: namespace, Name: name}]; ok {
			err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: cp}, obj)
			if !apierrors.IsNotFound(err) {
				return err
			}
		}
		return c.Get(ctx, key, obj)
	}
	annotations := func(obj client.Object) {
		src.Template, src.Lua = tpl.IsTemplate(obj.GetAnnotations()), tpl.IsLua(obj.GetAnnotations())
	}
	switch kind {
	case "ConfigMap":
		cm := &corev1.ConfigMap{}
		if err = get(cm); err == nil {
			if _, ok := freeze.IsArtifactCopy(cm); ok {
				src.artifact = true
				return src, nil
			}
			annotations(cm)
			src.Data, src.Annotations = map[string][]byte{}, cm.Annotations
			for k, v := range cm.Data {
				src.Data[k] = []byte(v)
			}
			for k, v := range cm.BinaryData {
				src.Data[k] = v
			}
		}
	case "Secret":
		secret := &corev1.Secret{}
		if err = get(secret); err == nil {
			if profileContent && secret.Type != libv1beta1.ClusterProfileSecretType {
				return src, permanent(fmt.Errorf("%s has type %q: Secrets deployed by a profile must have type %q",
					src, secret.Type, libv1beta1.ClusterProfileSecretType))
			}
			annotations(secret)
			src.Data, src.Annotations = secret.Data, secret.Annotations
			if src.Data == nil {
				src.Data = map[string][]byte{}
			}
		}
	default:
		return src, permanent(fmt.Errorf("%s: kind %q is not supported; use a ConfigMap or a Secret", src, kind))
	}
	if apierrors.IsNotFound(err) {
		if optional {
			return src, nil
		}
		// Not permanent: the user may well create it next.
		return src, fmt.Errorf("%s does not exist", src)
	}
	if err != nil {
		return src, fmt.Errorf("reading %s: %w", src, err)
	}
	return src, nil
}

// PolicySources fetches the content of every ConfigMap, Secret and Flux source the summary's
// policyRefs name, in order. The content of ConfigMaps and Secrets annotated
// projectsveltos.io/template is instantiated for the cluster, key by key; content made by a Lua
// script (projectsveltos.io/lua) is refused.
func PolicySources(ctx context.Context, c client.Reader, cs *configv1beta1.ClusterSummary) ([]Source, error) {
	var out []Source
	in := newInstantiator(ctx, c, cs)
	for _, ref := range cs.Spec.ClusterProfileSpec.PolicyRefs {
		var src Source
		var err error
		switch {
		case ref.RemoteURL != nil || (ref.Kind != "ConfigMap" && ref.Kind != "Secret" && !fluxsource.IsKind(ref.Kind)):
			return nil, permanent(fmt.Errorf("policyRef %s %s/%s: only ConfigMap, Secret, GitRepository, OCIRepository and Bucket references are supported",
				ref.Kind, ref.Namespace, ref.Name))
		case fluxsource.IsKind(ref.Kind):
			// Its name and namespace may be templates of the cluster, as for a ConfigMap.
			if ref.Namespace, ref.Name, err = in.reference(ref.Kind+" "+ref.Name, ref.Namespace, ref.Name); err == nil {
				src, err = fluxPolicySource(ctx, c, ref, cs)
			}
		default:
			src, err = readSource(ctx, c, ref.Kind, ref.Namespace, ref.Name, ref.Optional, true, in)
			if err == nil && src.artifact {
				// A promotion's stage refers to the frozen artifact of a Flux source itself.
				src, err = fluxPolicySource(ctx, c, ref, cs)
			}
		}
		if err != nil {
			return nil, err
		}
		if err := instantiateSource(in, &src); err != nil {
			return nil, err
		}
		out = append(out, src)
	}
	return out, nil
}

// luaRefused refuses content a Lua script would make, which Stagecoach does not run.
func (s *Source) luaRefused() error {
	if s.Lua && s.Data != nil {
		return permanent(fmt.Errorf("%s: content made by a Lua script (annotation %s) is not supported by Stagecoach; "+
			"use a Go template (annotation %s) instead", s, tpl.LuaAnnotation, tpl.TemplateAnnotation))
	}
	return nil
}

// instantiateSource instantiates the content of a source that is a template, key by key.
func instantiateSource(in *instantiator, src *Source) error {
	if err := src.luaRefused(); err != nil {
		return err
	}
	if !src.Template || src.Data == nil {
		return nil
	}
	data := make(map[string][]byte, len(src.Data))
	for _, k := range src.sortedKeys() {
		out, err := in.instantiate(fmt.Sprintf("%s key %s", src, k), string(src.Data[k]))
		if err != nil {
			return err
		}
		data[k] = []byte(out)
	}
	src.Data = data
	return nil
}

// Requests splits the objects of every source of the summary's policyRefs (PolicySources, in
// order) between the managed cluster and, for deploymentType Local, the management cluster, with
// the options of the summary's spec, once patches (see Patches) are applied to each source's
// objects. Each target keeps its own inventory, so an object moving from one to the other is
// pruned from the first.
func Requests(cs *configv1beta1.ClusterSummary, sources []Source, patches []kustomize.Patch) (remote, local manifests.Request, err error) {
	spec := &cs.Spec.ClusterProfileSpec
	remote, local = baseRequests(cs, libv1beta1.FeatureResources)
	for i, src := range sources {
		if src.Data == nil {
			continue // an optional object that doesn't exist
		}
		objs, err := manifests.Parse(src.String(), src.Data)
		if err != nil {
			return remote, local, permanent(err)
		}
		if objs, err = applyPatches(src.String(), objs, patches); err != nil {
			return remote, local, err
		}
		for _, o := range objs {
			addMetadata(o, spec.ExtraLabels, spec.ExtraAnnotations)
		}
		ref := spec.PolicyRefs[i]
		opts := manifests.Options{SkipNamespaceCreation: ref.SkipNamespaceCreation, Force: ref.Force, Tier: ref.Tier}
		if ref.DeploymentType == configv1beta1.DeploymentTypeLocal {
			if err := profileNamespaceOnly(cs, objs, src.String()); err != nil {
				return remote, local, err
			}
			local.Objects = append(local.Objects, manifests.ObjectsOf(objs, src.String(), opts)...)
		} else {
			remote.Objects = append(remote.Objects, manifests.ObjectsOf(objs, src.String(), opts)...)
		}
	}
	return remote, local, nil
}

// profileNamespaceOnly refuses, as Sveltos does, what a Profile's summary would deploy to the
// management cluster outside the Profile's namespace (the summary's).
func profileNamespaceOnly(cs *configv1beta1.ClusterSummary, objs []*unstructured.Unstructured, source string) error {
	if family, _, _ := configv1beta1.SummaryProfile(cs); !family.Namespaced {
		return nil
	}
	for _, o := range objs {
		if o.GetNamespace() != cs.Namespace {
			return permanent(fmt.Errorf("%s: %s %q is outside namespace %q: a Profile deploys to the management cluster (deploymentType Local) "+
				"only objects of its own namespace, with metadata.namespace set", source, o.GetKind(), o.GetName(), cs.Namespace))
		}
	}
	return nil
}

// baseRequests are the requests of a feature's content, to the managed cluster and to the
// management cluster, with the options of the summary's spec and no objects yet.
func baseRequests(cs *configv1beta1.ClusterSummary, id libv1beta1.FeatureID) (remote, local manifests.Request) {
	spec := &cs.Spec.ClusterProfileSpec
	base := manifests.Request{Tier: spec.Tier, ContinueOnConflict: spec.ContinueOnConflict, DryRun: spec.SyncMode == configv1beta1.SyncModeDryRun}
	if spec.SyncMode == configv1beta1.SyncModeContinuousWithDriftDetection {
		base.DriftExclusions = spec.DriftExclusions
	}
	remote, local = base, base
	remote.Owner = SummaryOwner(cs, id)
	local.Owner = remote.Owner + ":Local"
	return remote, local
}

// addMetadata sets a profile's extraLabels and extraAnnotations on an object it deploys.
func addMetadata(obj *unstructured.Unstructured, labels, annotations map[string]string) {
	if len(labels) > 0 {
		l := obj.GetLabels()
		if l == nil {
			l = map[string]string{}
		}
		maps.Copy(l, labels)
		obj.SetLabels(l)
	}
	if len(annotations) > 0 {
		a := obj.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		maps.Copy(a, annotations)
		obj.SetAnnotations(a)
	}
}

// Chart is one chart of a summary's spec with its final values.
type Chart struct {
	Chart  configv1beta1.HelmChart
	Values map[string]any
}

// ChartMetadata adds the profile's extraLabels and extraAnnotations to every object of a release.
func ChartMetadata(spec *configv1beta1.Spec) helm.DeployOption {
	return helm.WithMetadata(spec.ExtraLabels, spec.ExtraAnnotations)
}

// Charts reads the values and valuesFrom of each of the summary's helmCharts, in order. The
// chart's repository, name, version and release may be templates, as in Sveltos; the
// inline values are a template, instantiated for the cluster; so is the content of valuesFrom
// ConfigMaps and Secrets annotated projectsveltos.io/template. As in Sveltos, the valuesFrom
// that are not templates are merged over the inline values first, in list order, then those
// that are, each key of a ConfigMap or Secret being a YAML document.
func Charts(ctx context.Context, c client.Reader, cs *configv1beta1.ClusterSummary) ([]Chart, error) {
	var out []Chart
	in := newInstantiator(ctx, c, cs)
	for _, hc := range cs.Spec.ClusterProfileSpec.HelmCharts {
		if err := instantiateChart(in, &hc); err != nil {
			return nil, err
		}
		text, err := in.instantiate(fmt.Sprintf("chart %s values", hc.ReleaseName), hc.Values)
		if err != nil {
			return nil, err
		}
		values, err := helm.ParseValues(text)
		if err != nil {
			return nil, permanent(fmt.Errorf("chart %s values: %w", hc.ReleaseName, err))
		}
		chart := Chart{Chart: hc, Values: values}
		var templates []Source
		merge := func(src Source) error {
			for _, k := range src.sortedKeys() {
				var more map[string]any
				if err := yaml.Unmarshal(src.Data[k], &more); err != nil {
					return permanent(fmt.Errorf("chart %s valuesFrom %s key %q is not YAML: %w", hc.ReleaseName, src, k, err))
				}
				chart.Values = mergeValues(chart.Values, more)
			}
			return nil
		}
		for _, vf := range hc.ValuesFrom {
			src, err := readSource(ctx, c, vf.Kind, vf.Namespace, vf.Name, vf.Optional, false, in)
			if err != nil {
				return nil, err
			}
			if src.Template || src.Lua {
				templates = append(templates, src)
				continue
			}
			if err := merge(src); err != nil {
				return nil, err
			}
		}
		for _, src := range templates {
			if err := instantiateSource(in, &src); err != nil {
				return nil, err
			}
			if err := merge(src); err != nil {
				return nil, err
			}
		}
		out = append(out, chart)
	}
	return out, nil
}

// instantiateChart instantiates the fields of a chart that name what is deployed where; the
// Chart that Charts returns carries them instantiated.
func instantiateChart(in *instantiator, hc *configv1beta1.HelmChart) error {
	for _, f := range []struct {
		name  string
		field *string
	}{
		{"repositoryURL", &hc.RepositoryURL}, {"repositoryName", &hc.RepositoryName}, {"chartName", &hc.ChartName},
		{"chartVersion", &hc.ChartVersion}, {"releaseName", &hc.ReleaseName}, {"releaseNamespace", &hc.ReleaseNamespace},
	} {
		out, err := in.instantiate(fmt.Sprintf("chart %s %s", hc.ReleaseName, f.name), *f.field)
		if err != nil {
			return err
		}
		*f.field = out
	}
	return nil
}

// mergeValues merges src over dst, recursing into maps, as Helm merges values files.
func mergeValues(dst, src map[string]any) map[string]any {
	if dst == nil {
		dst = map[string]any{}
	}
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				dst[k] = mergeValues(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
	return dst
}
