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

// Package inplace reads every cached object of a kind without copying it. A controller-runtime
// List copies each matching object into the list's Items, even with UnsafeDisableDeepCopy: a pass
// over 20,000 SveltosClusters or ClusterSummaries allocated tens of megabytes, and the controllers
// that read the whole fleet on every pass spent more time copying and collecting it than
// deciding. Here the objects are the informer's own.
package inplace

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// List returns the objects of list's kind that selector matches (nil matches all), read from the
// informer of informers. They belong to the cache: read them, never change them. When informers
// is nil or its informer cannot be read directly, reader lists them.
func List[T any, PT interface {
	*T
	client.Object
}](ctx context.Context, informers cache.Informers, reader client.Reader, list client.ObjectList, selector labels.Selector) ([]PT, error) {
	objs, err := Objects(ctx, informers, reader, PT(new(T)), list, "", selector)
	if err != nil {
		return nil, err
	}
	out := make([]PT, 0, len(objs))
	for _, o := range objs {
		t, ok := o.(PT)
		if !ok {
			return nil, fmt.Errorf("listing %T: got a %T", list, o)
		}
		out = append(out, t)
	}
	return out, nil
}

// Objects is List for a kind known at run time, as obj's (a new object of the kind) and list's,
// in namespace ("" for every namespace, or a cluster-scoped kind).
func Objects(ctx context.Context, informers cache.Informers, reader client.Reader, obj client.Object, list client.ObjectList,
	namespace string, selector labels.Selector) ([]client.Object, error) {
	if selector == nil {
		selector = labels.Everything()
	}
	if informers != nil {
		if indexer, err := indexerOf(informers.GetInformer(ctx, obj)); err != nil {
			return nil, err
		} else if indexer != nil {
			return matching(indexer.List(), namespace, selector)
		}
	}
	if err := reader.List(ctx, list, client.InNamespace(namespace), client.MatchingLabelsSelector{Selector: selector}, client.UnsafeDisableDeepCopy); err != nil {
		return nil, err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, err
	}
	out := make([]client.Object, 0, len(items))
	for _, item := range items {
		o, ok := item.(client.Object)
		if !ok {
			return nil, fmt.Errorf("listing %T: got a %T", list, item)
		}
		out = append(out, o)
	}
	return out, nil
}

// indexerOf is the store of an informer, or nil when the informer does not show it.
func indexerOf(informer cache.Informer, err error) (toolscache.Indexer, error) {
	if err != nil {
		return nil, err
	}
	indexed, ok := informer.(interface{ GetIndexer() toolscache.Indexer })
	if !ok {
		return nil, nil
	}
	return indexed.GetIndexer(), nil
}

func matching(items []any, namespace string, selector labels.Selector) ([]client.Object, error) {
	out := make([]client.Object, 0, len(items))
	for _, item := range items {
		o, ok := item.(client.Object)
		if !ok {
			return nil, fmt.Errorf("the cache holds a %T, not an object", item)
		}
		if (namespace == "" || o.GetNamespace() == namespace) && (selector.Empty() || selector.Matches(labels.Set(o.GetLabels()))) {
			out = append(out, o)
		}
	}
	return out, nil
}

// Get returns the object named key of obj's kind (obj is a new one of the kind) from the
// informer of informers, without copying it: read it, never change it. When informers is nil or
// its informer cannot be read directly, reader reads it into obj. An object the cache does not
// hold is a NotFound error.
func Get(ctx context.Context, informers cache.Informers, reader client.Reader, key client.ObjectKey, obj client.Object) (client.Object, error) {
	if informers != nil {
		indexer, err := indexerOf(informers.GetInformer(ctx, obj))
		if err != nil {
			return nil, err
		}
		if indexer != nil {
			item, exists, err := indexer.GetByKey(storeKey(key))
			if err != nil {
				return nil, err
			}
			if !exists {
				return nil, apierrors.NewNotFound(schema.GroupResource{Resource: strings.TrimPrefix(fmt.Sprintf("%T", obj), "*")}, key.Name)
			}
			o, ok := item.(client.Object)
			if !ok {
				return nil, fmt.Errorf("the cache holds a %T, not an object", item)
			}
			return o, nil
		}
	}
	if err := reader.Get(ctx, key, obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// storeKey is how an informer's store keys the object: its name alone when it has no namespace.
func storeKey(key client.ObjectKey) string {
	if key.Namespace == "" {
		return key.Name
	}
	return key.Namespace + "/" + key.Name
}
