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
	"container/heap"
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// controllerManager is the field manager of the status writes that stand in for
// kube-controller-manager's.
const controllerManager = "kube-controller-manager"

// afterWrite does what controllers would do after a stored change: a CRD's resource is served,
// and a workload whose spec changed is made ready after Options.AvailableAfter. The cluster is
// locked.
func (c *Cluster) afterWrite(d *clusterData, rt *resourceType, old, obj *unstructured.Unstructured) {
	gr := rt.groupResource()
	switch {
	case gr == crdResource:
		d.registerCRD(obj)
	case readyStatuses[gr] != nil:
		if old != nil && old.GetGeneration() == obj.GetGeneration() {
			return
		}
		r := readiness{cluster: c, gr: gr, key: objectKey{obj.GetNamespace(), obj.GetName()}, uid: obj.GetUID(), generation: obj.GetGeneration()}
		if after := c.fleet.opts.AvailableAfter; after > 0 {
			r.at = time.Now().Add(after)
			c.fleet.timers.add(r)
			return
		}
		c.becomeReady(d, r)
	}
}

// readiness is a workload to make ready at a given time, if it is still the same object at the
// same generation then.
type readiness struct {
	at         time.Time
	cluster    *Cluster
	gr         schema.GroupResource
	key        objectKey
	uid        types.UID
	generation int64
}

// becomeReady writes the ready status of a workload, as its controller would. The cluster is
// locked.
func (c *Cluster) becomeReady(d *clusterData, r readiness) {
	obj := d.object(r.gr, r.key)
	rt := d.typeOf(r.gr)
	if obj == nil || rt == nil || obj.GetUID() != r.uid || obj.GetGeneration() != r.generation {
		return
	}
	next := withOwnMetadata(obj)
	next.Object["status"] = readyStatuses[r.gr](obj, timestamp(time.Now()))
	fm, err := fieldManager(rt, rt.storageVersion, "status")
	if err != nil {
		c.fleet.log.Error(err, "simulated status not written", "cluster", c.name, "resource", r.gr.String(), "object", r.key.name)
		return
	}
	managed := fm.UpdateNoErrors(obj, next, controllerManager).(*unstructured.Unstructured)
	if unchanged(obj, managed) {
		return
	}
	d.record(r.gr, r.key, obj, managed)
}

// scheduler makes workloads ready when their time comes: one goroutine and one heap for the
// whole fleet, however many clusters wait.
type scheduler struct {
	mu    sync.Mutex
	queue readinessQueue
	wake  chan struct{}
	done  chan struct{}
}

func newScheduler() *scheduler {
	return &scheduler{wake: make(chan struct{}, 1), done: make(chan struct{})}
}

func (s *scheduler) add(r readiness) {
	s.mu.Lock()
	heap.Push(&s.queue, r)
	first := s.queue[0].at.Equal(r.at)
	s.mu.Unlock()
	if first {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

func (s *scheduler) run(ctx context.Context) {
	defer close(s.done)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		s.mu.Lock()
		var due []readiness
		now := time.Now()
		for len(s.queue) > 0 && !s.queue[0].at.After(now) {
			due = append(due, heap.Pop(&s.queue).(readiness))
		}
		var next time.Time
		if len(s.queue) > 0 {
			next = s.queue[0].at
		}
		s.mu.Unlock()
		for _, r := range due {
			d := r.cluster.lock()
			r.cluster.becomeReady(d, r)
			r.cluster.unlock()
		}
		if !next.IsZero() {
			timer.Reset(time.Until(next))
		}
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		case <-timer.C:
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

// wait returns once run has returned.
func (s *scheduler) wait() { <-s.done }

// readinessQueue is a min-heap by time.
type readinessQueue []readiness

func (q readinessQueue) Len() int           { return len(q) }
func (q readinessQueue) Less(i, j int) bool { return q[i].at.Before(q[j].at) }
func (q readinessQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *readinessQueue) Push(x any)        { *q = append(*q, x.(readiness)) }
func (q *readinessQueue) Pop() any {
	old := *q
	r := old[len(old)-1]
	old[len(old)-1] = readiness{}
	*q = old[:len(old)-1]
	return r
}
