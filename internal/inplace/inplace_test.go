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

package inplace

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

// informers serves one informer whose store the test fills, as a manager's cache would.
type informers struct {
	cache.Informers
	informer toolscache.SharedIndexInformer
}

func (i informers) GetInformer(context.Context, client.Object, ...cache.InformerGetOption) (cache.Informer, error) {
	return i.informer, nil
}

func clusters() []*libv1beta1.SveltosCluster {
	return []*libv1beta1.SveltosCluster{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "fleet", Name: "a", Labels: map[string]string{"env": "prod"}}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "fleet", Name: "b", Labels: map[string]string{"env": "dev"}}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "fleet", Name: "c"}},
	}
}

// TestListFromInformer: the objects come from the informer's store, the very same ones, and the
// selector picks among them.
func TestListFromInformer(t *testing.T) {
	informer := toolscache.NewSharedIndexInformer(&toolscache.ListWatch{}, &libv1beta1.SveltosCluster{}, 0, toolscache.Indexers{})
	held := clusters()
	for _, c := range held {
		if err := informer.GetStore().Add(c); err != nil {
			t.Fatal(err)
		}
	}
	src := informers{informer: informer}
	all, err := List[libv1beta1.SveltosCluster](context.Background(), src, nil, &libv1beta1.SveltosClusterList{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 {
		t.Fatalf("got %d clusters, want 3", len(all))
	}
	prod, err := List[libv1beta1.SveltosCluster](context.Background(), src, nil, &libv1beta1.SveltosClusterList{},
		labels.SelectorFromSet(labels.Set{"env": "prod"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(prod) != 1 || prod[0] != held[0] {
		t.Fatalf("got %v, want the store's own cluster a", prod)
	}
}

// TestListThroughReader: without informers, the reader lists.
func TestListThroughReader(t *testing.T) {
	b := fake.NewClientBuilder().WithScheme(scheme.New())
	for _, c := range clusters() {
		b = b.WithObjects(c)
	}
	got, err := List[libv1beta1.SveltosCluster](context.Background(), nil, b.Build(), &libv1beta1.SveltosClusterList{},
		labels.SelectorFromSet(labels.Set{"env": "dev"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Name != "b" {
		t.Fatalf("got %v, want cluster b", got)
	}
}

// TestGet: a cached object is the store's own; one the cache does not hold is NotFound; without
// informers, the reader reads it.
func TestGet(t *testing.T) {
	informer := toolscache.NewSharedIndexInformer(&toolscache.ListWatch{}, &libv1beta1.SveltosCluster{}, 0, toolscache.Indexers{})
	held := clusters()
	for _, c := range held {
		if err := informer.GetStore().Add(c); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	got, err := Get(ctx, informers{informer: informer}, nil, client.ObjectKey{Namespace: "fleet", Name: "b"}, &libv1beta1.SveltosCluster{})
	if err != nil || got != held[1] {
		t.Fatalf("got %v, %v; want the store's own cluster b", got, err)
	}
	if _, err := Get(ctx, informers{informer: informer}, nil, client.ObjectKey{Namespace: "fleet", Name: "z"}, &libv1beta1.SveltosCluster{}); !apierrors.IsNotFound(err) {
		t.Fatalf("got %v, want NotFound", err)
	}
	profiles := toolscache.NewSharedIndexInformer(&toolscache.ListWatch{}, &configv1beta1.ClusterProfile{}, 0, toolscache.Indexers{})
	profile := &configv1beta1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Name: "web"}}
	if err := profiles.GetStore().Add(profile); err != nil {
		t.Fatal(err)
	}
	if got, err := Get(ctx, informers{informer: profiles}, nil, client.ObjectKey{Name: "web"}, &configv1beta1.ClusterProfile{}); err != nil || got != profile {
		t.Fatalf("got %v, %v; want the store's own cluster-scoped profile", got, err)
	}
	reader := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(clusters()[0]).Build()
	got, err = Get(ctx, nil, reader, client.ObjectKey{Namespace: "fleet", Name: "a"}, &libv1beta1.SveltosCluster{})
	if err != nil || got.GetName() != "a" {
		t.Fatalf("got %v, %v; want cluster a through the reader", got, err)
	}
}
