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
	"context"
	"regexp"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// scope is what differs between ClusterResourceBindings, which belong to ClusterResourcePlacements
// and read ClusterResourceSnapshots, and ResourceBindings, which belong to the ResourcePlacement
// of the same name in their namespace and read ResourceSnapshots there.
type scope struct {
	bindingKind   string
	placementKind string
	snapshotKind  string
	namespaced    bool
}

var (
	clusterScope = scope{
		bindingKind:   "ClusterResourceBinding",
		placementKind: placementv1beta1.ClusterResourcePlacementKind,
		snapshotKind:  placementv1beta1.ClusterResourceSnapshotKind,
	}
	namespaceScope = scope{
		bindingKind:   "ResourceBinding",
		placementKind: placementv1beta1.ResourcePlacementKind,
		snapshotKind:  placementv1beta1.ResourceSnapshotKind,
		namespaced:    true,
	}
)

func (s scope) newBinding() client.Object {
	if s.namespaced {
		return &placementv1beta1.ResourceBinding{}
	}
	return &placementv1beta1.ClusterResourceBinding{}
}

func (s scope) newBindingList() client.ObjectList {
	if s.namespaced {
		return &placementv1beta1.ResourceBindingList{}
	}
	return &placementv1beta1.ClusterResourceBindingList{}
}

// parts returns the spec and status of a binding of either kind.
func parts(b client.Object) (*placementv1beta1.ResourceBindingSpec, *placementv1beta1.ResourceBindingStatus) {
	bo := b.(placementv1beta1.BindingObj)
	return bo.BindingSpec(), bo.BindingStatus()
}

// masterSnapshotName matches "<placement>-<index>-snapshot".
var masterSnapshotName = regexp.MustCompile(`^(.+)-[0-9]+-snapshot$`)

// placementOf names the binding's placement: its PlacementTrackingLabel or, lacking that, the
// placement its snapshot name is formatted from. Empty when neither says.
func placementOf(b client.Object) string {
	if p := b.GetLabels()[placementv1beta1.PlacementTrackingLabel]; p != "" {
		return p
	}
	spec, _ := parts(b)
	if m := masterSnapshotName.FindStringSubmatch(spec.ResourceSnapshotName); m != nil {
		return m[1]
	}
	return ""
}

// owner is who the deploy engine deploys the binding's resources for: the placement, not the
// binding, so that whichever binding of the placement applies a snapshot next prunes what that
// snapshot lacks. Empty when the binding names no placement.
func (s scope) owner(b client.Object) string {
	p := placementOf(b)
	switch {
	case p == "":
		return ""
	case s.namespaced:
		return s.placementKind + " " + b.GetNamespace() + "/" + p
	}
	return s.placementKind + " " + p
}

// snapshot is one resource snapshot of either kind.
type snapshot struct {
	name        string
	labels      map[string]string
	annotations map[string]string
	resources   []placementv1beta1.ResourceContent
}

// describe names the snapshot for people: "ClusterResourceSnapshot p-1-snapshot".
func (s scope) describe(namespace, name string) string {
	if s.namespaced {
		return s.snapshotKind + " " + namespace + "/" + name
	}
	return s.snapshotKind + " " + name
}

func (s scope) getSnapshot(ctx context.Context, c client.Reader, namespace, name string) (snapshot, error) {
	key := client.ObjectKey{Name: name}
	if s.namespaced {
		key.Namespace = namespace
		obj := &placementv1beta1.ResourceSnapshot{}
		err := c.Get(ctx, key, obj)
		return snapshot{obj.Name, obj.Labels, obj.Annotations, obj.Spec.SelectedResources}, err
	}
	obj := &placementv1beta1.ClusterResourceSnapshot{}
	err := c.Get(ctx, key, obj)
	return snapshot{obj.Name, obj.Labels, obj.Annotations, obj.Spec.SelectedResources}, err
}

// listSnapshots returns every snapshot of a placement's group index, in no particular order.
func (s scope) listSnapshots(ctx context.Context, c client.Reader, namespace, placement, index string) ([]snapshot, error) {
	labels := client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: placement, placementv1beta1.ResourceIndexLabel: index}
	var out []snapshot
	if s.namespaced {
		list := &placementv1beta1.ResourceSnapshotList{}
		if err := c.List(ctx, list, labels, client.InNamespace(namespace)); err != nil {
			return nil, err
		}
		for _, obj := range list.Items {
			out = append(out, snapshot{obj.Name, obj.Labels, obj.Annotations, obj.Spec.SelectedResources})
		}
		return out, nil
	}
	list := &placementv1beta1.ClusterResourceSnapshotList{}
	if err := c.List(ctx, list, labels); err != nil {
		return nil, err
	}
	for _, obj := range list.Items {
		out = append(out, snapshot{obj.Name, obj.Labels, obj.Annotations, obj.Spec.SelectedResources})
	}
	return out, nil
}

// placementLive reports whether the binding's placement exists and is not being deleted.
func (s scope) placementLive(ctx context.Context, c client.Reader, b client.Object) (bool, error) {
	name := placementOf(b)
	if name == "" {
		return false, nil
	}
	var obj client.Object = &placementv1beta1.ClusterResourcePlacement{}
	if s.namespaced {
		obj = &placementv1beta1.ResourcePlacement{}
	}
	err := c.Get(ctx, client.ObjectKey{Namespace: b.GetNamespace(), Name: name}, obj)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return obj.GetDeletionTimestamp().IsZero(), nil
}

// siblings returns the other bindings of b's placement.
func (s scope) siblings(ctx context.Context, c client.Reader, b client.Object) ([]client.Object, error) {
	list := s.newBindingList()
	opts := []client.ListOption{client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: placementOf(b)}}
	if s.namespaced {
		opts = append(opts, client.InNamespace(b.GetNamespace()))
	}
	if err := c.List(ctx, list, opts...); err != nil {
		return nil, err
	}
	return objects(list, func(o client.Object) bool { return o.GetName() != b.GetName() })
}

// objects returns the items of a list that keep says to keep.
func objects(list client.ObjectList, keep func(client.Object) bool) ([]client.Object, error) {
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, err
	}
	var out []client.Object
	for _, item := range items {
		if o, ok := item.(client.Object); ok && keep(o) {
			out = append(out, o)
		}
	}
	return out, nil
}
