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

package clusterpromotion

import (
	"context"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/freeze"
)

// A version of a promotion is its profileSpec and the content of the ConfigMaps and Secrets it
// refers to (policyRefs, helmCharts valuesFrom, the stages' preHealthCheckDeployment). Each
// version's content is frozen in immutable copies (package freeze), and a stage's profile
// refers to the copies of the version it last received: editing a referenced ConfigMap starts
// a new version at the first stage, and later stages keep what they have until it reaches them.
// References without a namespace (the namespace of each cluster) cannot be copied once for all
// clusters, and are read live.

// contentRefs lists what the promotion's version reads from the management cluster.
func contentRefs(p *configv1beta1.ClusterPromotion) []freeze.Ref {
	var refs []freeze.Ref
	add := func(kind, namespace, name string) {
		if (kind == "ConfigMap" || kind == "Secret") && namespace != "" && name != "" {
			refs = append(refs, freeze.Ref{Kind: kind, Namespace: namespace, Name: name})
		}
	}
	for _, r := range p.Spec.ProfileSpec.PolicyRefs {
		add(r.Kind, r.Namespace, r.Name)
	}
	for _, h := range p.Spec.ProfileSpec.HelmCharts {
		for _, v := range h.ValuesFrom {
			add(v.Kind, v.Namespace, v.Name)
		}
	}
	for i := range p.Spec.Stages {
		for _, r := range preHealthRefs(&p.Spec.Stages[i]) {
			add(r.Kind, r.Namespace, r.Name)
		}
	}
	return refs
}

// frozenPolicyRefs points refs at the copies in names.
func frozenPolicyRefs(refs []configv1beta1.PolicyRef, names map[freeze.Ref]string) []configv1beta1.PolicyRef {
	out := slices.Clone(refs)
	for i, r := range out {
		if n, ok := names[freeze.Ref{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}]; ok {
			out[i].Name = n
		}
	}
	return out
}

// freezeSpec points a stage profile's spec at the copies in names.
func freezeSpec(spec *configv1beta1.Spec, names map[freeze.Ref]string) {
	spec.PolicyRefs = frozenPolicyRefs(spec.PolicyRefs, names)
	for i := range spec.HelmCharts {
		h := &spec.HelmCharts[i]
		h.ValuesFrom = slices.Clone(h.ValuesFrom)
		for j, v := range h.ValuesFrom {
			if n, ok := names[freeze.Ref{Kind: v.Kind, Namespace: v.Namespace, Name: v.Name}]; ok {
				h.ValuesFrom[j].Name = n
			}
		}
	}
}

// specRefs lists the ConfigMaps and Secrets a deployed spec refers to.
func specRefs(spec *configv1beta1.Spec) []freeze.Ref {
	var refs []freeze.Ref
	for _, r := range spec.PolicyRefs {
		refs = append(refs, freeze.Ref{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name})
	}
	for _, h := range spec.HelmCharts {
		for _, v := range h.ValuesFrom {
			refs = append(refs, freeze.Ref{Kind: v.Kind, Namespace: v.Namespace, Name: v.Name})
		}
	}
	return refs
}

// collectCopies deletes the copies no profile of the promotion, and no ClusterSummary of those
// profiles (one a rolling update has not reached yet, say), refers to any more.
func (r *Reconciler) collectCopies(ctx context.Context, p *configv1beta1.ClusterPromotion, current map[freeze.Ref]string) error {
	keep := map[freeze.Ref]bool{}
	for ref, name := range current {
		keep[freeze.Ref{Kind: ref.Kind, Namespace: ref.Namespace, Name: name}] = true
	}
	profiles, err := r.ownedProfiles(ctx, p)
	if err != nil {
		return err
	}
	for i := range profiles {
		for _, ref := range specRefs(&profiles[i].Spec) {
			keep[ref] = true
		}
	}
	var summaries configv1beta1.ClusterSummaryList
	if err := r.List(ctx, &summaries, client.MatchingLabels{configv1beta1.PromotionNameLabel: p.Name}); err != nil {
		return err
	}
	for i := range summaries.Items {
		for _, ref := range specRefs(&summaries.Items[i].Spec.ClusterProfileSpec) {
			keep[ref] = true
		}
	}
	return freeze.Collect(ctx, r.Client, p.Name, keep)
}

// promotionsReading finds the promotions whose version reads a ConfigMap or Secret, so that an
// edit to it starts a new version at once.
func (r *Reconciler) promotionsReading(kind string) func(context.Context, client.Object) []reconcile.Request {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		if _, isCopy := obj.GetLabels()[freeze.OwnerLabel]; isCopy {
			return nil
		}
		var list configv1beta1.ClusterPromotionList
		if err := r.List(ctx, &list); err != nil {
			return nil
		}
		ref := freeze.Ref{Kind: kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}
		var out []reconcile.Request
		for i := range list.Items {
			if slices.Contains(contentRefs(&list.Items[i]), ref) {
				out = append(out, reconcile.Request{NamespacedName: client.ObjectKey{Name: list.Items[i].Name}})
			}
		}
		return out
	}
}
