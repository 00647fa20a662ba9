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
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ownerHash is a label-safe stand-in for an owner: 128 bits of its SHA-256.
func ownerHash(owner string) string {
	sum := sha256.Sum256([]byte(owner))
	return hex.EncodeToString(sum[:16])
}

// mark writes the owner and tier into the object's labels and annotations.
func mark(u *unstructured.Unstructured, owner string, tier int32) {
	labels := u.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[OwnerLabel] = ownerHash(owner)
	labels[TierLabel] = strconv.Itoa(int(tier))
	u.SetLabels(labels)
	annotations := u.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[OwnerAnnotation] = owner
	u.SetAnnotations(annotations)
}

// ownerOf reads the marks of a live object. An object without them has no owner ("").
func ownerOf(live *unstructured.Unstructured) (owner string, tier int32) {
	owner = live.GetAnnotations()[OwnerAnnotation]
	tier = DefaultTier
	if t, err := strconv.ParseInt(live.GetLabels()[TierLabel], 10, 32); err == nil {
		tier = int32(t)
	}
	return owner, tier
}

// conflictWith decides whether owner (with tier) may apply over live. It returns nil when the
// object is absent, unowned (it is adopted), owner's own, or owned by a losing owner (it is taken
// over); otherwise the conflict to report.
func conflictWith(live *unstructured.Unstructured, owner string, tier int32) *Conflict {
	if live == nil {
		return nil
	}
	other, otherTier := ownerOf(live)
	if other == "" || other == owner || tier < otherTier {
		return nil
	}
	ref := RefOf(live)
	return &Conflict{
		Object: ref,
		Owner:  other,
		Tier:   otherTier,
		Message: fmt.Sprintf("%s is deployed by %q with tier %d; tier %d does not take it over (a lower tier wins)",
			ref, other, otherTier, tier),
	}
}

// ownedBy reports whether a live object carries owner's marks.
func ownedBy(live *unstructured.Unstructured, owner string) bool {
	o, _ := ownerOf(live)
	return o == owner
}

// serverFields are maintained by the API server; a manifest copied from a live object may carry
// them, and applying them would fail (managedFields) or make the apply conditional
// (resourceVersion).
var serverFields = []string{"resourceVersion", "uid", "generation", "creationTimestamp", "managedFields", "selfLink"}

// normalize prepares a copy of a manifest for applying.
func normalize(u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	u = u.DeepCopy()
	for _, f := range serverFields {
		unstructured.RemoveNestedField(u.Object, "metadata", f)
	}
	if err := foldStringData(u); err != nil {
		return nil, err
	}
	return u, nil
}

// foldStringData moves a Secret's stringData into data. The server does the same on write and
// never returns stringData, so applying it would record field ownership of fields that do not
// exist, hide later edits of data from drift detection, and show a diff forever.
func foldStringData(u *unstructured.Unstructured) error {
	if u.GetAPIVersion() != "v1" || u.GetKind() != "Secret" {
		return nil
	}
	stringData, found, err := unstructured.NestedStringMap(u.Object, "stringData")
	if err != nil {
		return fmt.Errorf("stringData: %w", err)
	}
	if !found {
		return nil
	}
	data, _, err := unstructured.NestedMap(u.Object, "data")
	if err != nil {
		return fmt.Errorf("data: %w", err)
	}
	if data == nil {
		data = map[string]any{}
	}
	for k, v := range stringData {
		data[k] = base64.StdEncoding.EncodeToString([]byte(v))
	}
	unstructured.RemoveNestedField(u.Object, "stringData")
	return unstructured.SetNestedMap(u.Object, data, "data")
}

// fieldsHash summarises the fields the object's server-side apply configuration from
// FieldManager owns. Another writer cannot change the value of one of those fields without
// taking its ownership (or removing it), which changes this hash: equal hashes prove the fields
// were not touched since they were recorded, without asking the server for a dry run.
func fieldsHash(u *unstructured.Unstructured) string {
	for _, e := range u.GetManagedFields() {
		if e.Manager != FieldManager || e.Operation != metav1.ManagedFieldsOperationApply || e.Subresource != "" {
			continue
		}
		h := sha256.New()
		h.Write([]byte(e.APIVersion))
		h.Write([]byte{0})
		if e.FieldsV1 != nil {
			h.Write(e.FieldsV1.GetRawBytes())
		}
		return hex.EncodeToString(h.Sum(nil)[:16])
	}
	return ""
}
