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

package override

import (
	"fmt"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/override"
)

// kind is what differs between ClusterResourceOverride and ResourceOverride.
type kind struct {
	name string
	// snapshotKind names the snapshots in messages.
	snapshotKind string
	newOverride  func() client.Object
	// spec returns an override's spec, and what Kubefleet's webhook would refuse in it.
	spec func(client.Object) (any, error)
	// snapshots lists the snapshots in the list.
	newSnapshotObj  func() client.Object
	newSnapshotList func() client.ObjectList
	snapshots       func(client.ObjectList) []snapshot
	// newSnapshot is a snapshot of the override's spec with the given hash.
	newSnapshot func(o client.Object, meta metav1.ObjectMeta, hash []byte) client.Object
}

// snapshot is one override snapshot as the controller reads it.
type snapshot struct {
	obj   client.Object
	hash  []byte
	index int
}

var kinds = []kind{
	{
		name:         placementv1beta1.ClusterResourceOverrideKind,
		snapshotKind: placementv1beta1.ClusterResourceOverrideSnapshotKind,
		newOverride:  func() client.Object { return &placementv1beta1.ClusterResourceOverride{} },
		spec: func(o client.Object) (any, error) {
			s := o.(*placementv1beta1.ClusterResourceOverride).Spec
			if err := override.ValidateClusterSelectors(s.ClusterResourceSelectors); err != nil {
				return s, err
			}
			return s, override.Validate(s.Policy)
		},
		newSnapshotObj:  func() client.Object { return &placementv1beta1.ClusterResourceOverrideSnapshot{} },
		newSnapshotList: func() client.ObjectList { return &placementv1beta1.ClusterResourceOverrideSnapshotList{} },
		snapshots: func(l client.ObjectList) []snapshot {
			items := l.(*placementv1beta1.ClusterResourceOverrideSnapshotList).Items
			out := make([]snapshot, 0, len(items))
			for i := range items {
				out = append(out, snapshot{obj: &items[i], hash: items[i].Spec.OverrideHash})
			}
			return out
		},
		newSnapshot: func(o client.Object, meta metav1.ObjectMeta, hash []byte) client.Object {
			return &placementv1beta1.ClusterResourceOverrideSnapshot{ObjectMeta: meta, Spec: placementv1beta1.ClusterResourceOverrideSnapshotSpec{
				OverrideSpec: *o.(*placementv1beta1.ClusterResourceOverride).Spec.DeepCopy(), OverrideHash: hash,
			}}
		},
	},
	{
		name:         placementv1beta1.ResourceOverrideKind,
		snapshotKind: placementv1beta1.ResourceOverrideSnapshotKind,
		newOverride:  func() client.Object { return &placementv1beta1.ResourceOverride{} },
		spec: func(o client.Object) (any, error) {
			s := o.(*placementv1beta1.ResourceOverride).Spec
			return s, override.Validate(s.Policy)
		},
		newSnapshotObj:  func() client.Object { return &placementv1beta1.ResourceOverrideSnapshot{} },
		newSnapshotList: func() client.ObjectList { return &placementv1beta1.ResourceOverrideSnapshotList{} },
		snapshots: func(l client.ObjectList) []snapshot {
			items := l.(*placementv1beta1.ResourceOverrideSnapshotList).Items
			out := make([]snapshot, 0, len(items))
			for i := range items {
				out = append(out, snapshot{obj: &items[i], hash: items[i].Spec.OverrideHash})
			}
			return out
		},
		newSnapshot: func(o client.Object, meta metav1.ObjectMeta, hash []byte) client.Object {
			return &placementv1beta1.ResourceOverrideSnapshot{ObjectMeta: meta, Spec: placementv1beta1.ResourceOverrideSnapshotSpec{
				OverrideSpec: *o.(*placementv1beta1.ResourceOverride).Spec.DeepCopy(), OverrideHash: hash,
			}}
		},
	},
}

// snapshotMeta is the metadata of an override's snapshot number index.
func snapshotMeta(o client.Object, index int, gvkKind string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:      fmt.Sprintf(placementv1beta1.OverrideSnapshotNameFmt, o.GetName(), index),
		Namespace: o.GetNamespace(),
		Labels: map[string]string{
			placementv1beta1.OverrideTrackingLabel: o.GetName(),
			placementv1beta1.IsLatestSnapshotLabel: strconv.FormatBool(true),
			placementv1beta1.OverrideIndexLabel:    strconv.Itoa(index),
		},
		OwnerReferences: []metav1.OwnerReference{
			*metav1.NewControllerRef(o, placementv1beta1.GroupVersion.WithKind(gvkKind)),
		},
	}
}
