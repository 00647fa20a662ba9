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

package enqueue

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

var owner = reconcile.Request{NamespacedName: client.ObjectKey{Name: "promotion"}}

func newQueue(t *testing.T) workqueue.TypedRateLimitingInterface[reconcile.Request] {
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	t.Cleanup(q.ShutDown)
	return q
}

// TestPaced: the first event of a quiet spell is enqueued at once, the events that follow within
// the interval wait for its end, and an event after it is enqueued at once again.
func TestPaced(t *testing.T) {
	toOwner := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{owner}
	})
	h := Paced(toOwner, time.Hour)
	q := newQueue(t)
	summary := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "summary"}}
	ctx := context.Background()

	h.Create(ctx, event.CreateEvent{Object: summary}, q)
	if q.Len() != 1 {
		t.Fatalf("the first event: %d requests queued, want 1", q.Len())
	}
	req, _ := q.Get()
	q.Done(req)

	h.Update(ctx, event.UpdateEvent{ObjectOld: summary, ObjectNew: summary.DeepCopy()}, q)
	h.Create(ctx, event.CreateEvent{Object: summary}, q)
	if q.Len() != 0 {
		t.Fatalf("events within the interval: %d requests ready, want them to wait", q.Len())
	}
}

// TestPacerInterval: a request may be enqueued at once again once its interval is over.
func TestPacerInterval(t *testing.T) {
	now := time.Now()
	p := &pacer{interval: time.Minute, now: func() time.Time { return now }, next: map[reconcile.Request]time.Time{}}
	if w := p.wait(owner); w != 0 {
		t.Fatalf("first request waits %v", w)
	}
	now = now.Add(20 * time.Second)
	if w := p.wait(owner); w != 40*time.Second {
		t.Fatalf("a request 20 s later waits %v, want 40s", w)
	}
	now = now.Add(time.Minute)
	if w := p.wait(owner); w != 0 {
		t.Fatalf("a request after the interval waits %v", w)
	}
}
