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

package fleet

import (
	"crypto/sha256"
	"encoding/json"
	"runtime"
	"sync"
	"weak"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/restmapper"
)

// sharedMapper is one cluster's REST mapper. A mapper built from discovery holds every kind the
// cluster serves, tens of kilobytes; the clusters of a fleet mostly serve the same APIs, so
// mappers are interned by the discovery they were built from and each cluster keeps a pointer
// to its own. Discovery is read on first use and again after Reset.
type sharedMapper struct {
	discovery discovery.DiscoveryInterface

	mu      sync.Mutex
	current *internedMapper
}

// held returns the discovery the mapper holds, nil when it has read none since its last Reset.
func (m *sharedMapper) held() *internedMapper {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.current
}

type internedMapper struct{ meta.RESTMapper }

// interned holds the mappers in use, by a hash of their discovery. Weak pointers let a mapper
// no cluster uses any more be collected; its entry goes with it.
var interned = struct {
	sync.Mutex
	mappers map[[sha256.Size]byte]weak.Pointer[internedMapper]
}{mappers: map[[sha256.Size]byte]weak.Pointer[internedMapper]{}}

// Reset makes the next mapping read the cluster's discovery again.
func (m *sharedMapper) Reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.current = nil
}

func (m *sharedMapper) mapper() (meta.RESTMapper, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.current != nil {
		return m.current, nil
	}
	groups, err := restmapper.GetAPIGroupResources(m.discovery)
	if err != nil && len(groups) == 0 {
		return nil, err
	}
	// A group that failed discovery (an aggregated API down) is left out, as the
	// DeferredDiscoveryRESTMapper does; the next Reset tries it again.
	m.current = intern(groups)
	return m.current, nil
}

func intern(groups []*restmapper.APIGroupResources) *internedMapper {
	data, _ := json.Marshal(groups) // maps are written in key order: equal discovery, equal bytes
	key := sha256.Sum256(data)
	interned.Lock()
	defer interned.Unlock()
	if im := interned.mappers[key].Value(); im != nil {
		return im
	}
	im := &internedMapper{restmapper.NewDiscoveryRESTMapper(groups)}
	interned.mappers[key] = weak.Make(im)
	runtime.AddCleanup(im, func(key [sha256.Size]byte) {
		interned.Lock()
		defer interned.Unlock()
		if interned.mappers[key].Value() == nil {
			delete(interned.mappers, key)
		}
	}, key)
	return im
}

func (m *sharedMapper) KindFor(resource schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	delegate, err := m.mapper()
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	return delegate.KindFor(resource)
}

func (m *sharedMapper) KindsFor(resource schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	delegate, err := m.mapper()
	if err != nil {
		return nil, err
	}
	return delegate.KindsFor(resource)
}

func (m *sharedMapper) ResourceFor(input schema.GroupVersionResource) (schema.GroupVersionResource, error) {
	delegate, err := m.mapper()
	if err != nil {
		return schema.GroupVersionResource{}, err
	}
	return delegate.ResourceFor(input)
}

func (m *sharedMapper) ResourcesFor(input schema.GroupVersionResource) ([]schema.GroupVersionResource, error) {
	delegate, err := m.mapper()
	if err != nil {
		return nil, err
	}
	return delegate.ResourcesFor(input)
}

func (m *sharedMapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	delegate, err := m.mapper()
	if err != nil {
		return nil, err
	}
	return delegate.RESTMapping(gk, versions...)
}

func (m *sharedMapper) RESTMappings(gk schema.GroupKind, versions ...string) ([]*meta.RESTMapping, error) {
	delegate, err := m.mapper()
	if err != nil {
		return nil, err
	}
	return delegate.RESTMappings(gk, versions...)
}

func (m *sharedMapper) ResourceSingularizer(resource string) (string, error) {
	delegate, err := m.mapper()
	if err != nil {
		return "", err
	}
	return delegate.ResourceSingularizer(resource)
}
