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
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

// recreateTimeout bounds the wait for an object deleted to be recreated (Options.Force).
const recreateTimeout = time.Minute

// Apply makes the cluster hold req.Objects on behalf of req.Owner, with server-side apply:
//
//  1. It reads every object and settles conflicts with other owners; with a conflict and
//     without ContinueOnConflict it stops there, returning a *ConflictError.
//  2. It records the new objects in the owner's inventory before creating them, so that a crash
//     cannot leave objects nobody will prune.
//  3. It creates missing namespaces, applies Namespaces and CRDs, waits for the CRDs to be
//     Established, then applies everything else.
//  4. If everything applied, it deletes what the previous inventory had and the set has not
//     (if the owner still owns it), and stores the new inventory. After any failure nothing is
//     pruned: bad input must not remove what is deployed.
//
// With req.DryRun nothing is written; Result.Diffs says what would happen. Errors for which
// IsPermanent is true need a change of input; others are worth retrying.
func Apply(ctx context.Context, remote *fleet.Remote, req Request) (Result, error) {
	a, err := newApplier(ctx, remote, req)
	if err != nil {
		return Result{}, err
	}
	inv, err := loadInventory(ctx, records(remote), req.Owner)
	if err != nil {
		return Result{}, err
	}
	a.inv = inv
	if err := a.inspect(ctx); err != nil {
		return Result{}, err
	}
	if req.DryRun {
		return a.dryRun(ctx, inv)
	}
	res := Result{Conflicts: a.conflicts()}
	if len(res.Conflicts) > 0 && !req.ContinueOnConflict {
		return res, &ConflictError{Conflicts: res.Conflicts}
	}
	return a.apply(ctx, inv, res)
}

func (a *applier) apply(ctx context.Context, inv *inventory, res Result) (Result, error) {
	wanted := a.deployable()
	var intent []entry
	for _, it := range wanted {
		if inv.find(it.ref()) == nil {
			intent = append(intent, entry{ObjectRef: it.ref()})
		}
	}
	if len(intent) > 0 {
		if err := inv.save(ctx, records(a.remote), inv.with(intent...)); err != nil {
			return res, err
		}
	}
	if err := a.createNamespaces(ctx, wanted); err != nil {
		return res, err
	}
	first, rest := stages(wanted)
	errs := a.applyStage(ctx, first)
	if len(errs) == 0 {
		if err := a.waitForCRDs(ctx, first); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 {
		errs = a.applyStage(ctx, rest)
	}
	applied := appliedEntries(slices.Concat(first, rest))
	res.Applied, res.DeployedGVKs = a.appliedRefs(first, rest)
	if len(errs) > 0 {
		errs = append(errs, inv.save(ctx, records(a.remote), inv.with(applied...)))
		return res, errors.Join(errs...)
	}
	pruned, survivors, pruneErr := prune(ctx, a.remote, a.req.Owner, leftOut(inv, wanted))
	res.Pruned = pruned
	keep := &inventory{entries: survivors}
	saveErr := inv.save(ctx, records(a.remote), keep.with(applied...))
	return res, errors.Join(pruneErr, saveErr)
}

// leftOut returns the inventory entries not among items: objects removed from the set, and
// objects a winning owner took over.
func leftOut(inv *inventory, items []*item) []entry {
	keys := map[string]bool{}
	for _, it := range items {
		keys[it.ref().key()] = true
	}
	var out []entry
	for _, e := range inv.entries {
		if !keys[e.key()] {
			out = append(out, e)
		}
	}
	return out
}

// deployable returns the items this owner may apply, in the order of the request.
func (a *applier) deployable() []*item {
	var wanted []*item
	for _, it := range a.items {
		if it.conflict == nil {
			wanted = append(wanted, it)
		}
	}
	return wanted
}

func (a *applier) conflicts() []Conflict {
	var cs []Conflict
	for _, it := range a.items {
		if it.conflict != nil {
			cs = append(cs, *it.conflict)
		}
	}
	return cs
}

// stages splits items into what other objects may need to exist first (Namespaces, then CRDs)
// and the rest, keeping the request's order inside each.
func stages(items []*item) (first, rest []*item) {
	var namespaces, crds []*item
	for _, it := range items {
		switch {
		case it.isNamespace():
			namespaces = append(namespaces, it)
		case it.isCRD():
			crds = append(crds, it)
		default:
			rest = append(rest, it)
		}
	}
	return append(namespaces, crds...), rest
}

func (a *applier) applyStage(ctx context.Context, items []*item) []error {
	var errs []error
	for _, it := range items {
		if err := a.applyOne(ctx, it); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

func (a *applier) applyOne(ctx context.Context, it *item) error {
	if it.mapping == nil {
		// The kind's CRD was applied in the first stage: look the kind up again.
		if err := a.resolve(it); err != nil {
			return err
		}
		if it.mapping == nil {
			return permanentf("%s: the cluster does not serve its kind although its CustomResourceDefinition was applied", it.describe())
		}
	}
	desired, err := a.withExclusions(it)
	if err != nil {
		return err
	}
	if err := a.mayApply(ctx, it); err != nil {
		return err
	}
	if it.live != nil {
		switch other, tier := ownerOf(it.live); other {
		case a.req.Owner:
		case "":
			a.log.Info("adopting an object no owner deploys", "object", it.ref().String())
		default:
			a.log.Info("taking over an object from a higher tier", "object", it.ref().String(), "from", other, "fromTier", tier)
		}
	}
	res := a.remote.Resource(it.mapping, it.obj.GetNamespace())
	opts := applyOptions(false)
	opts.Force = !a.req.NoForce
	out, err := res.Apply(ctx, it.obj.GetName(), desired, opts)
	if err != nil && isImmutable(err) && it.opts.Force {
		out, err = a.recreate(ctx, it, desired)
	}
	if err != nil {
		return a.failure(it, err)
	}
	a.log.V(1).Info("applied", "object", it.ref().String())
	it.applied = out
	return nil
}

func applyOptions(dryRun bool) metav1.ApplyOptions {
	opts := metav1.ApplyOptions{FieldManager: FieldManager, Force: true}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	return opts
}

// failure says which object failed, where it came from, and what may fix it.
func (a *applier) failure(it *item, err error) error {
	hint := ""
	switch {
	case isImmutable(err) && !it.opts.Force:
		hint = " (set force on its source to delete and recreate it)"
	case apierrors.IsNotFound(err) && it.obj.GetNamespace() != "" && it.opts.SkipNamespaceCreation:
		hint = fmt.Sprintf(" (namespace creation is skipped: does namespace %s exist?)", it.obj.GetNamespace())
	case apierrors.IsConflict(err) && a.req.NoForce:
		hint = " (applyStrategy.serverSideApplyConfig.force is false: fields another field manager owns are not taken over)"
	case isNamespaceTerminating(err):
		hint = " (retrying once the namespace is gone)"
	}
	return fmt.Errorf("applying %s: %w%s", it.describe(), err, hint)
}

// recreate deletes an object whose update the server refused as immutable, waits for it to be
// gone, and creates it again.
func (a *applier) recreate(ctx context.Context, it *item, desired *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	a.log.Info("deleting and recreating: the update changes immutable fields", "object", it.ref().String())
	res := a.remote.Resource(it.mapping, it.obj.GetNamespace())
	name := it.obj.GetName()
	background := metav1.DeletePropagationBackground
	opts := metav1.DeleteOptions{PropagationPolicy: &background}
	if it.live != nil {
		uid := it.live.GetUID()
		opts.Preconditions = &metav1.Preconditions{UID: &uid}
	}
	if err := res.Delete(ctx, name, opts); err != nil && !apierrors.IsNotFound(err) {
		return nil, err
	}
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, recreateTimeout, true, func(ctx context.Context) (bool, error) {
		live, err := res.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return err == nil && it.live != nil && live.GetUID() != it.live.GetUID(), nil
	})
	if err != nil {
		return nil, fmt.Errorf("waiting for the deletion to finish (finalizers?): %w", err)
	}
	return res.Apply(ctx, name, desired, applyOptions(false))
}

// appliedEntries returns inventory entries for the items applied, with their fields hash.
func appliedEntries(items []*item) []entry {
	var es []entry
	for _, it := range items {
		if it.applied != nil {
			es = append(es, entry{ObjectRef: it.ref(), Fields: fieldsHash(it.applied), Manifest: manifestHash(it.obj)})
		}
	}
	return es
}

// appliedRefs lists the objects applied in the order they were, and their kinds in the order
// of the request (which is how Sveltos lists deployedGVKs).
func (a *applier) appliedRefs(stagesApplied ...[]*item) ([]ObjectRef, []string) {
	var refs []ObjectRef
	for _, stage := range stagesApplied {
		for _, it := range stage {
			if it.applied != nil {
				refs = append(refs, it.ref())
			}
		}
	}
	var gvks []string
	for _, it := range a.items {
		if it.applied != nil && !slices.Contains(gvks, it.ref().GVK()) {
			gvks = append(gvks, it.ref().GVK())
		}
	}
	return refs, gvks
}
