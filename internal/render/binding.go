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

package render

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
)

// A ClusterResourceBinding belongs to a ClusterResourcePlacement and reads
// ClusterResourceSnapshots; a ResourceBinding belongs to the ResourcePlacement of the same name in
// its namespace and reads ResourceSnapshots there. The binding's Family says which.

// masterSnapshotName matches "<placement>-<index>-snapshot".
var masterSnapshotName = regexp.MustCompile(`^(.+)-[0-9]+-snapshot$`)

// PlacementOf names the binding's placement: its PlacementTrackingLabel or, lacking that, the
// placement its snapshot name is formatted from. Empty when neither says.
func PlacementOf(b placementv1beta1.BindingObj) string {
	if p := b.GetLabels()[placementv1beta1.PlacementTrackingLabel]; p != "" {
		return p
	}
	if m := masterSnapshotName.FindStringSubmatch(b.BindingSpec().ResourceSnapshotName); m != nil {
		return m[1]
	}
	return ""
}

// BindingOwner is who the deploy engine deploys a binding's resources for: the placement, not
// the binding, so that whichever binding of the placement applies a snapshot next prunes what
// that snapshot lacks. Empty when the binding names no placement.
func BindingOwner(family placementv1beta1.Family, b placementv1beta1.BindingObj) string {
	p := PlacementOf(b)
	if p == "" {
		return ""
	}
	return family.Describe(family.PlacementKind(), b.GetNamespace(), p)
}

// BindingObjects returns the objects a binding applies, read from the snapshot group its
// spec.resourceSnapshotName starts, envelopes replaced by what they carry, and who they are
// applied for (BindingOwner). A ResourceBinding's objects are confined to its namespace, as
// mapper (the member cluster's) scopes them.
func BindingObjects(ctx context.Context, c client.Reader, family placementv1beta1.Family, b placementv1beta1.BindingObj, mapper meta.RESTMapper) (
	owner string, objs []manifests.Object, _ error) {
	owner = BindingOwner(family, b)
	if owner == "" {
		return "", nil, NotApplied("the binding has no %s label naming its placement", placementv1beta1.PlacementTrackingLabel)
	}
	objs, err := loadGroup(ctx, c, family, b)
	if err != nil {
		return "", nil, err
	}
	// Envelopes open first: whatever changes objects after this sees the carried objects.
	if objs, err = expandEnvelopes(objs); err != nil {
		return "", nil, err
	}
	if family.Namespaced {
		if err := confine(objs, b.GetNamespace(), mapper); err != nil {
			return "", nil, err
		}
	}
	return owner, objs, nil
}

// InputError is a reason, found in a binding, its snapshots or its member cluster, not to apply
// anything; it goes to the binding's Applied condition. Other errors of a binding's rendering are
// trouble reading the management cluster, retried as they are.
type InputError struct {
	Reason  string
	Message string
	// Failed lists the resources the error is about, for status.failedPlacements.
	Failed []placementv1beta1.FailedResourcePlacement
}

// Error is the message.
func (e *InputError) Error() string { return e.Message }

// NotApplied is an InputError with reason WorkNotAppliedReason.
func NotApplied(format string, args ...any) *InputError {
	return &InputError{Reason: placementv1beta1.WorkNotAppliedReason, Message: fmt.Sprintf(format, args...)}
}

// loadGroup reads the snapshot group that spec.resourceSnapshotName starts and returns its
// objects in order: the first snapshot's, then those of the others by subindex.
func loadGroup(ctx context.Context, c client.Reader, family placementv1beta1.Family, b placementv1beta1.BindingObj) ([]manifests.Object, error) {
	spec := b.BindingSpec()
	ns := b.GetNamespace()
	if spec.ResourceSnapshotName == "" {
		return nil, NotApplied("the binding is Bound but names no resource snapshot in spec.resourceSnapshotName")
	}
	first := family.NewResourceSnapshot()
	err := c.Get(ctx, family.Key(ns, spec.ResourceSnapshotName), first)
	if apierrors.IsNotFound(err) {
		return nil, NotApplied("%s does not exist", family.Describe(family.ResourceSnapshotKind(), ns, spec.ResourceSnapshotName))
	}
	if err != nil {
		return nil, err
	}
	group, err := subSnapshots(ctx, c, family, b, first)
	if err != nil {
		return nil, err
	}
	var objs []manifests.Object
	for _, s := range append([]placementv1beta1.ResourceSnapshotObj{first}, group...) {
		decoded, err := decode(family.Describe(family.ResourceSnapshotKind(), ns, s.GetName()), s.ResourceSnapshotSpec().SelectedResources)
		if err != nil {
			return nil, err
		}
		objs = append(objs, decoded...)
	}
	return objs, nil
}

// subSnapshots checks that first starts a group of b's placement and returns the group's other
// snapshots, sorted by subindex.
func subSnapshots(ctx context.Context, c client.Reader, family placementv1beta1.Family, b placementv1beta1.BindingObj,
	first placementv1beta1.ResourceSnapshotObj) ([]placementv1beta1.ResourceSnapshotObj, error) {
	ns, what := b.GetNamespace(), family.Describe(family.ResourceSnapshotKind(), b.GetNamespace(), first.GetName())
	if _, ok := first.GetAnnotations()[placementv1beta1.ResourceGroupHashAnnotation]; !ok {
		return nil, NotApplied("%s is not the first snapshot of a group: it has no %s annotation; name a %q snapshot instead",
			what, placementv1beta1.ResourceGroupHashAnnotation, "<placement>-<index>-snapshot")
	}
	placement, index := first.GetLabels()[placementv1beta1.PlacementTrackingLabel], first.GetLabels()[placementv1beta1.ResourceIndexLabel]
	if want := PlacementOf(b); placement != want {
		return nil, NotApplied("%s belongs to %s %q, not to this binding's %q", what, family.PlacementKind(), placement, want)
	}
	count := 1
	if v, ok := first.GetAnnotations()[placementv1beta1.NumberOfResourceSnapshotsAnnotation]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, NotApplied("%s: annotation %s is %q, not a number of snapshots", what, placementv1beta1.NumberOfResourceSnapshotsAnnotation, v)
		}
		count = n
	}
	if count == 1 {
		return nil, nil
	}
	if index == "" {
		return nil, NotApplied("%s has no %s label: the other snapshots of its group cannot be found", what, placementv1beta1.ResourceIndexLabel)
	}
	list := family.NewResourceSnapshotList()
	if err := c.List(ctx, list, client.InNamespace(ns),
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
			return nil, NotApplied("%s: annotation %s is %q, not a subindex", family.Describe(family.ResourceSnapshotKind(), ns, s.GetName()), placementv1beta1.SubindexOfResourceSnapshotAnnotation, v)
		}
		subindex[s.GetName()] = n
	}
	slices.SortFunc(subs, func(a, b placementv1beta1.ResourceSnapshotObj) int {
		return cmp.Compare(subindex[a.GetName()], subindex[b.GetName()])
	})
	switch {
	case len(subs) < count-1:
		// The snapshots of a group are written one by one: the others may not be there yet.
		return nil, &InputError{Reason: placementv1beta1.WorkApplyInProcessReason, Message: fmt.Sprintf(
			"waiting for the snapshots of group %s of %s %q: %d of %d exist", index, family.PlacementKind(), placement, len(subs)+1, count)}
	case len(subs) > count-1:
		return nil, NotApplied("group %s of %s %q has %d snapshots, but %s says it has %d", index, family.PlacementKind(), placement, len(subs)+1, what, count)
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
				return nil, NotApplied("%s item %d: %v", source, i+1, err)
			}
		}
		content := map[string]any{}
		if err := json.Unmarshal(raw, &content); err != nil {
			return nil, NotApplied("%s item %d is not a Kubernetes object: %v", source, i+1, err)
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
			return NotApplied("%s %s (from %s) is cluster-scoped: a ResourcePlacement places resources of namespace %s only",
				gvk.Kind, u.GetName(), o.Source, namespace)
		case u.GetNamespace() == "":
			u.SetNamespace(namespace)
		case u.GetNamespace() != namespace:
			return NotApplied("%s %s/%s (from %s) is in another namespace: a ResourcePlacement places resources of namespace %s only",
				gvk.Kind, u.GetNamespace(), u.GetName(), o.Source, namespace)
		}
	}
	return nil
}

// WithStrategy sets the deploy options that carry a binding's applyStrategy. Every field is
// supported; the error is for one that a request could not carry (an InputError naming it).
//
//   - type ClientSideApply (the default) is a forced server-side apply: the hub's manifest wins
//     over other writers, as a client-side apply does, without the last-applied annotation;
//   - type ServerSideApply applies with serverSideApplyConfig.force;
//   - whenToApply IfNotDrifted leaves an object that drifted while its manifest stayed the same;
//   - whenToTakeOver IfNoDiff and Never, and allowCoOwnership, decide over objects found on the
//     member cluster;
//   - type ReportDiff applies nothing: it is a dry run that reports the differences of the
//     content (req.DryRun and req.ContentOnly);
//   - comparisonOption FullComparison compares every field, not only those an apply sets.
func WithStrategy(req *manifests.Request, s *placementv1beta1.ApplyStrategy) error {
	s = placementv1beta1.DefaultedApplyStrategy(s)
	if s.Type == placementv1beta1.ApplyStrategyTypeReportDiff {
		req.DryRun, req.ContentOnly = true, true
	}
	req.FullComparison = s.ComparisonOption == placementv1beta1.ComparisonOptionTypeFullComparison
	req.NoForce = s.Type == placementv1beta1.ApplyStrategyTypeServerSideApply && !s.ServerSideApplyConfig.ForceConflicts
	req.KeepDrift = s.WhenToApply == placementv1beta1.WhenToApplyTypeIfNotDrifted
	req.RefuseCoOwned = !s.AllowCoOwnership
	switch s.WhenToTakeOver {
	case placementv1beta1.WhenToTakeOverTypeIfNoDiff:
		req.Adopt = manifests.AdoptIfNoDiff
	case placementv1beta1.WhenToTakeOverTypeNever:
		req.Adopt = manifests.AdoptNever
	}
	return nil
}
