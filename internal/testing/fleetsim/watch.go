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
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
)

// watchBuffer is how many events a watch may fall behind before it is dropped; its client then
// watches again from the last event it got.
const watchBuffer = 100

// initialEventsEnd is the annotation of the bookmark that ends the initial events of a watch
// list (sendInitialEvents=true), which informers use instead of a list.
const initialEventsEnd = "k8s.io/initial-events-end"

// watch streams changes as JSON watch events, one per line, flushed as they happen.
func (q *request) watch() error {
	opts, err := q.listOptions()
	if err != nil {
		return err
	}
	sel, err := q.selection(opts)
	if err != nil {
		return err
	}
	watchList := opts.SendInitialEvents != nil && *opts.SendInitialEvents
	if err := checkWatchOptions(opts, watchList); err != nil {
		return err
	}
	w := &watcher{gr: q.rt.groupResource(), sel: sel, ch: make(chan event, watchBuffer)}
	initial, startRV, err := q.startWatch(w, opts, watchList)
	if err != nil {
		return err
	}
	defer q.c.stopWatching(w)

	out := &eventWriter{w: q.w, apiVersion: q.apiVersion(), kind: q.rt.kind}
	out.w.Header().Set("Content-Type", "application/json")
	out.w.Header().Set("Cache-Control", "no-cache, private")
	out.w.WriteHeader(http.StatusOK)
	for _, ev := range initial {
		out.event(ev)
	}
	if watchList {
		out.bookmark(startRV, true)
	}
	if !out.flush() {
		return nil
	}
	return q.stream(w, out, opts)
}

// stream sends the changes w receives until the client goes, the watch times out or the cluster
// drops it.
func (q *request) stream(w *watcher, out *eventWriter, opts *metav1.ListOptions) error {
	timer := time.NewTimer(watchTimeout(opts))
	defer timer.Stop()
	for {
		select {
		case <-q.r.Context().Done():
			return nil
		case <-timer.C:
			// Send what is queued, then a bookmark so that the client resumes from here
			// instead of from an older resourceVersion the history may no longer hold.
			rv := q.c.stopWatching(w)
			for ev := range w.ch {
				out.event(ev)
			}
			if opts.AllowWatchBookmarks {
				out.bookmark(rv, false)
			}
			out.flush()
			return nil
		case ev, ok := <-w.ch:
			if !ok {
				return q.watchEnded(out)
			}
			out.event(ev)
			// Whatever else is queued goes in the same write.
			if !takeQueued(w, out) {
				return q.watchEnded(out)
			}
			if !out.flush() {
				return nil
			}
		}
	}
}

// takeQueued writes the events queued for w without waiting for more; false once w is dropped.
func takeQueued(w *watcher, out *eventWriter) bool {
	for {
		select {
		case ev, ok := <-w.ch:
			if !ok {
				return false
			}
			out.event(ev)
		default:
			return true
		}
	}
}

// watchEnded ends a watch the cluster dropped: because the client fell behind or the resource
// went away (the stream ends), or because the cluster went down (the stream breaks, or stalls
// until the client gives up).
func (q *request) watchEnded(out *eventWriter) error {
	switch q.c.DownMode() {
	case Hang:
		<-q.r.Context().Done()
		panic(http.ErrAbortHandler)
	case Refuse:
		panic(http.ErrAbortHandler)
	}
	out.flush()
	return nil
}

func checkWatchOptions(opts *metav1.ListOptions, watchList bool) error {
	if !watchList {
		return nil
	}
	var errs field.ErrorList
	if opts.ResourceVersionMatch != metav1.ResourceVersionMatchNotOlderThan {
		errs = append(errs, field.Forbidden(field.NewPath("resourceVersionMatch"), "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))
	}
	if !opts.AllowWatchBookmarks {
		errs = append(errs, field.Forbidden(field.NewPath("allowWatchBookmarks"), "sendInitialEvents requires setting allowWatchBookmarks to true"))
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid(schema.GroupKind{Group: "meta.k8s.io", Kind: "ListOptions"}, "", errs)
	}
	return nil
}

// startWatch registers w and returns the events it starts with, and the resourceVersion they
// bring the client to: the current objects (no resourceVersion, "0", or a watch list), or the
// changes after the resourceVersion given.
func (q *request) startWatch(w *watcher, opts *metav1.ListOptions, watchList bool) ([]event, uint64, error) {
	d := q.c.lock()
	defer q.c.unlock()
	var initial []event
	if watchList || opts.ResourceVersion == "" || opts.ResourceVersion == "0" {
		for _, obj := range d.selected(q.rt, w.sel) {
			initial = append(initial, event{typ: watch.Added, obj: obj})
		}
	} else {
		rv, err := strconv.ParseUint(opts.ResourceVersion, 10, 64)
		if err != nil {
			return nil, 0, errBadRequest("resourceVersion %q is not one this server gave", opts.ResourceVersion)
		}
		evs, ok := d.history.after(rv)
		if !ok {
			return nil, 0, apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", rv, d.history.since))
		}
		for _, ev := range evs {
			if ev.gr != w.gr {
				continue
			}
			if v, ok := w.sel.view(ev); ok {
				initial = append(initial, v)
			}
		}
	}
	d.watchers = append(d.watchers, w)
	return initial, d.rv, nil
}

// watchTimeout is timeoutSeconds, or like an API server's default, 30 to 60 minutes.
func watchTimeout(opts *metav1.ListOptions) time.Duration {
	if opts.TimeoutSeconds != nil && *opts.TimeoutSeconds > 0 {
		return time.Duration(*opts.TimeoutSeconds) * time.Second
	}
	return 30*time.Minute + rand.N(30*time.Minute)
}

// eventWriter writes watch events; after a failed write it writes nothing more.
type eventWriter struct {
	w          http.ResponseWriter
	apiVersion string
	kind       string
	buf        bytes.Buffer
	failed     bool
}

func (e *eventWriter) event(ev event) {
	data, err := json.Marshal(asVersion(ev.obj, e.apiVersion).Object)
	if err != nil {
		e.failed = true
		return
	}
	e.buf.WriteString(`{"type":"`)
	e.buf.WriteString(string(ev.typ))
	e.buf.WriteString(`","object":`)
	e.buf.Write(data)
	e.buf.WriteString("}\n")
}

func (e *eventWriter) bookmark(rv uint64, endOfInitialEvents bool) {
	meta := map[string]any{"resourceVersion": strconv.FormatUint(rv, 10)}
	if endOfInitialEvents {
		meta["annotations"] = map[string]any{initialEventsEnd: "true"}
	}
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": e.apiVersion, "kind": e.kind, "metadata": meta}}
	e.event(event{typ: watch.Bookmark, obj: obj})
}

// flush sends what was written; false once the client is gone.
func (e *eventWriter) flush() bool {
	if e.failed {
		return false
	}
	if e.buf.Len() > 0 {
		if _, err := e.w.Write(e.buf.Bytes()); err != nil {
			e.failed = true
			return false
		}
		e.buf.Reset()
	}
	if err := http.NewResponseController(e.w).Flush(); err != nil {
		e.failed = true
	}
	return !e.failed
}
