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

package tenancy

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Retries paces the retries of objects whose content their tenant may not read: a RoleBinding
// granted later raises no event the controller sees, so they are tried again on a timer,
// doubling from two seconds to a minute while the failure lasts. The zero value is ready.
type Retries struct {
	mu    sync.Mutex
	tries map[types.UID]int
}

// Next is how long the object waits before its next try.
func (r *Retries) Next(uid types.UID) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tries == nil {
		r.tries = map[types.UID]int{}
	}
	n := r.tries[uid]
	r.tries[uid] = n + 1
	return min(2*time.Second<<min(n, 5), time.Minute)
}

// Reset forgets the object's failures: its content was read, or it is gone.
func (r *Retries) Reset(uid types.UID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.tries, uid)
}
