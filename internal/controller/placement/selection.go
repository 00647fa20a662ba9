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

package placement

import (
	"context"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// selectorError is a resource selector that cannot work as written. Retrying does not help;
// the user must edit the placement (or install the missing kind).
type selectorError struct{ msg string }

func (e *selectorError) Error() string { return e.msg }

func selectorErrorf(format string, args ...any) error {
	return &selectorError{msg: fmt.Sprintf(format, args...)}
}

// selection is what a placement's resource selectors picked on the hub.
type selection struct {
	// objects are normalised and in snapshot order.
	objects []*unstructured.Unstructured
	// kinds are the kinds the selectors name, to be watched.
	kinds []schema.GroupVersionKind
	// namespaces are the Namespaces whose contents were selected: an edit of anything in them
	// concerns the placement.
	namespaces []string
}

// selectResources runs a placement's resource selectors against the hub. It reads through the
// API server rather than a cache: a snapshot of stale content would be rolled out.
func (r *Reconciler) selectResources(ctx context.Context, f placementv1beta1.Family, p placementv1beta1.PlacementObj) (*selection, error) {
	sel := &selection{}
	seen := map[string]bool{}
	add := func(o *unstructured.Unstructured) {
		if skipObject(o) {
			return
		}
		key := o.GroupVersionKind().GroupKind().String() + "/" + o.GetNamespace() + "/" + o.GetName()
		if !seen[key] {
			seen[key] = true
			sel.objects = append(sel.objects, normalize(o))
		}
	}
	// A Namespace selector with scope NamespaceWithResourceSelectors lets the other selectors of
	// a ClusterResourcePlacement pick namespaced objects, inside that namespace.
	scopedNamespace := ""
	for _, t := range p.PlacementSpec().ResourceSelectors {
		if isNamespaceKind(t.Group, t.Kind) && t.SelectionScope == placementv1beta1.NamespaceWithResourceSelectors {
			scopedNamespace = t.Name
		}
	}
	for i, term := range p.PlacementSpec().ResourceSelectors {
		where := fmt.Sprintf("resourceSelectors[%d] (%s)", i, describeTerm(term))
		gvk := schema.GroupVersionKind{Group: term.Group, Version: term.Version, Kind: term.Kind}
		if isFleetGroup(gvk.Group) && !placementv1beta1.IsEnvelopeKind(gvk.Group, gvk.Kind) {
			return nil, selectorErrorf("%s: %s is one of the fleet's own kinds, which stay on the hub", where, gvk.GroupKind())
		}
		mapping, err := r.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if meta.IsNoMatchError(err) {
			return nil, selectorErrorf("%s: the hub cluster serves no kind %s in version %q", where, gvk.GroupKind(), gvk.Version)
		} else if err != nil {
			return nil, err
		}
		selector := labels.Everything()
		if term.LabelSelector != nil {
			if selector, err = metav1.LabelSelectorAsSelector(term.LabelSelector); err != nil {
				return nil, selectorErrorf("%s: invalid labelSelector: %v", where, err)
			}
		}
		sel.kinds = append(sel.kinds, gvk)
		namespaced := mapping.Scope.Name() == meta.RESTScopeNameNamespace
		var objs []*unstructured.Unstructured
		switch {
		case !f.Namespaced && isNamespaceKind(gvk.Group, gvk.Kind):
			if err := r.selectNamespaces(ctx, sel, add, where, term, selector); err != nil {
				return nil, err
			}
			continue
		case !f.Namespaced && namespaced && scopedNamespace == "":
			return nil, selectorErrorf("%s: %s is namespaced, and a ClusterResourcePlacement selects namespaced objects only "+
				"through their Namespace: select the Namespace (with selectionScope NamespaceWithResourceSelectors to pick "+
				"only some of its objects), or use a ResourcePlacement in that namespace", where, gvk.Kind)
		case !f.Namespaced && namespaced:
			objs, err = r.fetch(ctx, gvk, scopedNamespace, term.Name, selector)
		case f.Namespaced && !namespaced:
			return nil, selectorErrorf("%s: %s is cluster-scoped, and a ResourcePlacement selects only namespaced objects "+
				"of its own namespace: use a ClusterResourcePlacement", where, gvk.Kind)
		case f.Namespaced:
			objs, err = r.fetch(ctx, gvk, p.GetNamespace(), term.Name, selector)
		default:
			objs, err = r.fetch(ctx, gvk, "", term.Name, selector)
		}
		if apierrors.IsForbidden(err) {
			return nil, selectorErrorf("%s: Stagecoach may not read %s on the hub; grant it get, list and watch "+
				"(the Helm chart's placement.selectableResources) to place them", where, mapping.Resource.GroupResource())
		}
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			add(o)
		}
	}
	sortObjects(sel.objects)
	return sel, nil
}

// selectNamespaces adds the Namespaces a selector picks and, as its selectionScope says, their
// contents.
func (r *Reconciler) selectNamespaces(ctx context.Context, sel *selection, add func(*unstructured.Unstructured),
	where string, term placementv1beta1.ResourceSelectorTerm, selector labels.Selector) error {
	gvk := schema.GroupVersionKind{Version: term.Version, Kind: term.Kind}
	namespaces, err := r.fetch(ctx, gvk, "", term.Name, selector)
	if err != nil {
		return err
	}
	for _, ns := range namespaces {
		if reservedNamespace(ns.GetName()) {
			if term.Name != "" {
				return selectorErrorf("%s: namespace %s belongs to the hub cluster and cannot be placed", where, ns.GetName())
			}
			continue
		}
		if ns.GetDeletionTimestamp() != nil {
			continue
		}
		add(ns)
		if term.SelectionScope == placementv1beta1.NamespaceOnly || term.SelectionScope == placementv1beta1.NamespaceWithResourceSelectors {
			continue
		}
		sel.namespaces = append(sel.namespaces, ns.GetName())
		if err := r.addNamespaceContents(ctx, ns.GetName(), add); err != nil {
			return err
		}
	}
	return nil
}

// addNamespaceContents adds every object of namespace ns whose kind a Namespace carries.
func (r *Reconciler) addNamespaceContents(ctx context.Context, ns string, add func(*unstructured.Unstructured)) error {
	kinds, err := r.discovery.namespacedKinds(r.now())
	if err != nil {
		return fmt.Errorf("discovering the hub's namespaced kinds: %w", err)
	}
	for _, gvk := range kinds {
		objs, err := r.fetch(ctx, gvk, ns, "", labels.Everything())
		switch {
		case apierrors.IsNotFound(err), apierrors.IsMethodNotSupported(err), apierrors.IsForbidden(err), meta.IsNoMatchError(err):
			// The kind went away since discovery, or is not ours to read: nothing of it to place.
			continue
		case err != nil:
			return fmt.Errorf("listing %s in namespace %s: %w", gvk.Kind, ns, err)
		}
		for _, o := range objs {
			add(o)
		}
	}
	return nil
}

// fetch reads the object called name, or the objects matching selector, of kind gvk in
// namespace (all namespaces or cluster scope when empty). A named object that does not exist
// selects nothing.
func (r *Reconciler) fetch(ctx context.Context, gvk schema.GroupVersionKind, namespace, name string, selector labels.Selector) ([]*unstructured.Unstructured, error) {
	if name != "" {
		o := &unstructured.Unstructured{}
		o.SetGroupVersionKind(gvk)
		if err := r.reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, o); err != nil {
			return nil, client.IgnoreNotFound(err)
		}
		return []*unstructured.Unstructured{o}, nil
	}
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	opts := []client.ListOption{client.MatchingLabelsSelector{Selector: selector}}
	if namespace != "" {
		opts = append(opts, client.InNamespace(namespace))
	}
	if err := r.reader.List(ctx, l, opts...); err != nil {
		return nil, err
	}
	out := make([]*unstructured.Unstructured, 0, len(l.Items))
	for i := range l.Items {
		out = append(out, &l.Items[i])
	}
	return out, nil
}

func isNamespaceKind(group, kind string) bool { return group == "" && kind == "Namespace" }

// describeTerm renders a selector for messages: "v1 Namespace test-namespace".
func describeTerm(t placementv1beta1.ResourceSelectorTerm) string {
	gv := schema.GroupVersion{Group: t.Group, Version: t.Version}.String()
	switch {
	case t.Name != "":
		return fmt.Sprintf("%s %s %s", gv, t.Kind, t.Name)
	case t.LabelSelector != nil:
		return fmt.Sprintf("%s %s with labels %s", gv, t.Kind, metav1.FormatLabelSelector(t.LabelSelector))
	}
	return fmt.Sprintf("%s %s, all", gv, t.Kind)
}

// selectPhase runs the resource selectors. Selectors that cannot work are reported in the
// Scheduled condition, and the pass stops: nothing already placed changes.
func (r *kindReconciler) selectPhase(ctx context.Context, ps *pass) error {
	sel, err := r.selectResources(ctx, r.family, ps.p)
	var invalid *selectorError
	if errors.As(err, &invalid) {
		ct, reason := r.family.PlacementConditions().Scheduled, placementv1beta1.InvalidResourceSelectorsReason
		if !hasCondition(ps.p, ct, metav1.ConditionFalse, reason, invalid.msg) {
			r.recorder.Eventf(ps.p, nil, corev1.EventTypeWarning, reasonInvalidSelectors, "Select", "%s", invalid.msg)
			ctrl.LoggerFrom(ctx).Info("invalid resource selectors", "message", invalid.msg)
		}
		setCondition(ps.p, ct, metav1.ConditionFalse, reason, invalid.msg)
		return errHalt
	}
	if err != nil {
		return fmt.Errorf("selecting resources: %w", err)
	}
	// Watches are started beside the reconcile, not before it goes on: each kind costs access
	// reviews, and a controller restarted often must still get to its snapshots. A watch that
	// starts late lists what exists, which wakes the placement again.
	selectors := slices.Clone(ps.p.PlacementSpec().ResourceSelectors)
	kinds := slices.Clone(sel.kinds)
	go r.ensureWatches(context.WithoutCancel(ctx), selectors, kinds)
	r.rememberNamespaces(client.ObjectKeyFromObject(ps.p), sel.namespaces)
	ps.selection = sel
	return nil
}
