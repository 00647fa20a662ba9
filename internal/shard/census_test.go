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
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/cache/informertest"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

// TestCensus: a shard counts the clusters that carry its key, follows clusters moving between
// shards, and forgets deleted ones.
func TestCensus(t *testing.T) {
	ctx := context.Background()
	informers := &informertest.FakeInformers{Scheme: scheme.New()}
	census, err := NewCensus(ctx, informers, &libv1beta1.SveltosCluster{}, "a")
	if err != nil {
		t.Fatal(err)
	}
	informer, err := informers.FakeInformerFor(ctx, &libv1beta1.SveltosCluster{})
	if err != nil {
		t.Fatal(err)
	}
	one, two, other := cluster("a"), cluster("a"), cluster("b")
	one.Name, two.Name, other.Name = "one", "two", "other"
	informer.Add(one)
	informer.Add(two)
	informer.Add(other)
	informer.Add(one) // a resync
	if got := census.Len(); got != 2 {
		t.Fatalf("after adding two clusters of shard a and one of b: %d, want 2", got)
	}

	moved := two.DeepCopy()
	moved.Annotations = nil
	informer.Update(two, moved)
	back := other.DeepCopy()
	back.Annotations = map[string]string{libv1beta1.ShardAnnotation: "a"}
	informer.Update(other, back)
	if got := census.Len(); got != 2 {
		t.Fatalf("after one cluster left shard a and another joined it: %d, want 2", got)
	}

	informer.Delete(one)
	informer.Delete(back)
	if got := census.Len(); got != 0 {
		t.Fatalf("after both were deleted: %d, want 0", got)
	}
}
