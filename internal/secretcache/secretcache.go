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

// Package secretcache keeps in memory only the Secrets the controller reads. A controller-runtime
// client caches every object of a kind it reads, which for Secrets means the content of every
// Secret of the management cluster: every tenant's credentials, held by a process that needs a
// few. Client watches Secrets' metadata only, reads a Secret's content from the API server the
// first time it is asked for, and keeps it until the Secret's resourceVersion moves on.
package secretcache

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
)

// Client is a client.Client whose Secret reads hold only the Secrets read. Everything else goes
// to the client it wraps.
type Client struct {
	client.Client
	// live reads Secrets' content from the API server.
	live client.Reader

	mu      sync.Mutex
	content map[types.NamespacedName]*corev1.Secret
}

// New wraps the client of c (a manager, say): Secrets' metadata comes from its cache, their
// content from its API reader, and the content of a deleted Secret is let go at once.
func New(ctx context.Context, c cluster.Cluster) (*Client, error) {
	return newClient(ctx, c.GetCache(), c.GetClient(), c.GetAPIReader())
}

func newClient(ctx context.Context, informers cache.Informers, cached client.Client, live client.Reader) (*Client, error) {
	sc := &Client{Client: cached, live: live, content: map[types.NamespacedName]*corev1.Secret{}}
	informer, err := informers.GetInformer(ctx, secretMetadata(), cache.BlockUntilSynced(false))
	if err != nil {
		return nil, err
	}
	_, err = informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{DeleteFunc: func(obj any) {
		if o, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
			obj = o.Obj
		}
		if o, ok := obj.(client.Object); ok {
			sc.forget(client.ObjectKeyFromObject(o))
		}
	}})
	return sc, err
}

// Get reads a Secret's metadata from the cache and returns the content read last for the same
// version, or reads it now. The Secret comes without its managedFields.
func (c *Client) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	secret, ok := obj.(*corev1.Secret)
	if !ok {
		return c.Client.Get(ctx, key, obj, opts...)
	}
	meta := secretMetadata()
	if err := c.Client.Get(ctx, key, meta, opts...); err != nil {
		if apierrors.IsNotFound(err) {
			c.forget(key)
		}
		return err
	}
	c.mu.Lock()
	held, ok := c.content[key]
	c.mu.Unlock()
	if ok && held.UID == meta.UID && held.ResourceVersion == meta.ResourceVersion {
		held.DeepCopyInto(secret)
		return nil
	}
	fresh := &corev1.Secret{}
	if err := c.live.Get(ctx, key, fresh); err != nil {
		if apierrors.IsNotFound(err) {
			c.forget(key)
		}
		return err
	}
	// The cache may lag behind the API server: keep what was read, whichever version it is; a
	// later read whose metadata names another version reads again. Nobody here applies Secrets
	// from what they read, so their field managers need not be held for every cluster.
	fresh.ManagedFields = nil
	c.mu.Lock()
	c.content[key] = fresh.DeepCopy()
	c.mu.Unlock()
	fresh.DeepCopyInto(secret)
	return nil
}

// List lists Secrets' metadata from the cache and reads each as Get does.
func (c *Client) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	secrets, ok := list.(*corev1.SecretList)
	if !ok {
		return c.Client.List(ctx, list, opts...)
	}
	metas := &metav1.PartialObjectMetadataList{}
	metas.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("SecretList"))
	if err := c.Client.List(ctx, metas, opts...); err != nil {
		return err
	}
	secrets.Items = make([]corev1.Secret, 0, len(metas.Items))
	for _, m := range metas.Items {
		var s corev1.Secret
		err := c.Get(ctx, client.ObjectKeyFromObject(&m), &s)
		if apierrors.IsNotFound(err) {
			continue // deleted since the list
		}
		if err != nil {
			return err
		}
		secrets.Items = append(secrets.Items, s)
	}
	secrets.ResourceVersion = metas.ResourceVersion
	return nil
}

// Held reports how many Secrets' content the client holds.
func (c *Client) Held() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.content)
}

func (c *Client) forget(key types.NamespacedName) {
	c.mu.Lock()
	delete(c.content, key)
	c.mu.Unlock()
}

func secretMetadata() *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Secret"))
	return m
}
