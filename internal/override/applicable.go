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
	"cmp"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// PlacementKey is how an override names a placement: a ClusterResourcePlacement's name, or
// "<namespace>/<name>" for a ResourcePlacement.
func PlacementKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// Applicable returns the snapshots, among the latest of every override, that concern a
// placement delivering objs, as Kubefleet picks them: the override names this placement or
// none, and one of its selectors names one of the objects (a ClusterResourceOverride also
// through an object's Namespace).
func Applicable(placement string, objs []*unstructured.Unstructured,
	cros []*placementv1beta1.ClusterResourceOverrideSnapshot, ros []*placementv1beta1.ResourceOverrideSnapshot) Snapshots {
	if len(cros) == 0 && len(ros) == 0 {
		return Snapshots{}
	}
	croKeys := map[placementv1beta1.ResourceIdentifier]bool{}
	roKeys := map[placementv1beta1.ResourceIdentifier]bool{}
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		if ns := o.GetNamespace(); ns != "" {
			croKeys[placementv1beta1.ResourceIdentifier{Version: "v1", Kind: "Namespace", Name: ns}] = true
			roKeys[placementv1beta1.ResourceIdentifier{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Namespace: ns, Name: o.GetName()}] = true
			continue
		}
		croKeys[placementv1beta1.ResourceIdentifier{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Name: o.GetName()}] = true
	}
	var out Snapshots
	for _, snap := range cros {
		ref := snap.Spec.OverrideSpec.Placement
		if ref != nil && ref.Name != placement {
			continue
		}
		if slices.ContainsFunc(snap.Spec.OverrideSpec.ClusterResourceSelectors, func(t placementv1beta1.ResourceSelectorTerm) bool {
			return croKeys[placementv1beta1.ResourceIdentifier{Group: t.Group, Version: t.Version, Kind: t.Kind, Name: t.Name}]
		}) {
			out.Cluster = append(out.Cluster, snap)
		}
	}
	for _, snap := range ros {
		if ref := snap.Spec.OverrideSpec.Placement; ref != nil {
			key := ref.Name
			if ref.Scope == placementv1beta1.NamespaceScoped {
				key = PlacementKey(snap.Namespace, ref.Name)
			}
			if key != placement {
				continue
			}
		}
		if slices.ContainsFunc(snap.Spec.OverrideSpec.ResourceSelectors, func(t placementv1beta1.ResourceSelector) bool {
			return roKeys[placementv1beta1.ResourceIdentifier{Group: t.Group, Version: t.Version, Kind: t.Kind, Namespace: snap.Namespace, Name: t.Name}]
		}) {
			out.Namespaced = append(out.Namespaced, snap)
		}
	}
	return out
}

// Names are the override snapshots a binding names for its cluster.
type Names struct {
	Cluster    []string
	Namespaced []placementv1beta1.NamespacedName
}

// ForCluster names the snapshots with a rule applying to the cluster, sorted as Kubefleet sorts
// them: ClusterResourceOverride snapshots by name, ResourceOverride snapshots by namespace and
// name. Both lists are nil when none applies.
func (s Snapshots) ForCluster(c Cluster) (Names, error) {
	var out Names
	for _, snap := range s.Cluster {
		ok, err := matchesAny(snap.Spec.OverrideSpec.Policy, c)
		if err != nil {
			return Names{}, &Error{"ClusterResourceOverrideSnapshot " + snap.Name + ": " + err.Error()}
		}
		if ok {
			out.Cluster = append(out.Cluster, snap.Name)
		}
	}
	for _, snap := range s.Namespaced {
		ok, err := matchesAny(snap.Spec.OverrideSpec.Policy, c)
		if err != nil {
			return Names{}, &Error{"ResourceOverrideSnapshot " + snap.Namespace + "/" + snap.Name + ": " + err.Error()}
		}
		if ok {
			out.Namespaced = append(out.Namespaced, placementv1beta1.NamespacedName{Namespace: snap.Namespace, Name: snap.Name})
		}
	}
	slices.Sort(out.Cluster)
	slices.SortFunc(out.Namespaced, func(a, b placementv1beta1.NamespacedName) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return out, nil
}

// Equal reports whether a binding's lists name the same snapshots, nil and empty alike.
func (n Names) Equal(cluster []string, namespaced []placementv1beta1.NamespacedName) bool {
	return slices.Equal(n.Cluster, cluster) && slices.Equal(n.Namespaced, namespaced)
}
