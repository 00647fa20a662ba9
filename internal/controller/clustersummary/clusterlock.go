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

package clustersummary

import (
	"context"
	"sync"
)

// clusterLocks lets one summary at a time work on a cluster: summaries of several profiles on
// the same cluster settle conflicts between them by reading what the other deployed, which needs
// them to take turns, while summaries of different clusters run side by side.
type clusterLocks struct {
	mu    sync.Mutex
	locks map[string]*clusterLock
}

type clusterLock struct {
	turn  chan struct{}
	users int
}

// lock waits for the cluster's turn; the caller must call unlock when done.
func (l *clusterLocks) lock(ctx context.Context, cluster string) (unlock func(), err error) {
	l.mu.Lock()
	if l.locks == nil {
		l.locks = map[string]*clusterLock{}
	}
	cl, ok := l.locks[cluster]
	if !ok {
		cl = &clusterLock{turn: make(chan struct{}, 1)}
		l.locks[cluster] = cl
	}
	cl.users++
	l.mu.Unlock()

	release := func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		// A fleet of thousands of clusters keeps only the locks in use.
		if cl.users--; cl.users == 0 {
			delete(l.locks, cluster)
		}
	}
	select {
	case cl.turn <- struct{}{}:
		return func() { <-cl.turn; release() }, nil
	case <-ctx.Done():
		release()
		return nil, ctx.Err()
	}
}
