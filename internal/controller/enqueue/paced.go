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

// Package enqueue holds event handlers that decide when a reconcile runs.
package enqueue

import (
	"context"
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Paced enqueues what inner enqueues, but each request at most about once per interval: the
// first after a quiet spell at once, those that follow within the interval as one request at
// its end.
//
// It is for objects that span a fleet and are woken by per-cluster objects (summaries,
// bindings): a stage of thousands of clusters changes hundreds of them a second, and each pass
// over the spanning object reads the whole stage, so that passes back to back would take a core
// and notice nothing sooner.
func Paced(inner handler.EventHandler, interval time.Duration) handler.EventHandler {
	p := &pacer{interval: interval, now: time.Now, next: map[reconcile.Request]time.Time{}}
	queue := func(q workqueue.TypedRateLimitingInterface[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
		return pacedQueue{TypedRateLimitingInterface: q, pacer: p}
	}
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			inner.Create(ctx, e, queue(q))
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			inner.Update(ctx, e, queue(q))
		},
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			inner.Delete(ctx, e, queue(q))
		},
		GenericFunc: func(ctx context.Context, e event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			inner.Generic(ctx, e, queue(q))
		},
	}
}

// FleetPace is how often a summary or binding may wake the object spanning the fleet that it
// belongs to.
const FleetPace = time.Second

type pacer struct {
	interval time.Duration
	now      func() time.Time

	mu sync.Mutex
	// next is, for each request, when it may be enqueued at once again.
	next map[reconcile.Request]time.Time
}

// wait is how long req must wait to be enqueued; 0 means now, and starts a new interval.
func (p *pacer) wait(req reconcile.Request) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if at, ok := p.next[req]; ok && at.After(now) {
		return at.Sub(now)
	}
	p.next[req] = now.Add(p.interval)
	return 0
}

// pacedQueue is the controller's queue as the inner handler sees it. Not being a priority
// queue, it is given plain Adds, which it paces.
type pacedQueue struct {
	workqueue.TypedRateLimitingInterface[reconcile.Request]
	pacer *pacer
}

func (q pacedQueue) Add(req reconcile.Request) {
	// The queue keeps one entry per request, ready at the earliest time asked.
	if wait := q.pacer.wait(req); wait > 0 {
		q.AddAfter(req, wait)
		return
	}
	q.TypedRateLimitingInterface.Add(req)
}
