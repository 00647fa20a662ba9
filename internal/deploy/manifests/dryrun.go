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

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// dryRun reports what apply would do, writing nothing: every object is dry-run applied by the
// server (so that what the server would reject is reported as an error), except those that
// cannot be yet: objects whose CRD or namespace the set itself would create.
func (a *applier) dryRun(ctx context.Context, inv *inventory) (Result, error) {
	res := Result{Conflicts: a.conflicts()}
	namespaces, err := a.namespacesToCreate(ctx)
	if err != nil {
		return res, err
	}
	for _, ns := range namespaces {
		res.Diffs = append(res.Diffs, Diff{
			Object:  ObjectRef{Version: "v1", Kind: "Namespace", Name: ns},
			Action:  DiffCreate,
			Message: "created for the objects it holds (not part of the inventory)",
		})
	}
	first, rest := stages(a.items)
	var errs []error
	for _, it := range slices.Concat(first, rest) {
		diff, err := a.dryRunOne(ctx, it, namespaces)
		if err != nil {
			errs = append(errs, err)
		}
		if diff != nil {
			res.Diffs = append(res.Diffs, *diff)
		}
	}
	for _, e := range leftOut(inv, a.deployable()) {
		live, _, err := ownedLive(ctx, a.remote, a.req.Owner, e)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("reading %s: %w", e.ObjectRef, err))
		case live != nil:
			res.Diffs = append(res.Diffs, Diff{Object: e.ObjectRef, Action: DiffDelete, Message: "no longer in the set"})
		}
	}
	return res, errors.Join(errs...)
}

// dryRunOne says what apply would do to one item; nil when nothing.
func (a *applier) dryRunOne(ctx context.Context, it *item, newNamespaces []string) (*Diff, error) {
	diff := &Diff{Object: it.ref()}
	switch {
	case it.conflict != nil:
		diff.Action, diff.Message = DiffConflict, it.conflict.Message
		return diff, nil
	case it.mapping == nil:
		diff.Action, diff.Message = DiffCreate, "not validated: its CustomResourceDefinition is not installed yet"
		return diff, nil
	case it.live == nil && it.obj.GetNamespace() != "" && !a.namespaceExists(ctx, it.obj.GetNamespace(), newNamespaces):
		diff.Action = DiffCreate
		diff.Message = fmt.Sprintf("not validated: namespace %s does not exist yet", it.obj.GetNamespace())
		return diff, nil
	case it.live == nil:
		if err := a.dryRunCreate(ctx, it); err != nil {
			return nil, err
		}
		diff.Action = DiffCreate
		return diff, nil
	}
	var ignored []pointer
	if a.req.ContentOnly {
		ignored = markPaths
	}
	changes, err := a.compare(ctx, it, ignored)
	switch {
	case err != nil && isImmutable(err) && it.opts.Force:
		diff.Action, diff.Message = DiffUpdate, "deleted and recreated: the update changes immutable fields"
		return diff, nil
	case err != nil:
		return nil, a.failure(it, err)
	}
	diff.Action, diff.Changes, diff.Fields, diff.LiveGeneration = DiffUpdate, texts(changes), changes, it.live.GetGeneration()
	if other, tier := ownerOf(it.live); other != a.req.Owner && other != "" && !a.req.ContentOnly {
		diff.Message = fmt.Sprintf("taken over from %q (tier %d)", other, tier)
	} else if len(changes) == 0 {
		return nil, nil
	}
	return diff, nil
}

// dryRunCreate has the server validate an object that does not exist yet.
func (a *applier) dryRunCreate(ctx context.Context, it *item) error {
	res := a.remote.Resource(it.mapping, it.obj.GetNamespace())
	if _, err := res.Apply(ctx, it.obj.GetName(), it.obj, applyOptions(true)); err != nil {
		return a.failure(it, err)
	}
	return nil
}

// namespacesToCreate lists the namespaces apply would create for the items, in order.
func (a *applier) namespacesToCreate(ctx context.Context) ([]string, error) {
	declared := map[string]bool{}
	for _, it := range a.items {
		if it.isNamespace() {
			declared[it.obj.GetName()] = true
		}
	}
	var out []string
	for _, it := range a.items {
		ns := it.obj.GetNamespace()
		if ns == "" || declared[ns] || it.opts.SkipNamespaceCreation || it.conflict != nil {
			continue
		}
		declared[ns] = true
		_, err := a.remote.Core.Namespaces().Get(ctx, ns, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			out = append(out, ns)
		case err != nil:
			return nil, fmt.Errorf("reading namespace %s: %w", ns, err)
		}
	}
	return out, nil
}

// namespaceExists reports whether a namespace is on the cluster now.
func (a *applier) namespaceExists(ctx context.Context, ns string, toCreate []string) bool {
	if slices.Contains(toCreate, ns) {
		return false
	}
	_, err := a.remote.Core.Namespaces().Get(ctx, ns, metav1.GetOptions{})
	return err == nil
}
