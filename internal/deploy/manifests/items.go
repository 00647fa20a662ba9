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

package manifests

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

// applier carries one request through Apply, Drifted or a dry run.
type applier struct {
	remote *fleet.Remote
	req    Request
	log    logr.Logger
	items  []*item
	// inv is the owner's inventory as Apply found it; nil elsewhere.
	inv *inventory
}

// item is one object of the request and what is known of it on the cluster.
type item struct {
	// obj is the manifest prepared for applying: normalised, marked, namespace defaulted.
	obj    *unstructured.Unstructured
	source string
	opts   Options
	// mapping is nil while the cluster does not serve the kind (its CRD is in the set).
	mapping *meta.RESTMapping
	// live is the object on the cluster before anything was written; nil when absent.
	live     *unstructured.Unstructured
	conflict *Conflict
	// applied is the server's answer to the apply; nil until applied.
	applied *unstructured.Unstructured
}

func (it *item) ref() ObjectRef { return RefOf(it.obj) }

// describe names the object and its source for messages.
func (it *item) describe() string {
	if it.source == "" {
		return it.ref().String()
	}
	return it.ref().String() + " (from " + it.source + ")"
}

func (it *item) isNamespace() bool {
	gvk := it.obj.GroupVersionKind()
	return gvk.Group == "" && gvk.Kind == "Namespace"
}

func (it *item) isCRD() bool {
	gvk := it.obj.GroupVersionKind()
	return gvk.Group == "apiextensions.k8s.io" && gvk.Kind == "CustomResourceDefinition"
}

// newApplier checks the request and prepares its objects; it reads nothing from the cluster.
func newApplier(ctx context.Context, remote *fleet.Remote, req Request) (*applier, error) {
	if req.Owner == "" {
		return nil, permanentf("the request names no owner")
	}
	if req.Tier == 0 {
		req.Tier = DefaultTier
	}
	a := &applier{
		remote: remote,
		req:    req,
		log:    logr.FromContextOrDiscard(ctx).WithValues("cluster", remote.Ref.String(), "owner", req.Owner),
	}
	var errs []error
	for i, o := range req.Objects {
		if o.Manifest == nil {
			errs = append(errs, permanentf("object %d of the request (from %s) is nil", i+1, o.Source))
			continue
		}
		if err := validateObject(o.Manifest); err != nil {
			errs = append(errs, &ParseError{Source: o.Source, Err: err})
			continue
		}
		obj, err := normalize(o.Manifest)
		if err != nil {
			errs = append(errs, permanentf("%s (from %s): %w", RefOf(o.Manifest), o.Source, err))
			continue
		}
		it := &item{obj: obj, source: o.Source, opts: o.Options}
		mark(obj, req.Owner, a.tier(it))
		a.items = append(a.items, it)
	}
	return a, errors.Join(errs...)
}

// tier is the tier the item is deployed with.
func (a *applier) tier(it *item) int32 {
	if it.opts.Tier != 0 {
		return it.opts.Tier
	}
	return a.req.Tier
}

// inspect resolves every item's kind and namespace, reads it from the cluster and settles
// conflicts with other owners.
func (a *applier) inspect(ctx context.Context) error {
	seen := map[string]*item{}
	var errs []error
	for _, it := range a.items {
		if err := a.resolve(it); err != nil {
			errs = append(errs, err)
			continue
		}
		key := it.ref().key()
		if prev := seen[key]; prev != nil {
			errs = append(errs, permanentf("%s is in the set twice: from %s and from %s", it.ref(), prev.source, it.source))
			continue
		}
		seen[key] = it
		if it.mapping == nil {
			continue // its CRD is not installed: it cannot exist yet
		}
		live, err := a.remote.Resource(it.mapping, it.obj.GetNamespace()).Get(ctx, it.obj.GetName(), metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			errs = append(errs, fmt.Errorf("reading %s: %w", it.describe(), err))
		default:
			it.live = live
			it.conflict = conflictWith(live, a.req.Owner, a.tier(it))
		}
	}
	return errors.Join(errs...)
}

// resolve finds how the cluster serves the item's kind and defaults its namespace. A kind the
// cluster does not serve yet is accepted when a CRD of the set defines it.
func (a *applier) resolve(it *item) error {
	gvk := it.obj.GroupVersionKind()
	m, err := a.remote.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	switch {
	case err == nil:
		it.mapping = m
		DefaultNamespace(it.obj, m.Scope.Name() == meta.RESTScopeNameNamespace)
		return nil
	case !meta.IsNoMatchError(err):
		return fmt.Errorf("looking up the kind of %s: %w", it.describe(), err)
	}
	if scope, ok := a.scopeFromCRDs(gvk); ok {
		DefaultNamespace(it.obj, scope == "Namespaced")
		return nil
	}
	return &PermanentError{Err: fmt.Errorf("%s: the cluster serves no kind %s in %s and no CustomResourceDefinition in the set defines it: %w",
		it.describe(), gvk.Kind, gvk.GroupVersion(), err)}
}

// scopeFromCRDs returns the scope ("Namespaced" or "Cluster") of a kind defined, and served in
// that version, by a CRD of the set.
func (a *applier) scopeFromCRDs(gvk schema.GroupVersionKind) (string, bool) {
	for _, it := range a.items {
		if !it.isCRD() {
			continue
		}
		if slices.Contains(servedKinds(it.obj), gvk) {
			scope, _, _ := unstructured.NestedString(it.obj.Object, "spec", "scope")
			return scope, true
		}
	}
	return "", false
}

// createNamespaces creates the namespaces the items go to, unless the set declares them or
// the items skip namespace creation. Namespaces created this way are not in the inventory: they
// may hold objects of others, and are never deleted.
func (a *applier) createNamespaces(ctx context.Context, items []*item) error {
	declared := map[string]bool{}
	for _, it := range items {
		if it.isNamespace() {
			declared[it.obj.GetName()] = true
		}
	}
	for _, it := range items {
		ns := it.obj.GetNamespace()
		if ns == "" || declared[ns] || it.opts.SkipNamespaceCreation {
			continue
		}
		if err := ensureNamespace(ctx, a.remote, ns); err != nil {
			return fmt.Errorf("%s: %w", it.describe(), err)
		}
		declared[ns] = true
	}
	return nil
}
