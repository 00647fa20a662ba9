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
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
	"github.com/stagecoach-dev/stagecoach/internal/override"
)

// OverrideFailed is an InputError with reason OverriddenFailed and Kubefleet's wording.
func OverrideFailed(format string, args ...any) *InputError {
	return &InputError{Reason: placementv1beta1.OverriddenFailedReason,
		Message: "Failed to apply the override rules on the resources: " + fmt.Sprintf(format, args...)}
}

// BindingOverrides returns the objects as the binding's member cluster is to receive them: changed,
// or left out, by the override snapshots the binding names, with the cluster's name and labels
// for the override variables. objs are not modified. An override that cannot be applied (a
// snapshot gone, a path missing, a label the cluster lacks) is an InputError of reason
// OverriddenFailed; nothing is to be applied then.
func BindingOverrides(ctx context.Context, c client.Reader, b placementv1beta1.BindingObj, objs []manifests.Object) ([]manifests.Object, error) {
	spec := b.BindingSpec()
	if len(spec.ClusterResourceOverrideSnapshots) == 0 && len(spec.ResourceOverrideSnapshots) == 0 {
		return objs, nil
	}
	var snaps override.Snapshots
	for _, name := range spec.ClusterResourceOverrideSnapshots {
		s := &placementv1beta1.ClusterResourceOverrideSnapshot{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, s); apierrors.IsNotFound(err) {
			return nil, OverrideFailed("clusterResourceOverrideSnapshot %s is not found", name)
		} else if err != nil {
			return nil, err
		}
		snaps.Cluster = append(snaps.Cluster, s)
	}
	for _, n := range spec.ResourceOverrideSnapshots {
		s := &placementv1beta1.ResourceOverrideSnapshot{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: n.Namespace, Name: n.Name}, s); apierrors.IsNotFound(err) {
			return nil, OverrideFailed("resourceOverrideSnapshot %s/%s is not found", n.Namespace, n.Name)
		} else if err != nil {
			return nil, err
		}
		snaps.Namespaced = append(snaps.Namespaced, s)
	}
	mc := &clusterv1beta1.MemberCluster{}
	if err := c.Get(ctx, client.ObjectKey{Name: spec.TargetCluster}, mc); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, NotApplied("MemberCluster %s does not exist", spec.TargetCluster)
		}
		return nil, err
	}
	cluster := override.Cluster{Name: mc.Name, Labels: mc.Labels}
	if err := snaps.Validate(); err != nil {
		return nil, overrideError(err)
	}
	out := make([]manifests.Object, 0, len(objs))
	for _, o := range objs {
		m, err := override.ApplyOne(snaps, cluster, o.Manifest)
		if err != nil {
			return nil, overrideError(err)
		}
		if m != nil {
			o.Manifest = m
			out = append(out, o)
		}
	}
	return out, nil
}

func overrideError(err error) error {
	var oe *override.Error
	if errors.As(err, &oe) {
		return OverrideFailed("%s", oe.Error())
	}
	return err
}

// SnapshotObjects returns the objects of the resource snapshot group that snapshot starts, for
// the placement (in namespace, for a ResourcePlacement): what decides which overrides concern a
// rollout of that group.
func SnapshotObjects(ctx context.Context, c client.Reader, family placementv1beta1.Family, namespace, placement, snapshot string) (
	[]*unstructured.Unstructured, error) {
	b := family.NewBinding()
	b.SetNamespace(namespace)
	b.SetLabels(map[string]string{placementv1beta1.PlacementTrackingLabel: placement})
	b.BindingSpec().ResourceSnapshotName = snapshot
	objs, err := loadGroup(ctx, c, family, b)
	if err != nil {
		return nil, err
	}
	out := make([]*unstructured.Unstructured, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.Manifest)
	}
	return out, nil
}
