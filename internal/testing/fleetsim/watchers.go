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
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// watcher is one open watch of a cluster.
type watcher struct {
	gr  schema.GroupResource
	sel selection
	ch  chan event
}

// view says how ev looks to a watch with this selection: a modification that moves an object
// into or out of a label selection is an addition or a deletion.
func (s selection) view(ev event) (event, bool) {
	now := s.matches(ev.obj, labelsFor(s, ev.obj))
	if ev.typ != watch.Modified || s.labels == nil {
		return ev, now
	}
	before := s.matches(ev.obj, ev.prevLabels)
	switch {
	case now && before:
	case now:
		ev.typ = watch.Added
	case before:
		ev.typ = watch.Deleted
	default:
		return ev, false
	}
	return ev, true
}

// labelsFor reads an object's labels only when the selection needs them.
func labelsFor(s selection, obj *unstructured.Unstructured) map[string]string {
	if s.labels == nil {
		return nil
	}
	return obj.GetLabels()
}

// notify offers ev to the watches of its resource. A watch too far behind is dropped rather than
// waited for: a cluster's lock must never wait on a client.
func (d *clusterData) notify(ev event) {
	kept := d.watchers[:0]
	for _, w := range d.watchers {
		if w.gr != ev.gr {
			kept = append(kept, w)
			continue
		}
		out, ok := w.sel.view(ev)
		if !ok {
			kept = append(kept, w)
			continue
		}
		select {
		case w.ch <- out:
			kept = append(kept, w)
		default:
			close(w.ch)
		}
	}
	clear(d.watchers[len(kept):])
	d.watchers = kept
}

// dropWatchers ends every watch of a resource, as when its CRD is deleted.
func (d *clusterData) dropWatchers(gr schema.GroupResource) {
	d.watchers = slices.DeleteFunc(d.watchers, func(w *watcher) bool {
		if w.gr == gr {
			close(w.ch)
			return true
		}
		return false
	})
}

// stopWatching unregisters w, closing its channel, and returns the cluster's resourceVersion.
func (c *Cluster) stopWatching(w *watcher) uint64 {
	d := c.lock()
	defer c.unlock()
	if i := slices.Index(d.watchers, w); i >= 0 {
		d.watchers = slices.Delete(d.watchers, i, i+1)
		close(w.ch)
	}
	return d.rv
}
