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

package binding

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

func TestResyncInterval(t *testing.T) {
	for _, tc := range []struct {
		bindings int
		rate     float64
		want     time.Duration
	}{
		{bindings: 0, rate: 20, want: 30 * time.Second},
		{bindings: 600, rate: 20, want: 30 * time.Second},
		{bindings: 1000, rate: 20, want: 50 * time.Second},
		{bindings: 20000, rate: 20, want: 1000 * time.Second},
		{bindings: 20000, rate: 0, want: 30 * time.Second},
	} {
		r := &kindReconciler{Reconciler: &Reconciler{resync: 30 * time.Second, maxResyncRate: tc.rate}, memo: newMemo()}
		for i := range tc.bindings {
			r.memo.succeeded(types.NamespacedName{Name: fmt.Sprint(i)}, &applied{})
		}
		if got := r.resyncInterval(t.Context()); got != tc.want {
			t.Errorf("%d bindings at %v/s: resync every %v, want %v", tc.bindings, tc.rate, got, tc.want)
		}
	}
}

// TestResyncIntervalCountsEveryBinding: the interval follows the bindings the cache holds, not
// only those applied so far, so that the first applies of a rollout are not resynced at once.
func TestResyncIntervalCountsEveryBinding(t *testing.T) {
	r := &kindReconciler{Reconciler: &Reconciler{resync: 30 * time.Second, maxResyncRate: 20}, memo: newMemo(), count: 20000, counted: time.Now()}
	r.memo.succeeded(types.NamespacedName{Name: "first"}, &applied{})
	if got, want := r.resyncInterval(t.Context()), 1000*time.Second; got != want {
		t.Errorf("1 binding applied of 20,000: resync every %v, want %v", got, want)
	}
}
