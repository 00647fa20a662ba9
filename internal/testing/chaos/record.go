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

// Package chaos judges crash trials. A Recorder follows the storage of a sandbox fleet (one etcd
// that every cluster's kube-apiserver writes under its own prefix), so the verdict rests on the
// managed clusters' own records, in the order etcd committed them, and keeps recording while an
// API server or the controller is down. Check replays those records against what a rollout
// promises: stage order, soak, approvals, how many clusters update at once, nothing removed,
// every cluster on the new version at the end.
package chaos

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// Write is one committed write to a watched object of a managed cluster, or to a ClusterProfile.
type Write struct {
	// Rev is etcd's revision of the write: one order for every cluster of the fleet.
	Rev int64
	// At is when the recorder received it.
	At time.Time
	// Stamp is the API server's own time of the write: the latest managedFields time of the
	// object (or its creationTimestamp), which the API server sets as it takes the write and
	// stores truncated to the second. Zero for a deletion.
	Stamp   time.Time
	Cluster string
	// Resource, Namespace and Name locate the object: "deployments", "configmaps", "secrets",
	// or "clusterprofiles" (cluster-scoped, Namespace empty).
	Resource, Namespace, Name string
	Deleted                   bool
	// Object is the decoded object, nil for a deletion; of a ClusterProfile, its metadata only
	// (*metav1.PartialObjectMetadata).
	Object runtime.Object
}

// Recorder keeps every write to the watched namespaces of the fleet's clusters.
type Recorder struct {
	prefix     string
	namespaces []string
	decoder    runtime.Decoder

	mu      sync.Mutex
	initial []Write
	writes  []Write
	err     error
}

// Record connects to the fleet's etcd at endpoint, reads the current state of the given
// namespaces under keyPrefix (e.g. "/stagecoach-sandbox/") and follows every later write until
// ctx ends.
func Record(ctx context.Context, endpoint, keyPrefix string, namespaces ...string) (*Recorder, error) {
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 5 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("connecting to etcd: %w", err)
	}
	r := &Recorder{prefix: keyPrefix, namespaces: namespaces,
		decoder: protobuf.NewSerializer(clientgoscheme.Scheme, clientgoscheme.Scheme)}
	resp, err := cli.Get(ctx, keyPrefix, clientv3.WithPrefix())
	if err != nil {
		cli.Close()
		return nil, fmt.Errorf("reading the fleet's state: %w", err)
	}
	now := time.Now()
	for _, kv := range resp.Kvs {
		if w, ok := r.decode(string(kv.Key), kv.Value, kv.ModRevision, now, false); ok {
			r.initial = append(r.initial, w)
		}
	}
	go r.follow(ctx, cli, resp.Header.Revision)
	return r, nil
}

// follow records every write after revision rev until ctx ends. When etcd restarts, the watch
// ends or fails; it is opened again from the revision after the last one received, so no write
// is lost: etcd keeps them until a compaction, which the kube-apiservers do every five minutes
// and never past the revisions a client has yet to see for long.
func (r *Recorder) follow(ctx context.Context, cli *clientv3.Client, rev int64) {
	defer cli.Close()
	for ctx.Err() == nil {
		wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
		watch := cli.Watch(wctx, r.prefix, clientv3.WithPrefix(), clientv3.WithRev(rev+1))
		for resp := range watch {
			if resp.CompactRevision > 0 {
				cancel()
				r.fail(fmt.Errorf("writes after revision %d were compacted before they were recorded (compacted at %d)", rev, resp.CompactRevision))
				return
			}
			if resp.Err() != nil {
				break // etcd went away or lost its leader: watch again
			}
			for _, ev := range resp.Events {
				rev = max(rev, ev.Kv.ModRevision)
			}
			r.take(resp.Events)
		}
		cancel()
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (r *Recorder) take(events []*clientv3.Event) {
	now := time.Now()
	var ws []Write
	for _, ev := range events {
		if w, ok := r.decode(string(ev.Kv.Key), ev.Kv.Value, ev.Kv.ModRevision, now, ev.Type == clientv3.EventTypeDelete); ok {
			ws = append(ws, w)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes = append(r.writes, ws...)
}

func (r *Recorder) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = fmt.Errorf("recording the fleet: %w", err)
	}
}

// profilesKey is the storage path of ClusterProfiles, cluster-scoped custom resources that the
// API server keys <group>/<resource>/<name> and stores as JSON.
const profilesKey = "config.projectsveltos.io/clusterprofiles/"

// decode keeps writes to deployments, configmaps and secrets of the watched namespaces, keyed
// <prefix><cluster>/<resource>/<namespace>/<name>, and the metadata of every ClusterProfile
// write: a promotion writes a stage's profile when it decides the stage starts a version.
func (r *Recorder) decode(key string, value []byte, rev int64, at time.Time, deleted bool) (Write, bool) {
	path := strings.TrimPrefix(key, r.prefix)
	if cluster, name, ok := strings.Cut(path, "/"+profilesKey); ok && !strings.Contains(name, "/") {
		return r.decodeProfile(key, cluster, name, value, rev, at, deleted)
	}
	parts := strings.Split(path, "/")
	if len(parts) != 4 || !slices.Contains([]string{"deployments", "configmaps", "secrets"}, parts[1]) ||
		!slices.Contains(r.namespaces, parts[2]) {
		return Write{}, false
	}
	w := Write{Rev: rev, At: at, Cluster: parts[0], Resource: parts[1], Namespace: parts[2], Name: parts[3], Deleted: deleted}
	if !deleted {
		obj, _, err := r.decoder.Decode(value, nil, nil)
		if err != nil {
			r.fail(fmt.Errorf("decoding %s: %w", key, err))
			return Write{}, false
		}
		w.Object = obj
		w.Stamp = serverTime(obj)
	}
	return w, true
}

func (r *Recorder) decodeProfile(key, cluster, name string, value []byte, rev int64, at time.Time, deleted bool) (Write, bool) {
	w := Write{Rev: rev, At: at, Cluster: cluster, Resource: "clusterprofiles", Name: name, Deleted: deleted}
	if deleted {
		return w, true
	}
	obj := &metav1.PartialObjectMetadata{}
	if err := json.Unmarshal(value, obj); err != nil {
		r.fail(fmt.Errorf("decoding %s: %w", key, err))
		return Write{}, false
	}
	obj.ManagedFields = nil // only the generation is read
	w.Object = obj
	return w, true
}

// serverTime is the latest time the API server wrote into the object: a write that changes a
// field updates its manager's managedFields time, so the latest one is the write's own.
func serverTime(obj runtime.Object) time.Time {
	m, err := meta.Accessor(obj)
	if err != nil {
		return time.Time{}
	}
	t := m.GetCreationTimestamp().Time
	for _, f := range m.GetManagedFields() {
		if f.Time != nil && f.Time.After(t) {
			t = f.Time.Time
		}
	}
	return t
}

// Since returns the state recorded before the recorder started, the writes recorded since, and
// the first error that stopped the recording.
func (r *Recorder) Since() (initial, writes []Write, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.initial, r.writes[:len(r.writes):len(r.writes)], r.err
}

// Mark starts a new window: what was recorded so far becomes the initial state and the writes
// start empty, keeping only the last write of each object (and of a Deployment, the last one
// showing it rolled out). A trial marks before it changes anything.
func (r *Recorder) Mark() {
	r.mu.Lock()
	defer r.mu.Unlock()
	type key struct{ cluster, resource, namespace, name string }
	last, rolled := map[key]Write{}, map[key]Write{}
	for _, w := range append(r.initial, r.writes...) {
		k := key{w.Cluster, w.Resource, w.Namespace, w.Name}
		last[k] = w
		if d, ok := w.Object.(*appsv1.Deployment); ok && rolledOut(d) {
			rolled[k] = w
		} else if w.Deleted {
			delete(rolled, k)
		}
	}
	r.initial = r.initial[:0:0]
	for k, w := range last {
		if w.Deleted {
			continue
		}
		r.initial = append(r.initial, w)
		// A Deployment's last write may show a replica lost after the rollout: keep the
		// write that shows the rollout done, or the next window would take it for an update.
		if ro, ok := rolled[k]; ok && ro.Rev != w.Rev {
			r.initial = append(r.initial, ro)
		}
	}
	slices.SortFunc(r.initial, func(a, b Write) int { return cmp.Compare(a.Rev, b.Rev) })
	r.writes = nil
}
