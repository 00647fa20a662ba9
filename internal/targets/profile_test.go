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
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

func clusterIn(ns, name string, labels map[string]string) *libv1beta1.SveltosCluster {
	cl := sveltosCluster(name, labels, true, false)
	cl.Namespace = ns
	return cl
}

func prod() libv1beta1.Selector {
	return libv1beta1.Selector{LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}
}

// TestProfileSeesItsNamespaceOnly: a Profile's selector matches the clusters of its own
// namespace; a clusterRef to another namespace names the cluster of that name in the Profile's
// namespace, as Sveltos reads it; dependencies are Profiles of the same namespace, never
// ClusterProfiles or Profiles elsewhere.
func TestProfileSeesItsNamespaceOnly(t *testing.T) {
	web := &configv1beta1.Profile{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "web"}}
	web.Spec.ClusterSelector = prod()
	web.Spec.ClusterRefs = []corev1.ObjectReference{
		{Kind: libv1beta1.SveltosClusterKind, Namespace: "b", Name: "b1"}, // read as a/b1, which does not exist
		{Kind: libv1beta1.SveltosClusterKind, Namespace: "b", Name: "a3"}, // read as a/a3
	}
	// A Profile of the same namespace depending on web brings its cluster along.
	app := &configv1beta1.Profile{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "app"}}
	app.Spec.DependsOn = []string{"web"}
	app.Spec.ClusterRefs = []corev1.ObjectReference{{Name: "a4"}}
	// Neither a Profile of another namespace nor a ClusterProfile of the same name does.
	other := &configv1beta1.Profile{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "app"}}
	other.Spec.DependsOn = []string{"web"}
	other.Spec.ClusterSelector = prod()
	cp := &configv1beta1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Name: "app"}}
	cp.Spec.DependsOn = []string{"web"}
	cp.Spec.ClusterSelector = prod()

	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(web, app, other, cp,
		clusterIn("a", "a1", map[string]string{"env": "prod"}),
		clusterIn("a", "a2", map[string]string{"env": "dev"}),
		clusterIn("a", "a3", nil),
		clusterIn("a", "a4", nil),
		clusterIn("b", "b1", map[string]string{"env": "prod"}),
		clusterIn("b", "a3", map[string]string{"env": "prod"})).Build()

	keys, _, err := ProfileClusters(context.Background(), c, nil, web)
	if err != nil {
		t.Fatal(err)
	}
	want := []ClusterKey{{"a", "a1"}, {"a", "a3"}, {"a", "a4"}}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("Profile a/web matches %v, want %v", keys, want)
	}

	// The ClusterProfile of the same name sees the whole fleet.
	keys, _, err = ProfileClusters(context.Background(), c, nil, cp)
	if err != nil {
		t.Fatal(err)
	}
	want = []ClusterKey{{"a", "a1"}, {"b", "a3"}, {"b", "b1"}}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("ClusterProfile app matches %v, want %v", keys, want)
	}
}
