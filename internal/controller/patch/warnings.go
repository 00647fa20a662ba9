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

package patch

import (
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// Warnings remembers the last Warning Event message of each reason about each object, so that
// a message is emitted once however often reconciles see it: a reconcile that runs again
// because its status write lost a race still has the status it read, which does not show the
// Warning yet. The zero value is ready to use; an object's memory goes with Forget.
type Warnings struct{ last sync.Map }

// New reports whether msg is new for the reason about the object, and remembers it.
func (w *Warnings) New(uid types.UID, reason, msg string) bool {
	key := string(uid) + "/" + reason
	if prev, ok := w.last.Load(key); ok && prev == msg {
		return false
	}
	w.last.Store(key, msg)
	return true
}

// Clear forgets the last message of the reason about the object: the trouble is over, and the
// same message, should it come back, is news again.
func (w *Warnings) Clear(uid types.UID, reason string) { w.last.Delete(string(uid) + "/" + reason) }

// Forget drops what is remembered about the object (it is being deleted).
func (w *Warnings) Forget(uid types.UID) {
	w.last.Range(func(key, _ any) bool {
		if strings.HasPrefix(key.(string), string(uid)+"/") {
			w.last.Delete(key)
		}
		return true
	})
}
