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

package targets

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/inplace"
)

// ClusterKey is namespace/name of a SveltosCluster.
type ClusterKey struct{ Namespace, Name string }

// Ref is the reference to the cluster that a profile's status lists.
func (k ClusterKey) Ref() corev1.ObjectReference {
	return corev1.ObjectReference{
		APIVersion: libv1beta1.GroupVersion.String(),
		Kind:       libv1beta1.SveltosClusterKind,
		Namespace:  k.Namespace,
		Name:       k.Name,
	}
}

func compareKeys(a, b ClusterKey) int {
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// ProfileClusters returns the clusters the profile targets, sorted by namespace/name: those its
// selector and clusterRefs name, plus those of every profile of its kind that depends on it
// (directly or not), because a dependency must be deployed wherever its dependents are. Read in
// the same pass, the map says why each paused or unreachable cluster of the fleet cannot make
// progress now. The clusters are read from informers in place when it is not nil, else listed
// through c.
//
// A Profile sees only its own namespace, as in Sveltos: its selector matches the clusters of
// its namespace, a clusterRef names a cluster of its namespace whatever namespace it gives, and
// it depends on, and is depended on by, Profiles of its namespace only.
//
// Unlike readiness-filtered matching, a cluster that is unreachable or paused still matches: its
// ClusterSummary stays and waits, so an outage never withdraws what is deployed there.
func ProfileClusters(ctx context.Context, c client.Reader, informers cache.Informers, profile configv1beta1.ProfileObj) (
	[]ClusterKey, map[ClusterKey]string, error) {
	family := configv1beta1.ProfileFamilyOf(profile)
	scope := family.Namespace(profile.GetNamespace())
	// Thousands of clusters are read, never changed: no copies.
	objs, err := inplace.Objects(ctx, informers, c, &libv1beta1.SveltosCluster{}, &libv1beta1.SveltosClusterList{}, scope, nil)
	if err != nil {
		return nil, nil, err
	}
	clusters := make([]*libv1beta1.SveltosCluster, 0, len(objs))
	for _, o := range objs {
		if cl, ok := o.(*libv1beta1.SveltosCluster); ok {
			clusters = append(clusters, cl)
		}
	}
	profiles := family.NewProfileList()
	if err := c.List(ctx, profiles, client.InNamespace(scope), client.UnsafeDisableDeepCopy); err != nil {
		return nil, nil, err
	}
	set := map[ClusterKey]bool{}
	for _, p := range append(dependents(profile.GetName(), profiles.ProfileObjs()), profile) {
		keys, err := ownMatches(p.ProfileSpec(), clusters, scope)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", family.Describe(p.GetNamespace(), p.GetName()), err)
		}
		for _, k := range keys {
			set[k] = true
		}
	}
	keys := make([]ClusterKey, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareKeys)
	return keys, unavailability(clusters), nil
}

// MatchingClusters returns every cluster the profile targets, sorted by namespace and name, as
// the profile's controller finds them (ProfileClusters): what status.matchingClusters lists,
// however many there are. unavailable is keyed by "namespace/name".
func MatchingClusters(ctx context.Context, c client.Reader, informers cache.Informers, profile configv1beta1.ProfileObj) (
	refs []corev1.ObjectReference, unavailable map[string]string, _ error) {
	keys, why, err := ProfileClusters(ctx, c, informers, profile)
	if err != nil {
		return nil, nil, err
	}
	refs = make([]corev1.ObjectReference, 0, len(keys))
	for _, k := range keys {
		refs = append(refs, k.Ref())
	}
	unavailable = make(map[string]string, len(why))
	for k, reason := range why {
		unavailable[k.Namespace+"/"+k.Name] = reason
	}
	return refs, unavailable, nil
}

// unavailability says, for each paused or unreachable cluster, why it cannot make progress now.
func unavailability(clusters []*libv1beta1.SveltosCluster) map[ClusterKey]string {
	out := map[ClusterKey]string{}
	for _, cl := range clusters {
		if why := cl.Unavailable(); why != "" {
			out[ClusterKey{cl.Namespace, cl.Name}] = why
		}
	}
	return out
}

// ownMatches applies one profile's clusterSelector and clusterRefs to the registered clusters;
// scope, when not empty, is the namespace of a Profile, which every clusterRef then names.
func ownMatches(spec *configv1beta1.Spec, clusters []*libv1beta1.SveltosCluster, scope string) ([]ClusterKey, error) {
	var keys []ClusterKey
	if !spec.ClusterSelector.IsEmpty() {
		sel, err := spec.ClusterSelector.ToSelector()
		if err != nil {
			return nil, fmt.Errorf("invalid clusterSelector: %w", err)
		}
		for _, cl := range clusters {
			if cl.DeletionTimestamp.IsZero() && sel.Matches(labels.Set(cl.Labels)) {
				keys = append(keys, ClusterKey{cl.Namespace, cl.Name})
			}
		}
	}
	if len(spec.ClusterRefs) == 0 {
		return keys, nil
	}
	// A profile may name thousands of clusters: one pass over the fleet, not one per name.
	named := map[ClusterKey]bool{}
	for _, ref := range spec.ClusterRefs {
		if ref.Kind == "" || ref.Kind == libv1beta1.SveltosClusterKind { // Cluster API clusters are not served
			named[ClusterKey{cmp.Or(scope, ref.Namespace), ref.Name}] = true
		}
	}
	for _, cl := range clusters {
		if k := (ClusterKey{cl.Namespace, cl.Name}); named[k] && cl.DeletionTimestamp.IsZero() {
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// dependents returns the profiles that depend on name, directly or through other profiles.
func dependents(name string, profiles []configv1beta1.ProfileObj) []configv1beta1.ProfileObj {
	seen := map[string]bool{name: true}
	var out []configv1beta1.ProfileObj
	for frontier := []string{name}; len(frontier) > 0; {
		var next []string
		for _, p := range profiles {
			if seen[p.GetName()] || !dependsOnAny(p.ProfileSpec(), frontier) {
				continue
			}
			seen[p.GetName()] = true
			out = append(out, p)
			next = append(next, p.GetName())
		}
		frontier = next
	}
	return out
}

func dependsOnAny(spec *configv1beta1.Spec, names []string) bool {
	for _, d := range spec.DependsOn {
		if slices.Contains(names, d) {
			return true
		}
	}
	return false
}
