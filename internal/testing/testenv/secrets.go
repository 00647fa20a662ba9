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

package testenv

import (
	"context"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// secretContentReads counts the shared controller's reads of Secrets through its cache: each
// would make the cache hold the content of every Secret of the management cluster. Main fails
// the test binary when there was one.
var secretContentReads atomic.Int64

// newSecretGuardedCache is the manager's cache, counting typed Secret reads and informers.
func newSecretGuardedCache(cfg *rest.Config, opts cache.Options) (cache.Cache, error) {
	c, err := cache.New(cfg, opts)
	return &secretGuardedCache{Cache: c}, err
}

type secretGuardedCache struct{ cache.Cache }

func note(obj any) {
	switch obj.(type) {
	case *corev1.Secret, *corev1.SecretList:
		secretContentReads.Add(1)
	}
}

func (c *secretGuardedCache) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	note(obj)
	return c.Cache.Get(ctx, key, obj, opts...)
}

func (c *secretGuardedCache) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	note(list)
	return c.Cache.List(ctx, list, opts...)
}

func (c *secretGuardedCache) GetInformer(ctx context.Context, obj client.Object, opts ...cache.InformerGetOption) (cache.Informer, error) {
	note(obj)
	return c.Cache.GetInformer(ctx, obj, opts...)
}

func (c *secretGuardedCache) GetInformerForKind(ctx context.Context, gvk schema.GroupVersionKind, opts ...cache.InformerGetOption) (cache.Informer, error) {
	if gvk == corev1.SchemeGroupVersion.WithKind("Secret") {
		secretContentReads.Add(1)
	}
	return c.Cache.GetInformerForKind(ctx, gvk, opts...)
}
