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
	"slices"
	"strings"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fluxsource"
)

// SpecRefs lists the ConfigMaps, Secrets and Flux sources a profile spec reads (policyRefs and
// helmCharts valuesFrom). References without a namespace mean the namespace of each cluster: they cannot
// be copied once for all clusters, and are read live; so are those of other kinds.
func SpecRefs(spec *configv1beta1.Spec) []Ref {
	var refs []Ref
	for _, r := range spec.PolicyRefs {
		refs = appendRef(refs, r.Kind, r.Namespace, r.Name)
	}
	for _, h := range spec.HelmCharts {
		for _, v := range h.ValuesFrom {
			refs = appendRef(refs, v.Kind, v.Namespace, v.Name)
		}
	}
	return refs
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
	if (kind == "ConfigMap" || kind == "Secret" || fluxsource.IsKind(kind)) && namespace != "" && name != "" {
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
			out[i].Kind, out[i].Name = copyKind(r.Kind), n
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
		h.ValuesFrom = slices.Clone(h.ValuesFrom)
		for j, v := range h.ValuesFrom {
			if n, ok := names[Ref{Kind: v.Kind, Namespace: v.Namespace, Name: v.Name}]; ok {
				h.ValuesFrom[j].Name = n
			}
		}
	}
}

// Keep lists what Collect must keep: the copies in names, and everything the specs refer to.
func Keep(names map[Ref]string, specs ...*configv1beta1.Spec) map[Ref]bool {
	keep := map[Ref]bool{}
	for ref, name := range names {
		keep[CopyRef(ref, name)] = true
	}
	for _, spec := range specs {
		for _, ref := range SpecRefs(spec) {
			keep[ref] = true
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
