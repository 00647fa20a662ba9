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
	"maps"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/watch"
)

// objectKey identifies an object within its resource; namespace is empty for cluster-scoped
// ones.
type objectKey struct{ namespace, name string }

// clusterData is what a cluster holds once used. It is guarded by Cluster.mu.
//
// Stored objects are never changed in place: a write stores a new object (with its own top-level
// and metadata maps, sharing unchanged nested values with the old one). That lets readers encode
// an object after releasing the lock, and lets watch events hold objects without copying them.
type clusterData struct {
	// rv is the cluster's last resourceVersion; every change takes the next one.
	rv       uint64
	objects  map[schema.GroupResource]map[objectKey]*unstructured.Unstructured
	custom   map[schema.GroupResource]*resourceType
	history  history
	watchers []*watcher
	// serviceIPs counts the cluster IPs handed out to Services.
	serviceIPs uint32
}

// systemNamespaces exist in every cluster from the start, as in a real one.
var systemNamespaces = []string{"default", "kube-node-lease", "kube-public", "kube-system"}

// systemNamespaceParts are the parts of the system namespaces that are the same in every
// cluster. Stored objects are never changed in place, so all clusters share them: a cluster's
// first request then costs a few kilobytes, not ten.
var systemNamespaceParts = func() map[string][3]map[string]any {
	parts := map[string][3]map[string]any{}
	for _, name := range systemNamespaces {
		parts[name] = [3]map[string]any{
			{namespaceNameLabel: name},
			{"finalizers": []any{"kubernetes"}},
			{"phase": "Active"},
		}
	}
	return parts
}()

// lock locks the cluster and returns its data, making it on first use.
func (c *Cluster) lock() *clusterData {
	c.mu.Lock()
	return c.dataLocked()
}

// dataLocked returns the data of a locked cluster, making it on first use.
func (c *Cluster) dataLocked() *clusterData {
	if c.data == nil {
		c.data = newClusterData(c.fleet.opts.WatchHistory, c.fleet.started)
	}
	return c.data
}

func (c *Cluster) unlock() { c.mu.Unlock() }

// newClusterData makes the data of a cluster created at the given time.
func newClusterData(historySize int, created string) *clusterData {
	d := &clusterData{history: history{size: historySize}}
	for _, name := range systemNamespaces {
		d.rv++
		parts := systemNamespaceParts[name]
		ns := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1",
			"kind":       "Namespace",
			"metadata": map[string]any{
				"name":              name,
				"uid":               string(uuid.NewUUID()),
				"resourceVersion":   strconv.FormatUint(d.rv, 10),
				"creationTimestamp": created,
				"labels":            parts[0],
			},
			"spec":   parts[1],
			"status": parts[2],
		}}
		d.put(namespacesResource, objectKey{name: name}, ns)
	}
	d.history.since = d.rv
	return d
}

func (d *clusterData) object(gr schema.GroupResource, key objectKey) *unstructured.Unstructured {
	return d.objects[gr][key]
}

func (d *clusterData) put(gr schema.GroupResource, key objectKey, obj *unstructured.Unstructured) {
	if d.objects == nil {
		d.objects = map[schema.GroupResource]map[objectKey]*unstructured.Unstructured{}
	}
	objs := d.objects[gr]
	if objs == nil {
		objs = map[objectKey]*unstructured.Unstructured{}
		d.objects[gr] = objs
	}
	objs[key] = obj
}

func (d *clusterData) namespaceExists(name string) bool {
	return d.object(namespacesResource, objectKey{name: name}) != nil
}

// record stores obj under key as the resource's new state (obj nil deletes prev), gives it the
// next resourceVersion and tells watchers. It returns the object as stored, or for a deletion the
// deleted object carrying the deletion's resourceVersion.
func (d *clusterData) record(gr schema.GroupResource, key objectKey, prev, obj *unstructured.Unstructured) *unstructured.Unstructured {
	d.rv++
	rv := strconv.FormatUint(d.rv, 10)
	typ := watch.Modified
	switch {
	case obj == nil:
		typ = watch.Deleted
		obj = withOwnMetadata(prev)
		delete(d.objects[gr], key)
	case prev == nil:
		typ = watch.Added
	}
	obj.SetResourceVersion(rv)
	if typ != watch.Deleted {
		d.put(gr, key, obj)
	}
	ev := event{rv: d.rv, typ: typ, gr: gr, obj: obj}
	if prev != nil && typ == watch.Modified {
		ev.prevLabels = prev.GetLabels()
	}
	d.history.add(ev)
	d.notify(ev)
	return obj
}

// withOwnMetadata returns a copy of u that shares everything with u but its top-level and
// metadata maps, which the caller may then change.
func withOwnMetadata(u *unstructured.Unstructured) *unstructured.Unstructured {
	obj := maps.Clone(u.Object)
	if meta, ok := u.Object["metadata"].(map[string]any); ok {
		obj["metadata"] = maps.Clone(meta)
	}
	return &unstructured.Unstructured{Object: obj}
}

// asVersion presents a stored object as another served version of its resource: versions differ
// only by apiVersion here.
func asVersion(u *unstructured.Unstructured, apiVersion string) *unstructured.Unstructured {
	if u.GetAPIVersion() == apiVersion {
		return u
	}
	obj := maps.Clone(u.Object)
	obj["apiVersion"] = apiVersion
	return &unstructured.Unstructured{Object: obj}
}

func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// event is one change, as watches send it.
type event struct {
	rv  uint64
	typ watch.EventType
	gr  schema.GroupResource
	obj *unstructured.Unstructured
	// prevLabels are the labels before a modification, to tell a label-selecting watch that an
	// object entered or left its selection.
	prevLabels map[string]string
}

// history keeps the last changes of a cluster, for watches resuming from a resourceVersion.
type history struct {
	size   int
	events []event // a ring once full
	next   int     // where the next event goes once full
	// since: every change after this resourceVersion is held.
	since uint64
}

func (h *history) add(ev event) {
	if len(h.events) < h.size {
		h.events = append(h.events, ev)
		return
	}
	h.since = h.events[h.next].rv
	h.events[h.next] = ev
	h.next = (h.next + 1) % h.size
}

// after returns the events after rv, oldest first; false when some of them are no longer held.
func (h *history) after(rv uint64) ([]event, bool) {
	if rv < h.since {
		return nil, false
	}
	var out []event
	n := len(h.events)
	for i := range n {
		ev := h.events[(h.next+i)%n]
		if ev.rv > rv {
			out = append(out, ev)
		}
	}
	return out, true
}
