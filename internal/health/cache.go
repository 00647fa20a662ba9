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

package health

import (
	"container/list"
	"crypto/sha256"
	"sync"
)

// DefaultCacheSize is the number of compiled programs the process-wide cache keeps.
const DefaultCacheSize = 4096

// defaultCache serves Compile calls whose Options carry no Cache.
var defaultCache = NewCache(DefaultCacheSize)

// Cache keeps compiled Lua scripts and CEL programs, keyed by a hash of their source (and, for
// CEL, the cost limit, which is part of the program). It is safe for concurrent use.
//
// Compile errors are cached too, so a broken check costs one compilation, not one per
// reconcile. The cache is bounded and drops the least recently used entry when full, so that
// checks edited over months do not pile up.
type Cache struct {
	mu      sync.Mutex
	size    int
	entries map[cacheKey]*list.Element
	order   *list.List // front = most recently used
}

type cacheKey struct {
	kind string // "lua" or "cel"
	hash [sha256.Size]byte
	cost uint64 // CEL cost limit; 0 for Lua
}

type cacheEntry struct {
	key   cacheKey
	value any
	err   error
}

// NewCache returns a cache of at most size compiled programs (DefaultCacheSize when size <= 0).
func NewCache(size int) *Cache {
	if size <= 0 {
		size = DefaultCacheSize
	}
	return &Cache{size: size, entries: make(map[cacheKey]*list.Element), order: list.New()}
}

// Len returns the number of cached programs.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// getOrCompile returns the cached outcome for key, or runs compile and caches its outcome. Two
// callers racing on the same new key may both compile; the results are equivalent.
func (c *Cache) getOrCompile(key cacheKey, compile func() (any, error)) (any, error) {
	c.mu.Lock()
	if el, ok := c.entries[key]; ok {
		c.order.MoveToFront(el)
		e := el.Value.(*cacheEntry)
		c.mu.Unlock()
		return e.value, e.err
	}
	c.mu.Unlock()

	// Compile outside the lock: compiling a CEL rule takes tens of microseconds, and other
	// checks should not wait for it.
	value, err := compile()

	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.order.MoveToFront(el)
		return value, err
	}
	c.entries[key] = c.order.PushFront(&cacheEntry{key: key, value: value, err: err})
	for c.order.Len() > c.size {
		oldest := c.order.Back()
		c.order.Remove(oldest)
		delete(c.entries, oldest.Value.(*cacheEntry).key)
	}
	return value, err
}
