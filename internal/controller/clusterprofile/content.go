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

package clusterprofile

import (
	"context"
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fluxsource"
	"github.com/stagecoach-dev/stagecoach/internal/freeze"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

// unreadableError is content the profile references that could not be read.
type unreadableError struct{ error }

func (e unreadableError) Unwrap() error { return e.error }

func owner(profile configv1beta1.ProfileObj) freeze.Owner {
	return freeze.Owner{Object: profile, Kind: configv1beta1.ProfileFamilyOf(profile).Kind()}
}

// freezePhase freezes the content the profile reads. Summaries deploy frozen copies of it, so
// that a content edit is a change of their spec, rolled out as maxUpdate allows.
func (r *Reconciler) freezePhase(ctx context.Context, ps *pass) error {
	frozen, err := r.freezeContent(ctx, ps.profile)
	var unserved freeze.UnservedError
	if errors.As(err, &unserved) {
		// Nothing to retry until the spec or the management cluster changes; the profile says so.
		ps.invalid = unserved.Error()
		r.warnInvalid(ps, ps.invalid)
		return errHalt
	}
	var tooLarge *fluxsource.TooLargeError
	if errors.As(err, &tooLarge) || tenancy.IsRefused(err) {
		// A Flux source's artifact that cannot be kept, or a read the tenant model refuses (tenant
		// labels that name nobody valid, a Profile reaching out of its namespace): no retry helps,
		// a new artifact or spec does.
		ps.invalid = err.Error()
		r.warnInvalid(ps, ps.invalid)
		return errHalt
	}
	var unreadable unreadableError
	if errors.As(err, &unreadable) {
		// The tenant may be granted the read later: retried with backoff, and said meanwhile.
		ps.unreadable = err.Error()
		r.warnUnreadable(ps)
	}
	if err != nil {
		return err
	}
	r.unreadable.Reset(ps.profile.GetUID())
	ps.frozen, ps.content = frozen, freeze.Encode(frozen)
	return nil
}

// collectPhase deletes the copies of the content that nothing uses any more.
func (r *Reconciler) collectPhase(ctx context.Context, ps *pass) error {
	return r.collectCopies(ctx, ps.profile, ps.frozen, ps.existing)
}

// freezeContent copies what the profile refers to, ConfigMaps, Secrets, Flux artifacts and the
// objects of templateResourceRefs (package freeze), and
// returns the copies' names: the summaries get them in spec.frozenContent, and read through
// them. A content edit is then a change of the summaries' spec, rolled out as maxUpdate allows.
// References to copies made already (a promotion's stage profile refers to those) stay as
// they are.
func (r *Reconciler) freezeContent(ctx context.Context, profile configv1beta1.ProfileObj) (map[freeze.Ref]string, error) {
	promotion := ""
	if ref := metav1.GetControllerOf(profile); ref != nil && ref.Kind == "ClusterPromotion" {
		promotion = ref.Name
	}
	rd, err := r.tenants.Of(ctx, profile, configv1beta1.ProfileFamilyOf(profile).Namespaced, promotion, freeze.PromotionCopies(promotion))
	if err != nil && !tenancy.IsRefused(err) {
		// The controller may not act as the tenant (a ServiceAccount the chart's tenancy values do
		// not list): the profile says so, and is retried, as for content the tenant may not read.
		return nil, unreadableError{err}
	}
	if err != nil {
		return nil, err
	}
	contents, err := freeze.ReadSpec(ctx, rd, profile.ProfileSpec())
	if err != nil {
		return nil, unreadableError{err}
	}
	return freeze.Ensure(ctx, r.client, r.client.Scheme(), owner(profile), contents)
}

// collectCopies deletes the copies that neither the current content nor any summary uses.
func (r *Reconciler) collectCopies(ctx context.Context, profile configv1beta1.ProfileObj, names map[freeze.Ref]string, summaries []*configv1beta1.ClusterSummary) error {
	keep := freeze.Keep(names)
	for i := range summaries {
		for ref, name := range freeze.Decode(summaries[i].Spec.FrozenContent) {
			keep[ref.Copy(name)] = true
		}
	}
	return freeze.Collect(ctx, r.client, owner(profile), keep)
}

// profilesReading finds the profiles that read a ConfigMap or Secret (as content or through
// templateResourceRefs), so that an edit to it is rolled out at once. A Profile reads its own
// namespace only, whatever namespace its references name, and a reference without one means
// its namespace.
func (r *kindReconciler) profilesReading(kind string) func(context.Context, client.Object) []reconcile.Request {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		if !freeze.IsOriginal(obj) {
			return nil
		}
		list := r.family.NewProfileList()
		if err := r.client.List(ctx, list, client.InNamespace(r.family.Namespace(obj.GetNamespace())), client.UnsafeDisableDeepCopy); err != nil {
			return nil
		}
		var out []reconcile.Request
		for _, p := range list.ProfileObjs() {
			spec := p.ProfileSpec()
			if r.family.Namespaced {
				spec = spec.DeepCopy() // the cache's: scoped on a copy
				spec.ScopeToNamespace(p.GetNamespace())
			}
			if freeze.Reads(freeze.SpecRefs(spec), kind, obj) {
				out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(p)})
			}
		}
		return out
	}
}
