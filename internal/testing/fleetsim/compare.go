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

package fleetsim

import (
	"maps"
	"reflect"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// specChanged says whether anything outside metadata and status differs: what moves the
// generation.
func specChanged(old, obj map[string]any) bool {
	ignored := func(k string) bool { return k == "metadata" || k == "status" || k == "apiVersion" || k == "kind" }
	for k, v := range old {
		if !ignored(k) && !reflect.DeepEqual(v, obj[k]) {
			return true
		}
	}
	for k := range obj {
		if _, ok := old[k]; !ok && !ignored(k) {
			return true
		}
	}
	return false
}

// unchanged says whether a write leaves an object as it was, apart from the resourceVersion and
// the times in managedFields, which an API server does not count as a change either.
func unchanged(old, obj *unstructured.Unstructured) bool {
	return reflect.DeepEqual(withoutVolatile(old), withoutVolatile(obj))
}

// withoutVolatile is u without what unchanged ignores.
func withoutVolatile(u *unstructured.Unstructured) map[string]any {
	obj := maps.Clone(u.Object)
	meta, _ := obj["metadata"].(map[string]any)
	meta = maps.Clone(meta)
	delete(meta, "resourceVersion")
	if entries, ok := meta["managedFields"].([]any); ok {
		timeless := make([]any, len(entries))
		for i, e := range entries {
			if m, ok := e.(map[string]any); ok {
				m = maps.Clone(m)
				delete(m, "time")
				e = m
			}
			timeless[i] = e
		}
		meta["managedFields"] = timeless
	}
	obj["metadata"] = meta
	return obj
}
