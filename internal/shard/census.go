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

package shard

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Census counts the clusters of one kind that a shard serves, from the informer's events. A
// prober paces itself by the size of its fleet; counting the clusters probed so far would
// underrate a fleet registered all at once until every cluster had had its first probe, and
// pace those first probes as for a small fleet.
type Census struct {
	key Key

	mu      sync.Mutex
	members map[types.NamespacedName]struct{}
}

// NewCensus counts the objects of obj's kind (SveltosCluster or MemberCluster) that shard key
// owns, as informers see them.
func NewCensus(ctx context.Context, informers cache.Informers, obj client.Object, key Key) (*Census, error) {
	c := &Census{key: key, members: map[types.NamespacedName]struct{}{}}
	informer, err := informers.GetInformer(ctx, obj, cache.BlockUntilSynced(false))
	if err != nil {
		return nil, err
	}
	_, err = informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    c.observe,
		UpdateFunc: func(_, obj any) { c.observe(obj) },
		DeleteFunc: func(obj any) {
			if gone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = gone.Obj
			}
			if o, ok := obj.(client.Object); ok {
				c.mu.Lock()
				delete(c.members, client.ObjectKeyFromObject(o))
				c.mu.Unlock()
			}
		},
	})
	return c, err
}

// Len is how many clusters the shard serves.
func (c *Census) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.members)
}

// observe counts a cluster in or out as its shard says.
func (c *Census) observe(obj any) {
	o, ok := obj.(client.Object)
	if !ok {
		return
	}
	key := client.ObjectKeyFromObject(o)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.key.Owns(o) {
		c.members[key] = struct{}{}
	} else {
		delete(c.members, key)
	}
}
