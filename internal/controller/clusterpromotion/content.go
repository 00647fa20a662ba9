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

	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/freeze"
	"github.com/stagecoach-dev/stagecoach/internal/inplace"
)

// A version of a promotion is its profileSpec and the content of the ConfigMaps and Secrets it
// refers to (policyRefs, helmCharts valuesFrom, kustomizationRefs and their valuesFrom,
// patchesFrom, the stages' preHealthCheckDeployment), the artifacts of the Flux sources it
// refers to, and the objects its templates read (templateResourceRefs). Each
// version's content is frozen in immutable copies (package freeze), and a stage's profile
// refers to the copies of the version it last received: editing a referenced ConfigMap starts
// a new version at the first stage, and later stages keep what they have until it reaches them.
// References without a namespace (the namespace of each cluster) or whose name is a template
// cannot be copied once for all clusters, and are read live; so is the cluster object that
// templates read as .Cluster.

// contentRefs lists what the promotion's version reads from the management cluster.
func contentRefs(p *configv1beta1.ClusterPromotion) []freeze.Ref {
	spec := p.Spec.ProfileSpec.ToSpec(libv1beta1.Selector{})
	return append(freeze.SpecRefs(&spec), stageRefs(p)...)
}

// stageRefs lists the content the stages' preHealthCheckDeployment reads.
func stageRefs(p *configv1beta1.ClusterPromotion) []freeze.Ref {
	var refs []freeze.Ref
	for i := range p.Spec.Stages {
		refs = append(refs, freeze.PolicyRefs(preHealthRefs(&p.Spec.Stages[i]))...)
	}
	return refs
}

func owner(p *configv1beta1.ClusterPromotion) freeze.Owner {
	return freeze.Owner{Object: p, Kind: "ClusterPromotion"}
}

// collectCopies deletes the copies no profile of the promotion, and no ClusterSummary of those
// profiles (one a rolling update has not reached yet, say), refers to any more.
func (r *Reconciler) collectCopies(ctx context.Context, p *configv1beta1.ClusterPromotion, current map[freeze.Ref]string, profiles []configv1beta1.ClusterProfile) error {
	summaries, err := inplace.List[configv1beta1.ClusterSummary](ctx, r.informers, r.client, &configv1beta1.ClusterSummaryList{},
		labels.SelectorFromSet(labels.Set{configv1beta1.PromotionNameLabel: p.Name}))
	if err != nil {
		return err
	}
	var specs []*configv1beta1.Spec
	for i := range profiles {
		specs = append(specs, &profiles[i].Spec)
	}
	for _, cs := range summaries {
		specs = append(specs, &cs.Spec.ClusterProfileSpec)
	}
	if lkg := p.Status.LastKnownGood; lkg != nil {
		// What a rollback goes back to stays, whoever uses it now.
		spec := knownGoodSpec(lkg, libv1beta1.Selector{})
		specs = append(specs, &spec)
	}
	return freeze.Collect(ctx, r.client, owner(p), freeze.Keep(current, specs...))
}

// promotionsReading finds the promotions whose version reads a ConfigMap or Secret, so that an
// edit to it starts a new version at once.
func (r *Reconciler) promotionsReading(kind string) func(context.Context, client.Object) []reconcile.Request {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		if !freeze.IsOriginal(obj) {
			return nil
		}
		var list configv1beta1.ClusterPromotionList
		if err := r.client.List(ctx, &list, client.UnsafeDisableDeepCopy); err != nil {
			return nil
		}
		var out []reconcile.Request
		for i := range list.Items {
			if freeze.Reads(contentRefs(&list.Items[i]), kind, obj) {
				out = append(out, reconcile.Request{NamespacedName: client.ObjectKey{Name: list.Items[i].Name}})
			}
		}
		return out
	}
}
