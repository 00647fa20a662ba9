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
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

// Withdraw deletes everything owner deployed on the cluster and still owns, then its inventory
// (Sveltos' WithdrawPolicies: the cluster stopped matching, or the profile is gone). Objects
// another owner took over stay. Deletion is requested, not awaited: finalizers may keep objects
// a while. Objects whose deletion failed stay in the inventory for the next call. Namespaces that
// Apply created for the objects are not deleted; Namespaces in the set are.
func Withdraw(ctx context.Context, remote *fleet.Remote, owner string) ([]ObjectRef, error) {
	inv, err := loadInventory(ctx, records(remote), owner)
	if err != nil {
		return nil, err
	}
	deleted, survivors, err := prune(ctx, remote, owner, inv.entries)
	if len(survivors) > 0 {
		return deleted, errors.Join(err, inv.save(ctx, records(remote), survivors))
	}
	return deleted, errors.Join(err, inv.remove(ctx, records(remote)))
}

// Forget lets owner's objects stay on the cluster unmanaged (Sveltos' LeavePolicies): it takes
// the owner marks off every object owner still owns and deletes the inventory. A later Apply
// by any owner adopts them.
func Forget(ctx context.Context, remote *fleet.Remote, owner string) error {
	inv, err := loadInventory(ctx, records(remote), owner)
	if err != nil {
		return err
	}
	unmark, _ := json.Marshal(map[string]any{"metadata": map[string]any{
		"labels":      map[string]any{OwnerLabel: nil, TierLabel: nil},
		"annotations": map[string]any{OwnerAnnotation: nil},
	}})
	var errs []error
	var survivors []entry
	for _, e := range inv.entries {
		live, res, err := ownedLive(ctx, remote, owner, e)
		if err == nil && live != nil {
			_, err = res.Patch(ctx, e.Name, types.MergePatchType, unmark, metav1.PatchOptions{FieldManager: FieldManager})
		}
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("releasing %s: %w", e.ObjectRef, err))
			survivors = append(survivors, e)
		}
	}
	if len(survivors) > 0 {
		return errors.Join(append(errs, inv.save(ctx, records(remote), survivors))...)
	}
	return inv.remove(ctx, records(remote))
}

// prune deletes the objects of entries that owner still owns: objects first, then Namespaces,
// then CRDs (deleting a CRD deletes its objects, deleting a Namespace its content, so those go
// last). It returns what it deleted and the entries whose deletion failed, to keep in the
// inventory and retry.
func prune(ctx context.Context, remote *fleet.Remote, owner string, entries []entry) ([]ObjectRef, []entry, error) {
	log := logr.FromContextOrDiscard(ctx).WithValues("cluster", remote.Ref.String(), "owner", owner)
	entries = slices.Clone(entries)
	slices.SortStableFunc(entries, func(a, b entry) int { return cmp.Compare(deletionRank(a), deletionRank(b)) })
	var deleted []ObjectRef
	var survivors []entry
	var errs []error
	for _, e := range entries {
		live, res, err := ownedLive(ctx, remote, owner, e)
		if err == nil && live != nil {
			err = deleteExactly(ctx, res, live)
			if err == nil {
				log.Info("deleted", "object", e.String())
				deleted = append(deleted, e.ObjectRef)
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("deleting %s: %w", e.ObjectRef, err))
			survivors = append(survivors, e)
		}
	}
	return deleted, survivors, errors.Join(errs...)
}

func deletionRank(e entry) int {
	switch {
	case e.Group == "apiextensions.k8s.io" && e.Kind == "CustomResourceDefinition":
		return 2
	case e.Group == "" && e.Kind == "Namespace":
		return 1
	}
	return 0
}

// deleteExactly deletes live, and not an object recreated under its name since it was read.
func deleteExactly(ctx context.Context, res dynamic.ResourceInterface, live *unstructured.Unstructured) error {
	uid := live.GetUID()
	background := metav1.DeletePropagationBackground
	err := res.Delete(ctx, live.GetName(), metav1.DeleteOptions{
		PropagationPolicy: &background,
		Preconditions:     &metav1.Preconditions{UID: &uid},
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// ownedLive reads an inventory entry's object; it returns nil when the object is gone, its kind
// is no longer served, or owner does not own it any more.
func ownedLive(ctx context.Context, remote *fleet.Remote, owner string, e entry) (*unstructured.Unstructured, dynamic.ResourceInterface, error) {
	gk := e.GroupVersionKind().GroupKind()
	m, err := remote.Mapper.RESTMapping(gk, e.Version)
	if meta.IsNoMatchError(err) {
		// The version recorded may be gone while the kind is served in another.
		m, err = remote.Mapper.RESTMapping(gk)
	}
	if meta.IsNoMatchError(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	res := remote.Resource(m, e.Namespace)
	live, err := res.Get(ctx, e.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, res, nil
	}
	if err != nil {
		return nil, res, err
	}
	if !ownedBy(live, owner) {
		return nil, res, nil
	}
	return live, res, nil
}
