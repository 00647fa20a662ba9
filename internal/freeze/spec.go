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
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fluxsource"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

// SpecRefs lists what a profile spec reads: the ConfigMaps, Secrets and Flux sources of
// policyRefs, the ConfigMaps and Secrets of helmCharts valuesFrom, kustomizationRefs and their
// valuesFrom and patchesFrom, and the objects of templateResourceRefs. References without a
// namespace mean the namespace of each cluster, and references whose name or namespace is a
// template mean an object per cluster: neither can be copied once for all clusters, and both
// are read live; so are references of other kinds.
func SpecRefs(spec *configv1beta1.Spec) []Ref {
	var refs []Ref
	for _, r := range spec.PolicyRefs {
		refs = appendRef(refs, r.Kind, r.Namespace, r.Name)
	}
	for _, h := range spec.HelmCharts {
		refs = appendValuesFrom(refs, h.ValuesFrom)
	}
	for _, k := range spec.KustomizationRefs {
		refs = appendRef(refs, k.Kind, k.Namespace, k.Name)
		refs = appendValuesFrom(refs, k.ValuesFrom)
	}
	refs = appendValuesFrom(refs, spec.PatchesFrom)
	for i := range spec.TemplateResourceRefs {
		if ref, ok := templateRef(&spec.TemplateResourceRefs[i]); ok {
			refs = append(refs, ref)
		}
	}
	return refs
}

func appendValuesFrom(refs []Ref, vfs []configv1beta1.ValueFrom) []Ref {
	for _, v := range vfs {
		refs = appendRef(refs, v.Kind, v.Namespace, v.Name)
	}
	return refs
}

// ReadSpec reads what a profile spec reads (SpecRefs) and more, as Read does. The objects of
// templateResourceRefs are kept as templates read them (TemplateObject): a change to what
// their templates cannot see, such as the status of an object whose status changes are
// ignored, makes no new version.
func ReadSpec(ctx context.Context, rd tenancy.Readers, spec *configv1beta1.Spec, more ...Ref) ([]Content, error) {
	contents, err := Read(ctx, rd, append(SpecRefs(spec), more...))
	if err != nil {
		return nil, err
	}
	for _, ct := range contents {
		u, ok := ct.Object.(*unstructured.Unstructured)
		if !ok || isObjectCopy(u) {
			continue
		}
		for i := range spec.TemplateResourceRefs {
			t := &spec.TemplateResourceRefs[i]
			if ref, ok := templateRef(t); ok && ref == ct.Ref {
				u.Object = TemplateObject(u.Object, t)
				break
			}
		}
	}
	return contents, nil
}

// Reads reports whether refs name obj, a ConfigMap or Secret of the given kind, either as
// content or as an object of templateResourceRefs.
func Reads(refs []Ref, kind string, obj client.Object) bool {
	ref, original := Original(kind, obj)
	return original && (slices.Contains(refs, ref) || slices.Contains(refs, ObjectRef("v1", kind, ref.Namespace, ref.Name)))
}

// PolicyRefs lists the ConfigMaps and Secrets that policy references read.
func PolicyRefs(policyRefs []configv1beta1.PolicyRef) []Ref {
	var refs []Ref
	for _, r := range policyRefs {
		refs = appendRef(refs, r.Kind, r.Namespace, r.Name)
	}
	return refs
}

func appendRef(refs []Ref, kind, namespace, name string) []Ref {
	if (kind == "ConfigMap" || kind == "Secret" || fluxsource.IsKind(kind)) && namespace != "" && name != "" && !IsTemplated(namespace) && !IsTemplated(name) {
		refs = append(refs, Ref{Kind: kind, Namespace: namespace, Name: name})
	}
	return refs
}

// FrozenPolicyRefs points policy references at the copies in names. A Flux source's reference
// becomes one to the ConfigMap holding its artifact, with its path kept.
func FrozenPolicyRefs(refs []configv1beta1.PolicyRef, names map[Ref]string) []configv1beta1.PolicyRef {
	out := slices.Clone(refs)
	for i, r := range out {
		if n, ok := names[Ref{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}]; ok {
			out[i].Kind, out[i].Name = Ref{Kind: r.Kind}.Copy(n).Kind, n
		}
	}
	return out
}

// FreezeSpec points a spec's references at the copies in names.
func FreezeSpec(spec *configv1beta1.Spec, names map[Ref]string) {
	spec.PolicyRefs = FrozenPolicyRefs(spec.PolicyRefs, names)
	spec.HelmCharts = slices.Clone(spec.HelmCharts)
	for i := range spec.HelmCharts {
		h := &spec.HelmCharts[i]
		h.ValuesFrom = frozenValuesFrom(h.ValuesFrom, names)
	}
	spec.KustomizationRefs = slices.Clone(spec.KustomizationRefs)
	for i := range spec.KustomizationRefs {
		k := &spec.KustomizationRefs[i]
		if n, ok := names[Ref{Kind: k.Kind, Namespace: k.Namespace, Name: k.Name}]; ok {
			k.Kind, k.Name = Ref{Kind: k.Kind}.Copy(n).Kind, n
		}
		k.ValuesFrom = frozenValuesFrom(k.ValuesFrom, names)
	}
	spec.PatchesFrom = frozenValuesFrom(spec.PatchesFrom, names)
	spec.TemplateResourceRefs = slices.Clone(spec.TemplateResourceRefs)
	for i := range spec.TemplateResourceRefs {
		t := &spec.TemplateResourceRefs[i]
		if ref, ok := templateRef(t); ok {
			if n, ok := names[ref]; ok {
				// The copy is a Secret that render reads the object back from.
				t.Resource = corev1.ObjectReference{APIVersion: "v1", Kind: "Secret", Namespace: ref.Namespace, Name: n}
			}
		}
	}
}

func frozenValuesFrom(vfs []configv1beta1.ValueFrom, names map[Ref]string) []configv1beta1.ValueFrom {
	out := slices.Clone(vfs)
	for j, v := range out {
		if n, ok := names[Ref{Kind: v.Kind, Namespace: v.Namespace, Name: v.Name}]; ok {
			out[j].Name = n
		}
	}
	return out
}

// Keep lists what Collect must keep: the copies in names, and everything the specs refer to.
func Keep(names map[Ref]string, specs ...*configv1beta1.Spec) map[Ref]bool {
	keep := map[Ref]bool{}
	for ref, name := range names {
		keep[ref.Copy(name)] = true
	}
	for _, spec := range specs {
		for _, ref := range SpecRefs(spec) {
			keep[ref.Copy(ref.Name)] = true
		}
	}
	return keep
}

// Encode writes names as a ClusterSummary's spec.frozenContent: {"ConfigMap ns/name": copy}.
func Encode(names map[Ref]string) map[string]string {
	if len(names) == 0 {
		return nil
	}
	out := make(map[string]string, len(names))
	for ref, name := range names {
		out[ref.String()] = name
	}
	return out
}

// Decode reads a ClusterSummary's spec.frozenContent; malformed keys are left out.
func Decode(content map[string]string) map[Ref]string {
	out := map[Ref]string{}
	for key, name := range content {
		kind, nsName, ok1 := strings.Cut(key, " ")
		ns, n, ok2 := strings.Cut(nsName, "/")
		if ok1 && ok2 {
			out[Ref{Kind: kind, Namespace: ns, Name: n}] = name
		}
	}
	return out
}
