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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// markPaths are the fields mark writes; they are left out when a manifest is compared with an
// object nobody deployed, which cannot carry them yet.
var markPaths = []pointer{
	{"metadata", "labels", OwnerLabel},
	{"metadata", "labels", TierLabel},
	{"metadata", "annotations", OwnerAnnotation},
}

// shownChanges bounds how many changed fields an error lists.
const shownChanges = 5

// mayApply refuses to apply over a live object when the request's Kubefleet options say so (its
// messages name the applyStrategy fields, which only placements set):
// co-owned objects, objects nobody deployed that the request must not adopt, and objects of this
// owner that drifted while their manifest stayed the same.
func (a *applier) mayApply(ctx context.Context, it *item) error {
	if it.live == nil {
		return nil
	}
	if refs := it.live.GetOwnerReferences(); a.req.RefuseCoOwned && len(refs) > 0 {
		return permanentf("%s is owned by %s %s on the cluster and is not applied over (applyStrategy.allowCoOwnership is false)",
			it.describe(), refs[0].Kind, refs[0].Name)
	}
	switch owner, _ := ownerOf(it.live); {
	case owner == "" && a.req.Adopt == AdoptNever:
		return permanentf("%s already exists on the cluster, deployed by nobody, and is not taken over (applyStrategy.whenToTakeOver is Never)", it.describe())
	case owner == "" && a.req.Adopt == AdoptIfNoDiff:
		changes, err := a.compare(ctx, it, markPaths)
		if err != nil {
			return err
		}
		if len(changes) > 0 {
			return permanentf("%s already exists on the cluster, deployed by nobody, and differs from its manifest, so it is not taken over (applyStrategy.whenToTakeOver is IfNoDiff): %s",
				it.describe(), summarize(texts(changes)))
		}
	case owner == a.req.Owner && a.req.KeepDrift:
		e := a.inv.find(it.ref())
		// The hash of the fields this owner manages proves nothing about the others.
		untouched := !a.req.FullComparison && e != nil && e.Fields != "" && e.Fields == fieldsHash(it.live)
		if e == nil || e.Manifest != manifestHash(it.obj) || untouched {
			return nil // a new manifest, or provably untouched since it was applied
		}
		changes, err := a.compare(ctx, it, nil)
		if err != nil {
			return err
		}
		if len(changes) > 0 {
			return permanentf("%s was changed on the cluster since it was applied and is not applied again while it drifts (applyStrategy.whenToApply is IfNotDrifted): %s",
				it.describe(), summarize(texts(changes)))
		}
	}
	return nil
}

// summarize lists the first changes and says how many more there are.
func summarize(changes []string) string {
	if len(changes) <= shownChanges {
		return strings.Join(changes, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(changes[:shownChanges], "; "), len(changes)-shownChanges)
}

// manifestHash identifies a prepared manifest, to tell a new manifest from the one last applied.
func manifestHash(u *unstructured.Unstructured) string {
	data, err := json.Marshal(u.Object)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:16])
}
