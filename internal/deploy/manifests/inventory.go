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
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

// InventoryNamespace holds, on each managed cluster, one inventory ConfigMap per owner.
// Keeping inventories on the managed cluster, next to what they describe, means they survive
// controller restarts and cannot disagree with the cluster after the management cluster is
// restored from a backup.
const InventoryNamespace = "stagecoach-system"

// InventoryLabel marks inventory ConfigMaps; its value is the owner's hash.
const InventoryLabel = "stagecoach.dev/inventory"

// Keys of an inventory ConfigMap.
const (
	inventoryOwnerKey   = "owner"
	inventoryObjectsKey = "objects"
)

// InventoryName is the name of owner's inventory ConfigMap in InventoryNamespace.
func InventoryName(owner string) string { return "inventory-" + ownerHash(owner) }

// entry is one object in an inventory.
type entry struct {
	ObjectRef
	// Fields is fieldsHash of the object right after it was last applied; empty when unknown.
	Fields string `json:"fields,omitempty"`
	// Manifest is manifestHash of what was last applied; empty when unknown.
	Manifest string `json:"manifest,omitempty"`
}

// inventory is what one owner deployed on one cluster.
type inventory struct {
	owner   string
	entries []entry
	// resourceVersion of the stored ConfigMap, empty when there is none; stored is its objects
	// value, to skip writes that change nothing.
	resourceVersion string
	stored          string
}

// records is where the inventories of what is deployed through remote are kept.
func records(remote *fleet.Remote) *fleet.Remote {
	if remote.Records != nil {
		return remote.Records
	}
	return remote
}

// loadInventory reads owner's inventory; a missing one is empty.
func loadInventory(ctx context.Context, remote *fleet.Remote, owner string) (*inventory, error) {
	inv := &inventory{owner: owner}
	cm, err := remote.Core.ConfigMaps(InventoryNamespace).Get(ctx, InventoryName(owner), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return inv, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the inventory of %q: %w", owner, err)
	}
	if got := cm.Data[inventoryOwnerKey]; got != owner {
		return nil, permanentf("inventory %s/%s belongs to %q, not %q", cm.Namespace, cm.Name, got, owner)
	}
	inv.resourceVersion = cm.ResourceVersion
	inv.stored = cm.Data[inventoryObjectsKey]
	if inv.stored != "" {
		if err := json.Unmarshal([]byte(inv.stored), &inv.entries); err != nil {
			return nil, fmt.Errorf("inventory %s/%s is corrupt: %w", cm.Namespace, cm.Name, err)
		}
	}
	return inv, nil
}

// find returns the entry of an object, or nil.
func (inv *inventory) find(ref ObjectRef) *entry {
	for i := range inv.entries {
		if inv.entries[i].key() == ref.key() {
			return &inv.entries[i]
		}
	}
	return nil
}

// with returns a copy of the entries with es added or replaced, sorted.
func (inv *inventory) with(es ...entry) []entry {
	byKey := map[string]entry{}
	for _, e := range inv.entries {
		byKey[e.key()] = e
	}
	for _, e := range es {
		byKey[e.key()] = e
	}
	out := make([]entry, 0, len(byKey))
	for _, e := range byKey {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b entry) int { return strings.Compare(a.key(), b.key()) })
	return out
}

// encode writes one entry per line, so that `kubectl get -o yaml` stays readable.
func encodeEntries(entries []entry) string {
	lines := make([]string, 0, len(entries))
	for _, e := range entries {
		b, _ := json.Marshal(e) // plain strings only: cannot fail
		lines = append(lines, string(b))
	}
	return "[\n" + strings.Join(lines, ",\n") + "\n]"
}

// save stores entries as the inventory, creating the namespace and ConfigMap if needed; an
// owner with nothing deployed has no inventory.
func (inv *inventory) save(ctx context.Context, remote *fleet.Remote, entries []entry) error {
	if len(entries) == 0 {
		return inv.remove(ctx, remote)
	}
	objects := encodeEntries(entries)
	if inv.resourceVersion != "" && objects == inv.stored {
		inv.entries = entries
		return nil
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name:            InventoryName(inv.owner),
			Namespace:       InventoryNamespace,
			ResourceVersion: inv.resourceVersion,
			Labels:          map[string]string{InventoryLabel: ownerHash(inv.owner), "app.kubernetes.io/managed-by": FieldManager},
			Annotations:     map[string]string{OwnerAnnotation: inv.owner},
		},
		Data: map[string]string{inventoryOwnerKey: inv.owner, inventoryObjectsKey: objects},
	}
	cms := remote.Core.ConfigMaps(InventoryNamespace)
	var err error
	if inv.resourceVersion == "" {
		if err = ensureNamespace(ctx, remote, InventoryNamespace); err == nil {
			cm, err = cms.Create(ctx, cm, metav1.CreateOptions{FieldManager: FieldManager})
		}
	} else {
		// The resourceVersion makes this fail, rather than lose entries, if another writer
		// changed the inventory since it was read.
		cm, err = cms.Update(ctx, cm, metav1.UpdateOptions{FieldManager: FieldManager})
	}
	if err != nil {
		return fmt.Errorf("writing the inventory of %q: %w", inv.owner, err)
	}
	inv.entries, inv.stored, inv.resourceVersion = entries, objects, cm.ResourceVersion
	return nil
}

// remove deletes the inventory ConfigMap.
func (inv *inventory) remove(ctx context.Context, remote *fleet.Remote) error {
	if inv.resourceVersion == "" {
		return nil
	}
	err := remote.Core.ConfigMaps(InventoryNamespace).Delete(ctx, InventoryName(inv.owner), metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting the inventory of %q: %w", inv.owner, err)
	}
	inv.entries, inv.stored, inv.resourceVersion = nil, "", ""
	return nil
}

// ensureNamespace creates a namespace unless it exists.
func ensureNamespace(ctx context.Context, remote *fleet.Remote, name string) error {
	nss := remote.Core.Namespaces()
	if _, err := nss.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		return err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := nss.Create(ctx, ns, metav1.CreateOptions{FieldManager: FieldManager}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", name, err)
	}
	return nil
}
