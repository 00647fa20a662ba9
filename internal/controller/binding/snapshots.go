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

package binding

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
)

// inputError is a reason, found in the binding or its snapshots, not to apply anything; it goes
// to the Applied condition. Other errors of this package are trouble reading the management
// cluster, retried as they are.
type inputError struct {
	reason  string
	message string
	// failed lists the resources the error is about, for status.failedPlacements.
	failed []placementv1beta1.FailedResourcePlacement
}

func (e *inputError) Error() string { return e.message }

func notApplied(format string, args ...any) *inputError {
	return &inputError{reason: placementv1beta1.WorkNotAppliedReason, message: fmt.Sprintf(format, args...)}
}

// loadGroup reads the snapshot group that spec.resourceSnapshotName starts and returns its
// objects in order: the first snapshot's, then those of the others by subindex.
func (r *kindReconciler) loadGroup(ctx context.Context, b placementv1beta1.BindingObj) ([]manifests.Object, error) {
	spec := b.BindingSpec()
	ns := b.GetNamespace()
	if spec.ResourceSnapshotName == "" {
		return nil, notApplied("the binding is Bound but names no resource snapshot in spec.resourceSnapshotName")
	}
	first := r.family.NewResourceSnapshot()
	err := r.client.Get(ctx, r.family.Key(ns, spec.ResourceSnapshotName), first)
	if apierrors.IsNotFound(err) {
		return nil, notApplied("%s does not exist", r.family.Describe(r.family.ResourceSnapshotKind(), ns, spec.ResourceSnapshotName))
	}
	if err != nil {
		return nil, err
	}
	group, err := r.subSnapshots(ctx, b, first)
	if err != nil {
		return nil, err
	}
	var objs []manifests.Object
	for _, s := range append([]placementv1beta1.ResourceSnapshotObj{first}, group...) {
		decoded, err := decode(r.family.Describe(r.family.ResourceSnapshotKind(), ns, s.GetName()), s.ResourceSnapshotSpec().SelectedResources)
		if err != nil {
			return nil, err
		}
		objs = append(objs, decoded...)
	}
	return objs, nil
}

// subSnapshots checks that first starts a group of b's placement and returns the group's other
// snapshots, sorted by subindex.
func (r *kindReconciler) subSnapshots(ctx context.Context, b placementv1beta1.BindingObj, first placementv1beta1.ResourceSnapshotObj) ([]placementv1beta1.ResourceSnapshotObj, error) {
	ns, what := b.GetNamespace(), r.family.Describe(r.family.ResourceSnapshotKind(), b.GetNamespace(), first.GetName())
	if _, ok := first.GetAnnotations()[placementv1beta1.ResourceGroupHashAnnotation]; !ok {
		return nil, notApplied("%s is not the first snapshot of a group: it has no %s annotation; name a %q snapshot instead",
			what, placementv1beta1.ResourceGroupHashAnnotation, "<placement>-<index>-snapshot")
	}
	placement, index := first.GetLabels()[placementv1beta1.PlacementTrackingLabel], first.GetLabels()[placementv1beta1.ResourceIndexLabel]
	if want := placementOf(b); placement != want {
		return nil, notApplied("%s belongs to %s %q, not to this binding's %q", what, r.family.PlacementKind(), placement, want)
	}
	count := 1
	if v, ok := first.GetAnnotations()[placementv1beta1.NumberOfResourceSnapshotsAnnotation]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, notApplied("%s: annotation %s is %q, not a number of snapshots", what, placementv1beta1.NumberOfResourceSnapshotsAnnotation, v)
		}
		count = n
	}
	if count == 1 {
		return nil, nil
	}
	if index == "" {
		return nil, notApplied("%s has no %s label: the other snapshots of its group cannot be found", what, placementv1beta1.ResourceIndexLabel)
	}
	list := r.family.NewResourceSnapshotList()
	if err := r.client.List(ctx, list, client.InNamespace(ns),
		client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: placement, placementv1beta1.ResourceIndexLabel: index}); err != nil {
		return nil, err
	}
	subs := slices.DeleteFunc(list.ResourceSnapshotObjs(), func(s placementv1beta1.ResourceSnapshotObj) bool {
		_, isFirst := s.GetAnnotations()[placementv1beta1.ResourceGroupHashAnnotation]
		return isFirst || s.GetName() == first.GetName()
	})
	subindex := map[string]int{}
	for _, s := range subs {
		v := s.GetAnnotations()[placementv1beta1.SubindexOfResourceSnapshotAnnotation]
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, notApplied("%s: annotation %s is %q, not a subindex", r.family.Describe(r.family.ResourceSnapshotKind(), ns, s.GetName()), placementv1beta1.SubindexOfResourceSnapshotAnnotation, v)
		}
		subindex[s.GetName()] = n
	}
	slices.SortFunc(subs, func(a, b placementv1beta1.ResourceSnapshotObj) int {
		return cmp.Compare(subindex[a.GetName()], subindex[b.GetName()])
	})
	switch {
	case len(subs) < count-1:
		// The snapshots of a group are written one by one: the others may not be there yet.
		return nil, &inputError{reason: placementv1beta1.WorkApplyInProcessReason, message: fmt.Sprintf(
			"waiting for the snapshots of group %s of %s %q: %d of %d exist", index, r.family.PlacementKind(), placement, len(subs)+1, count)}
	case len(subs) > count-1:
		return nil, notApplied("group %s of %s %q has %d snapshots, but %s says it has %d", index, r.family.PlacementKind(), placement, len(subs)+1, what, count)
	}
	return subs, nil
}

// decode turns a snapshot's selected resources into objects to apply; source names the snapshot.
func decode(source string, resources []placementv1beta1.ResourceContent) ([]manifests.Object, error) {
	objs := make([]manifests.Object, 0, len(resources))
	for i, rc := range resources {
		raw := rc.Raw
		if len(raw) == 0 && rc.Object != nil {
			var err error
			if raw, err = json.Marshal(rc.Object); err != nil {
				return nil, notApplied("%s item %d: %v", source, i+1, err)
			}
		}
		content := map[string]any{}
		if err := json.Unmarshal(raw, &content); err != nil {
			return nil, notApplied("%s item %d is not a Kubernetes object: %v", source, i+1, err)
		}
		objs = append(objs, manifests.Object{
			Manifest: &unstructured.Unstructured{Object: content},
			Source:   fmt.Sprintf("%s item %d", source, i+1),
		})
	}
	return objs, nil
}

// confine checks that the objects of a ResourceBinding stay in its namespace, as a
// ResourcePlacement selects nothing else: a ResourceSnapshot written by hand must not reach
// further than whoever may write one in that namespace. Objects without a namespace go to it.
// Kinds the cluster does not serve are left to the deploy engine, which refuses them.
func confine(objs []manifests.Object, namespace string, mapper meta.RESTMapper) error {
	for _, o := range objs {
		u := o.Manifest
		gvk := u.GroupVersionKind()
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			continue
		}
		switch {
		case m.Scope.Name() != meta.RESTScopeNameNamespace:
			return notApplied("%s %s (from %s) is cluster-scoped: a ResourcePlacement places resources of namespace %s only",
				gvk.Kind, u.GetName(), o.Source, namespace)
		case u.GetNamespace() == "":
			u.SetNamespace(namespace)
		case u.GetNamespace() != namespace:
			return notApplied("%s %s/%s (from %s) is in another namespace: a ResourcePlacement places resources of namespace %s only",
				gvk.Kind, u.GetNamespace(), u.GetName(), o.Source, namespace)
		}
	}
	return nil
}
