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
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// seen records what an informer's handler was told.
type seen struct {
	mu     sync.Mutex
	events []string
}

func (s *seen) add(what string, obj any) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		if tomb, isTomb := obj.(cache.DeletedFinalStateUnknown); isTomb {
			u, _ = tomb.Obj.(*unstructured.Unstructured)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, fmt.Sprintf("%s %s=%s", what, u.GetName(), u.GetLabels()["v"]))
}

func (s *seen) has(want string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.events {
		if e == want {
			return nil
		}
	}
	return fmt.Errorf("no %q among %q", want, s.events)
}

func TestInformer(t *testing.T) {
	f := startFleet(t, Options{Clusters: 1})
	c := f.Clusters()[0]
	ctx := t.Context()
	cms := clientset(t, c).CoreV1().ConfigMaps("default")
	if _, err := cms.Create(ctx, configMapV("before", "1"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dynamicClient(t, c), time.Hour, "default", nil)
	informer := factory.ForResource(configMaps).Informer()
	var s seen
	_, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { s.add("ADDED", obj) },
		UpdateFunc: func(_, obj any) { s.add("MODIFIED", obj) },
		DeleteFunc: func(obj any) { s.add("DELETED", obj) },
	})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	factory.Start(stop)
	defer factory.Shutdown()
	defer close(stop)
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		t.Fatal("the informer did not sync")
	}
	eventually(t, 5*time.Second, func() error { return s.has("ADDED before=1") })

	cm, err := cms.Create(ctx, configMapV("during", "1"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Labels["v"] = "2"
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cms.Delete(ctx, "during", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ADDED during=1", "MODIFIED during=2", "DELETED during=2"} {
		eventually(t, 5*time.Second, func() error { return s.has(want) })
	}
}

func configMapV(name, v string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"v": v}}}
}

// watchEvent is one line of a watch stream.
type watchEvent struct {
	Type   string                    `json:"type"`
	Object unstructured.Unstructured `json:"object"`
}

// rawWatch opens a watch with the given query and returns a function reading its next event.
func rawWatch(t *testing.T, c *Cluster, path string) (func() watchEvent, error) {
	t.Helper()
	client, err := rest.HTTPClientFor(restConfig(t, c))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.URL()+path, nil)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		var status metav1.Status
		_ = json.NewDecoder(resp.Body).Decode(&status)
		return nil, &apierrors.StatusError{ErrStatus: status}
	}
	t.Cleanup(func() { resp.Body.Close() })
	lines := bufio.NewScanner(resp.Body)
	return func() watchEvent {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("watch ended: %v", lines.Err())
		}
		var ev watchEvent
		if err := json.Unmarshal(lines.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		return ev
	}, nil
}

func TestWatchList(t *testing.T) {
	f := startFleet(t, Options{Clusters: 1})
	c := f.Clusters()[0]
	cms := clientset(t, c).CoreV1().ConfigMaps("default")
	for _, name := range []string{"a", "b"} {
		if _, err := cms.Create(t.Context(), configMapV(name, "1"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	next, err := rawWatch(t, c, "/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&labelSelector=v%3D1")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for range 3 {
		ev := next()
		got = append(got, ev.Type+" "+ev.Object.GetName()+ev.Object.GetAnnotations()[initialEventsEnd])
	}
	if want := "ADDED a,ADDED b,BOOKMARK true"; strings.Join(got, ",") != want {
		t.Fatalf("initial events %q, want %q", got, want)
	}
	// Leaving a label selection is a deletion to the watch.
	b, _ := cms.Get(t.Context(), "b", metav1.GetOptions{})
	b.Labels["v"] = "2"
	if _, err := cms.Update(t.Context(), b, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if ev := next(); ev.Type != "DELETED" || ev.Object.GetName() != "b" {
		t.Errorf("after b left the selection: %s %s, want DELETED b", ev.Type, ev.Object.GetName())
	}
}

func TestWatchResumesOrExpires(t *testing.T) {
	f := startFleet(t, Options{Clusters: 1, WatchHistory: 4})
	c := f.Clusters()[0]
	cms := clientset(t, c).CoreV1().ConfigMaps("default")
	first, err := cms.Create(t.Context(), configMapV("a", "1"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	second, err := cms.Create(t.Context(), configMapV("b", "1"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	next, err := rawWatch(t, c, "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion="+first.ResourceVersion)
	if err != nil {
		t.Fatal(err)
	}
	if ev := next(); ev.Type != "ADDED" || ev.Object.GetName() != "b" || ev.Object.GetResourceVersion() != second.ResourceVersion {
		t.Errorf("resumed watch sent %s %s@%s, want ADDED b@%s", ev.Type, ev.Object.GetName(), ev.Object.GetResourceVersion(), second.ResourceVersion)
	}
	for i := range 5 {
		if _, err := cms.Create(t.Context(), configMapV(fmt.Sprintf("c%d", i), "1"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	_, err = rawWatch(t, c, "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion="+first.ResourceVersion)
	if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
		t.Errorf("watch from a resourceVersion out of history: %v, want 410 Gone", err)
	}
}
