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
	"regexp"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

// Drift is an object of the set whose state on the cluster is not what applying the set gives.
type Drift struct {
	Object ObjectRef
	// Missing is set when the object is not on the cluster (or its kind is not served).
	Missing bool
	// Changes lists the fields that differ, from live to desired, as in Diff.Changes.
	Changes []string
	// Fields are the same changes with their paths and values apart.
	Fields []FieldChange
	// LiveGeneration is the object's generation on the cluster.
	LiveGeneration int64
}

// Drifted compares the objects of req with the cluster and returns those a new Apply would
// change. req must be the request last applied: a changed set is a redeploy, not drift, and the
// shortcut below only holds for what was applied. Fields owned only by other field managers are not compared (apply
// does not touch them), nor are driftExclusions paths; objects a winning owner holds are not
// this owner's to repair and are skipped. Applying req again repairs the drift.
//
// How it stays cheap: an object's entry in the inventory keeps a hash of the fields
// FieldManager owned right after the apply. Nobody can change the value of one of those fields
// without taking it over or removing it, both of which change the hash; so an equal hash proves
// the object has not drifted, at the cost of one GET (a writer that rewrites managedFields
// itself could defeat this; kubectl edit, patch, scale and apply do not). Only objects whose hash changed get a
// server-side dry-run apply, whose answer is compared with the live object: the server does the
// merging, defaulting and normalisation, so nothing of apply's semantics is re-implemented here.
func Drifted(ctx context.Context, remote *fleet.Remote, req Request) ([]Drift, error) {
	a, err := newApplier(ctx, remote, req)
	if err != nil {
		return nil, err
	}
	inv, err := loadInventory(ctx, records(remote), req.Owner)
	if err != nil {
		return nil, err
	}
	if err := a.inspect(ctx); err != nil {
		return nil, err
	}
	var drifts []Drift
	var errs []error
	for _, it := range a.items {
		switch {
		case it.conflict != nil:
			continue
		case it.live == nil:
			drifts = append(drifts, Drift{Object: it.ref(), Missing: true})
			continue
		}
		if e := inv.find(it.ref()); !req.FullComparison && e != nil && e.Fields != "" && e.Fields == fieldsHash(it.live) {
			continue
		}
		changes, err := a.changes(ctx, it)
		if err != nil {
			errs = append(errs, fmt.Errorf("comparing %s: %w", it.describe(), err))
			continue
		}
		if len(changes) > 0 {
			drifts = append(drifts, Drift{Object: it.ref(), Changes: texts(changes), Fields: changes, LiveGeneration: it.live.GetGeneration()})
		}
	}
	return drifts, errors.Join(errs...)
}

// changes dry-runs applying an item that exists and lists what the apply would change. The
// answer of a dry run carries the resourceVersion of the state it was computed from; it is
// compared with a live object of that same version only, so that a controller writing the
// object meanwhile (a Deployment's status, say) is not mistaken for a change.
func (a *applier) changes(ctx context.Context, it *item) ([]FieldChange, error) {
	return a.compare(ctx, it, nil)
}

// compare is changes with the fields at ignored left out as well as the drift exclusions. With
// FullComparison the manifest is compared with the live object as it is, every field counting
// but those no manifest sets (see comparable).
func (a *applier) compare(ctx context.Context, it *item, ignored []pointer) ([]FieldChange, error) {
	paths, err := excludedPaths(it.obj, a.req.DriftExclusions)
	if err != nil {
		return nil, err
	}
	paths = append(paths, ignored...)
	if a.req.FullComparison {
		desired, err := a.withExclusions(it)
		if err != nil {
			return nil, err
		}
		return fieldDiffs(comparable(it.live, paths), comparable(desired, paths), isSecret(it.obj)), nil
	}
	res := a.remote.Resource(it.mapping, it.obj.GetNamespace())
	for range 5 {
		desired, err := a.withExclusions(it)
		if err != nil {
			return nil, err
		}
		out, err := res.Apply(ctx, it.obj.GetName(), desired, applyOptions(true))
		if err != nil {
			return nil, err
		}
		if out.GetResourceVersion() == it.live.GetResourceVersion() {
			return fieldDiffs(stripped(it.live, paths), stripped(out, paths), isSecret(it.obj)), nil
		}
		if it.live, err = res.Get(ctx, it.obj.GetName(), metav1.GetOptions{}); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("%s changes too often to be compared; trying again later", it.ref())
}

// withExclusions returns the item's manifest with the fields of its drift exclusions set to
// their live values (or removed where the live object has none), so that applying it leaves
// those fields as they are. An object that does not exist yet gets the manifest's values.
func (a *applier) withExclusions(it *item) (*unstructured.Unstructured, error) {
	if it.live == nil || len(a.req.DriftExclusions) == 0 {
		return it.obj, nil
	}
	paths, err := excludedPaths(it.obj, a.req.DriftExclusions)
	if err != nil || len(paths) == 0 {
		return it.obj, err
	}
	desired := it.obj.DeepCopy()
	for _, p := range paths {
		if v, ok := p.get(it.live.Object); ok {
			p.set(desired.Object, v)
		} else {
			p.remove(desired.Object)
		}
	}
	return desired, nil
}

// excludedPaths returns the paths of the exclusions whose target selects u.
func excludedPaths(u *unstructured.Unstructured, exclusions []libv1beta1.DriftExclusion) ([]pointer, error) {
	var paths []pointer
	for _, ex := range exclusions {
		ok, err := selects(ex.Target, u)
		if err != nil {
			return nil, &PermanentError{Err: fmt.Errorf("driftExclusions target: %w", err)}
		}
		if !ok {
			continue
		}
		for _, s := range ex.Paths {
			p, err := parsePointer(s)
			if err != nil {
				return nil, &PermanentError{Err: fmt.Errorf("driftExclusions: %w", err)}
			}
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// selects reports whether a PatchSelector picks u. Group, version, kind, namespace and name are
// regular expressions matched against the whole value (a plain name matches itself), as
// kustomize's selectors are; the label and annotation selectors use label-selector syntax. A
// nil selector picks everything.
func selects(sel *libv1beta1.PatchSelector, u *unstructured.Unstructured) (bool, error) {
	if sel == nil {
		return true, nil
	}
	gvk := u.GroupVersionKind()
	for _, f := range []struct{ pattern, value string }{
		{sel.Group, gvk.Group}, {sel.Version, gvk.Version}, {sel.Kind, gvk.Kind},
		{sel.Namespace, u.GetNamespace()}, {sel.Name, u.GetName()},
	} {
		if f.pattern == "" {
			continue
		}
		re, err := regexp.Compile("^(?:" + f.pattern + ")$")
		if err != nil {
			return false, err
		}
		if !re.MatchString(f.value) {
			return false, nil
		}
	}
	for _, f := range []struct {
		selector string
		set      map[string]string
	}{{sel.LabelSelector, u.GetLabels()}, {sel.AnnotationSelector, u.GetAnnotations()}} {
		if f.selector == "" {
			continue
		}
		s, err := labels.Parse(f.selector)
		if err != nil {
			return false, err
		}
		if !s.Matches(labels.Set(f.set)) {
			return false, nil
		}
	}
	return true, nil
}
