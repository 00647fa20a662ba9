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
	"context"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

func sveltosCluster(name string, labels map[string]string, ready, paused bool) *libv1beta1.SveltosCluster {
	cl := &libv1beta1.SveltosCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "fleet", Name: name, Labels: labels}}
	cl.Spec.Paused = paused
	cl.Status.Ready = ready
	return cl
}

// TestMatchingClustersFollowDependents: a profile targets the clusters its selector picks and
// those of the profiles that depend on it; a paused cluster still matches, and is reported.
func TestMatchingClustersFollowDependents(t *testing.T) {
	web := &configv1beta1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Name: "web"}}
	web.Spec.ClusterSelector = libv1beta1.Selector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}
	app := &configv1beta1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Name: "app"}}
	app.Spec.DependsOn = []string{"web"}
	app.Spec.ClusterRefs = []corev1.ObjectReference{{Kind: libv1beta1.SveltosClusterKind, Namespace: "fleet", Name: "b"}}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(web, app,
		sveltosCluster("c", map[string]string{"env": "prod"}, true, false),
		sveltosCluster("a", map[string]string{"env": "prod"}, true, false),
		sveltosCluster("b", nil, true, true),
		sveltosCluster("d", map[string]string{"env": "dev"}, false, false)).Build()

	refs, unavailable, err := MatchingClusters(context.Background(), c, nil, web)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range refs {
		if r.Kind != libv1beta1.SveltosClusterKind || r.Namespace != "fleet" {
			t.Errorf("reference %+v", r)
		}
		names = append(names, r.Name)
	}
	if want := []string{"a", "b", "c"}; !reflect.DeepEqual(names, want) {
		t.Errorf("matching clusters %v, want %v", names, want)
	}
	if want := map[string]string{"fleet/b": "paused", "fleet/d": "not ready"}; !reflect.DeepEqual(unavailable, want) {
		t.Errorf("unavailable %v, want %v", unavailable, want)
	}
}

// indexer hands the index a manager's cache would get to the fake client instead.
type indexer struct{ b *fake.ClientBuilder }

func (i indexer) IndexField(_ context.Context, obj client.Object, field string, f client.IndexerFunc) error {
	i.b.WithIndex(obj, field, f)
	return nil
}

// TestSummariesOfCluster: the index and the lookup agree on a cluster's key.
func TestSummariesOfCluster(t *testing.T) {
	summary := func(name, cluster string) *configv1beta1.ClusterSummary {
		return &configv1beta1.ClusterSummary{ObjectMeta: metav1.ObjectMeta{Namespace: "fleet", Name: name},
			Spec: configv1beta1.ClusterSummarySpec{ClusterNamespace: "fleet", ClusterName: cluster, ClusterType: libv1beta1.ClusterTypeSveltos}}
	}
	b := fake.NewClientBuilder().WithScheme(scheme.New()).
		WithObjects(summary("web-sveltos-a", "a"), summary("db-sveltos-a", "a"), summary("web-sveltos-b", "b"))
	if err := IndexSummariesByCluster(context.Background(), indexer{b}); err != nil {
		t.Fatal(err)
	}
	var list configv1beta1.ClusterSummaryList
	if err := SummariesOfCluster(context.Background(), b.Build(), &list, libv1beta1.ClusterTypeSveltos, "fleet", "a"); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, cs := range list.Items {
		names = append(names, cs.Name)
	}
	if want := []string{"db-sveltos-a", "web-sveltos-a"}; !reflect.DeepEqual(names, want) {
		t.Errorf("summaries of cluster a: %v, want %v", names, want)
	}
}

// TestPlacementClustersAndSnapshots: a run updates the placement's scheduled and bound clusters,
// with their labels, removes the unscheduled ones, and may name the groups that have a first
// snapshot.
func TestPlacementClustersAndSnapshots(t *testing.T) {
	binding := func(placement, cluster string, state placementv1beta1.BindingState) *placementv1beta1.ClusterResourceBinding {
		return &placementv1beta1.ClusterResourceBinding{
			ObjectMeta: metav1.ObjectMeta{Name: placement + "-" + cluster, Labels: map[string]string{placementv1beta1.PlacementTrackingLabel: placement}},
			Spec:       placementv1beta1.ResourceBindingSpec{TargetCluster: cluster, State: state},
		}
	}
	snapshot := func(name, index string, first bool) *placementv1beta1.ClusterResourceSnapshot {
		s := &placementv1beta1.ClusterResourceSnapshot{ObjectMeta: metav1.ObjectMeta{Name: name,
			Labels: map[string]string{placementv1beta1.PlacementTrackingLabel: "p", placementv1beta1.ResourceIndexLabel: index}}}
		if first {
			s.Annotations = map[string]string{placementv1beta1.ResourceGroupHashAnnotation: "h"}
		}
		return s
	}
	member := func(name, env string) *clusterv1beta1.MemberCluster {
		return &clusterv1beta1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"env": env}}}
	}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(
		binding("p", "m1", placementv1beta1.BindingStateBound), binding("p", "m0", placementv1beta1.BindingStateScheduled),
		binding("p", "m2", placementv1beta1.BindingStateUnscheduled), binding("q", "m3", placementv1beta1.BindingStateBound),
		member("m0", "dev"), member("m1", "prod"), member("m3", "prod"),
		snapshot("p-2-snapshot", "2", true), snapshot("p-0-snapshot", "0", true), snapshot("p-2-1", "2", false)).Build()
	ctx, family := context.Background(), placementv1beta1.ClusterFamily

	members, unscheduled, err := PlacementClusters(ctx, c, nil, family, "", "p")
	if err != nil {
		t.Fatal(err)
	}
	wantMembers := []string{"m0=dev", "m1=prod"}
	var got []string
	for _, m := range members {
		got = append(got, m.Name+"="+m.Labels["env"])
	}
	if !reflect.DeepEqual(got, wantMembers) || !reflect.DeepEqual(unscheduled, []string{"m2"}) {
		t.Errorf("members %v and unscheduled %v, want %v and [m2]", got, unscheduled, wantMembers)
	}

	indices, err := SnapshotIndices(ctx, c, family, "", "p")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(indices, []int{0, 2}) {
		t.Errorf("snapshot indices %v, want [0 2]", indices)
	}
}
