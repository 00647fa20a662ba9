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

// Package managercache holds the options of the controller manager's informer cache, shared by
// the controller command and the test harness so that tests run the cache the controller runs.
package managercache

import "sigs.k8s.io/controller-runtime/pkg/cache"

// Options keep every cached object without its managedFields. The controller never reads them
// from the management cluster, and they are a large part of what it caches (ClusterSummaries,
// bindings and clusters written by several field managers, a few KB each at 20,000 clusters).
// Writes are unaffected: an update that carries no managedFields keeps the object's own.
func Options() cache.Options {
	return cache.Options{DefaultTransform: cache.TransformStripManagedFields()}
}
