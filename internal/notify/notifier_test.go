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

package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	eventv1 "github.com/fluxcd/pkg/apis/event/v1beta1"
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/stagecoach-dev/stagecoach/internal/metrics"
)

// sink records what it is posted, and answers failFirst requests with 503.
type sink struct {
	mu        sync.Mutex
	failFirst int
	bodies    []string
	types     []string
}

func (s *sink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failFirst > 0 {
		s.failFirst--
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	s.bodies = append(s.bodies, string(b))
	s.types = append(s.types, r.Header.Get("Content-Type"))
}

func (s *sink) got() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func start(t *testing.T, n *Notifier) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = n.Start(ctx) }()
}

func testEvent(typ string) Event {
	return newEvent(Object{APIVersion: "config.projectsveltos.io/v1beta1", Kind: "ClusterPromotion", Name: "web", UID: "u1"}, typ, "0a0b", "staging", nil, time.Now(), "stage staging waits")
}

func TestDeliveryKinds(t *testing.T) {
	ce, slack, flux := &sink{}, &sink{}, &sink{}
	var srvs []*httptest.Server
	for _, s := range []*sink{ce, slack, flux} {
		srv := httptest.NewServer(s)
		t.Cleanup(srv.Close)
		srvs = append(srvs, srv)
	}
	n := &Notifier{Log: logr.Discard()}
	n.SetConfig(&Config{MaxAttempts: 3, MaxAge: Duration{time.Hour}, Endpoints: []Endpoint{
		{Name: "ce", Type: KindCloudEvents, URL: srvs[0].URL + "/hook"},
		{Name: "slack", Type: KindSlack, URL: srvs[1].URL + "/services/x", Events: []string{"approval.needed"}},
		{Name: "flux", Type: KindFlux, URL: srvs[2].URL, FluxObject: "Kustomization/flux-system/apps"},
	}}, nil)
	start(t, n)
	ev := testEvent(TypeApprovalNeeded)
	if err := n.Offer(context.Background(), []Event{ev, testEvent(TypeVersionCompleted)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "deliveries", func() bool { return len(ce.got()) == 2 && len(slack.got()) == 1 && len(flux.got()) == 2 })

	var got map[string]any
	for _, b := range ce.got() {
		if strings.Contains(b, TypeApprovalNeeded) {
			_ = json.Unmarshal([]byte(b), &got)
		}
	}
	data, _ := got["data"].(map[string]any)
	if got["specversion"] != "1.0" || got["id"] != ev.ID || got["type"] != TypeApprovalNeeded || got["source"] != Source ||
		data["stage"] != "staging" || data["version"] != "0a0b" || data["message"] != "stage staging waits" || ce.types[0] != ContentTypeCloudEvents {
		t.Fatalf("CloudEvent %v (%s)", got, ce.types[0])
	}
	if obj, _ := data["object"].(map[string]any); obj["kind"] != "ClusterPromotion" || obj["name"] != "web" {
		t.Fatalf("CloudEvent object %v", data["object"])
	}
	var text map[string]string
	_ = json.Unmarshal([]byte(slack.got()[0]), &text)
	if want := "[stagecoach] approval.needed: ClusterPromotion web, stage staging, version 0a0b: stage staging waits"; text["text"] != want {
		t.Fatalf("Slack text %q, want %q", text["text"], want)
	}
	var fe eventv1.Event
	_ = json.Unmarshal([]byte(flux.got()[0]), &fe)
	if fe.InvolvedObject.Kind != "Kustomization" || fe.InvolvedObject.Namespace != "flux-system" || fe.ReportingController != "stagecoach" ||
		fe.Metadata[eventv1.Group+"/id"] == "" || fe.Severity != "info" || !strings.HasPrefix(fe.Reason, "ApprovalNeeded") && !strings.HasPrefix(fe.Reason, "VersionCompleted") {
		t.Fatalf("Flux event %+v", fe)
	}

	// Offered again, as each reconcile does: nothing more is sent.
	_ = n.Offer(context.Background(), []Event{ev})
	time.Sleep(100 * time.Millisecond) // nothing to wait for: checks that nothing comes
	if len(ce.got()) != 2 {
		t.Fatalf("an event was sent twice: %d deliveries", len(ce.got()))
	}
}

func TestRetryAndDrop(t *testing.T) {
	flaky, dead := &sink{failFirst: 2}, &sink{failFirst: 1 << 30}
	fs, ds := httptest.NewServer(flaky), httptest.NewServer(dead)
	t.Cleanup(fs.Close)
	t.Cleanup(ds.Close)
	recorder := events.NewFakeRecorder(10)
	n := &Notifier{Log: logr.Discard(), Backoff: 5 * time.Millisecond, Events: recorder}
	n.SetConfig(&Config{MaxAttempts: 3, MaxAge: Duration{time.Hour}, Endpoints: []Endpoint{
		{Name: "flaky-t", Type: KindSlack, URL: fs.URL + "/s3cret"},
		{Name: "dead-t", Type: KindSlack, URL: ds.URL + "/s3cret"},
	}}, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ops", Name: "endpoints"}})
	start(t, n)
	// Counters are the process's: count from what they are now (go test -count).
	base := map[string]float64{}
	for _, k := range []string{"flaky-t/retried", "flaky-t/sent", "dead-t/retried", "dead-t/dropped"} {
		ep, result, _ := strings.Cut(k, "/")
		base[k] = metrics.NotificationCount(ep, TypeStageFailed, result)
	}
	ev := testEvent(TypeStageFailed)
	_ = n.Offer(context.Background(), []Event{ev})
	waitFor(t, "the flaky endpoint's delivery", func() bool { return len(flaky.got()) == 1 })
	waitFor(t, "the dead endpoint's drop", func() bool { return n.Settled("dead-t", ev.ID) })
	count := func(ep, result string) float64 {
		return metrics.NotificationCount(ep, TypeStageFailed, result) - base[ep+"/"+result]
	}
	if count("flaky-t", "retried") != 2 || count("flaky-t", "sent") != 1 || count("dead-t", "retried") != 2 || count("dead-t", "dropped") != 1 {
		t.Fatalf("metrics: flaky retried %v sent %v, dead retried %v dropped %v",
			count("flaky-t", "retried"), count("flaky-t", "sent"), count("dead-t", "retried"), count("dead-t", "dropped"))
	}
	// The drop is told on the Secret, with the endpoint's host and not its token.
	select {
	case e := <-recorder.Events:
		want := "Warning NotificationDropped notification dev.stagecoach.stage.failed of ClusterPromotion web to endpoint dead-t (" + ds.URL + ") dropped after 3 attempts: " + ds.URL + " answered 503 Service Unavailable"
		if e != want {
			t.Errorf("Event %q, want %q", e, want)
		}
	default:
		t.Error("no Event for the dropped notification")
	}
	// A dropped event is settled: offered again, it is not retried.
	_ = n.Offer(context.Background(), []Event{ev})
	if count("dead-t", "retried") != 2 {
		t.Fatal("a dropped event was tried again")
	}
}

func TestOldEventsAreNotSent(t *testing.T) {
	s := &sink{}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	n := &Notifier{Log: logr.Discard()}
	n.SetConfig(&Config{MaxAttempts: 3, MaxAge: Duration{time.Hour}, Endpoints: []Endpoint{{Name: "a", Type: KindSlack, URL: srv.URL}}}, nil)
	start(t, n)
	old, fresh := testEvent(TypeStageFailed), testEvent(TypeVersionCompleted)
	old.Time = time.Now().Add(-2 * time.Hour)
	_ = n.Offer(context.Background(), []Event{old, fresh})
	waitFor(t, "the fresh event", func() bool { return len(s.got()) == 1 })
	if !strings.Contains(s.got()[0], "version.completed") {
		t.Fatalf("sent %q", s.got())
	}
}

// A second notifier over the same record, as after a restart, does not send what the first
// delivered.
func TestRecordSurvivesRestart(t *testing.T) {
	s := &sink{}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	c := fake.NewClientBuilder().Build()
	rec := &Record{Client: c, Reader: c, Key: types.NamespacedName{Namespace: "stagecoach-system", Name: "stagecoach-notifications"}}
	cfg := &Config{MaxAttempts: 3, MaxAge: Duration{time.Hour}, Endpoints: []Endpoint{{Name: "a", Type: KindSlack, URL: srv.URL}}}
	evs := []Event{testEvent(TypeApprovalNeeded), testEvent(TypeStageBlocked)}

	first := &Notifier{Log: logr.Discard(), Record: rec}
	first.SetConfig(cfg, nil)
	start(t, first)
	_ = first.Offer(context.Background(), evs)
	waitFor(t, "the first deliveries", func() bool { return first.Settled("a", evs[0].ID) && first.Settled("a", evs[1].ID) })

	second := &Notifier{Log: logr.Discard(), Record: rec}
	second.SetConfig(cfg, nil)
	start(t, second)
	third := testEvent(TypeVersionCompleted)
	_ = second.Offer(context.Background(), append(evs, third))
	waitFor(t, "the new event", func() bool { return second.Settled("a", third.ID) })
	if len(s.got()) != 3 {
		t.Fatalf("%d deliveries, want 3: %q", len(s.got()), s.got())
	}
	cm := &corev1.ConfigMap{}
	if err := c.Get(context.Background(), rec.Key, cm); err != nil || strings.Count(cm.Data["settled"], "\n") != 3 {
		t.Fatalf("record %v %q", err, cm.Data)
	}
}

// A full queue drops a delivery for now without marking it pending, so that the next reconcile
// offers it again.
func TestQueueFull(t *testing.T) {
	n := &Notifier{Log: logr.Discard()}
	n.SetConfig(&Config{MaxAttempts: 3, MaxAge: Duration{time.Hour}, Endpoints: []Endpoint{{Name: "full-t", Type: KindSlack, URL: "http://127.0.0.1:9/"}}}, nil)
	var evs []Event
	for i := range QueueSize + 1 {
		ev := testEvent(TypeStageBlocked)
		ev.ID = fmt.Sprint(i)
		evs = append(evs, ev)
	}
	base := metrics.NotificationCount("full-t", TypeStageBlocked, "dropped")
	if err := n.Offer(context.Background(), evs); err != nil {
		t.Fatal(err)
	}
	if got := metrics.NotificationCount("full-t", TypeStageBlocked, "dropped") - base; got != 1 {
		t.Fatalf("dropped %v, want 1", got)
	}
	<-n.queue // a worker takes one
	_ = n.Offer(context.Background(), evs)
	if got := metrics.NotificationCount("full-t", TypeStageBlocked, "dropped") - base; got != 1 || len(n.queue) != QueueSize {
		t.Fatalf("dropped %v, queued %d: the event left out was not queued again", got, len(n.queue))
	}
}
