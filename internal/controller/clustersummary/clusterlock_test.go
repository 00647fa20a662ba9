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
	"testing"
	"time"
)

func TestClusterLocksTakeTurnsPerCluster(t *testing.T) {
	var l clusterLocks
	ctx := context.Background()
	unlockA, err := l.lock(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	// Another cluster is not held up.
	unlockB, err := l.lock(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	unlockB()

	// The same cluster waits for its turn...
	got := make(chan func(), 1)
	go func() {
		unlock, err := l.lock(ctx, "a")
		if err != nil {
			t.Error(err)
		}
		got <- unlock
	}()
	select {
	case <-got:
		t.Fatal("a second lock of the same cluster did not wait")
	case <-time.After(50 * time.Millisecond):
	}
	// ...and gets it once the first is done.
	unlockA()
	(<-got)()

	// A wait ends with its context.
	unlockA, _ = l.lock(ctx, "a")
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := l.lock(cctx, "a"); err == nil {
		t.Fatal("a cancelled wait took the lock")
	}
	unlockA()
	if len(l.locks) != 0 {
		t.Fatalf("locks no longer used are kept: %v", l.locks)
	}
}
