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

// Package notifysink is an HTTP receiver of Stagecoach's notifications on loopback, and a
// notification controller run for one test against the sandbox's management cluster.
package notifysink

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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"

	notifyctl "github.com/stagecoach-dev/stagecoach/internal/controller/notify"
	"github.com/stagecoach-dev/stagecoach/internal/secretcache"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// Post is one request the sink received.
type Post struct {
	Path string
	// CloudEvent is the body of a CloudEvents post, decoded.
	CloudEvent CloudEvent
	// Text is a Slack post's text.
	Text string
	Raw  string
}

// CloudEvent is what the sink reads of a CloudEvent.
type CloudEvent struct {
	SpecVersion string `json:"specversion"`
	ID          string `json:"id"`
	Type        string `json:"type"`
	Subject     string `json:"subject"`
	Data        struct {
		Object struct {
			Kind, Namespace, Name string
		} `json:"object"`
		Stage   string `json:"stage"`
		Version string `json:"version"`
		Message string `json:"message"`
	} `json:"data"`
}

// Sink records the posts it receives.
type Sink struct {
	URL string

	mu    sync.Mutex
	posts []Post
}

// New starts a sink for the test.
func New(t testing.TB) *Sink {
	s := &Sink{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		p := Post{Path: r.URL.Path, Raw: string(b)}
		if strings.HasPrefix(r.Header.Get("Content-Type"), "application/cloudevents+json") {
			_ = json.Unmarshal(b, &p.CloudEvent)
		} else {
			var text map[string]string
			_ = json.Unmarshal(b, &text)
			p.Text = text["text"]
		}
		s.mu.Lock()
		s.posts = append(s.posts, p)
		s.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Posts returns the posts received so far that keep says to keep.
func (s *Sink) Posts(keep func(Post) bool) []Post {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Post
	for _, p := range s.posts {
		if keep(p) {
			out = append(out, p)
		}
	}
	return out
}

// CloudEvents returns the CloudEvents of the object named subject ("Kind name").
func (s *Sink) CloudEvents(subject string) []CloudEvent {
	var out []CloudEvent
	for _, p := range s.Posts(func(p Post) bool { return p.CloudEvent.Subject == subject }) {
		out = append(out, p.CloudEvent)
	}
	return out
}

// Texts returns the Slack texts that contain fragment.
func (s *Sink) Texts(fragment string) []string {
	var out []string
	for _, p := range s.Posts(func(p Post) bool { return p.Text != "" && strings.Contains(p.Text, fragment) }) {
		out = append(out, p.Text)
	}
	return out
}

// WaitCloudEvent waits until the sink has a CloudEvent of type typ (its short name) about
// subject, at stage (any if empty), and returns it.
func (s *Sink) WaitCloudEvent(t testing.TB, subject, typ, stage string) CloudEvent {
	t.Helper()
	var got CloudEvent
	testenv.Eventually(t, Timeout, func(context.Context) error {
		var seen []string
		for _, e := range s.CloudEvents(subject) {
			if e.Type == "dev.stagecoach."+typ && (stage == "" || e.Data.Stage == stage) {
				got = e
				return nil
			}
			seen = append(seen, e.Type+"@"+e.Data.Stage)
		}
		return fmt.Errorf("no %s of %s at stage %q yet; have %v", typ, subject, stage, seen)
	})
	return got
}

// Start runs the notification controller for the test, configured by a Secret namespace/name
// holding endpointsYAML (not created when endpointsYAML is empty), with its record in
// namespace/record. The namespace is created if need be.
func Start(t testing.TB, namespace, name, endpointsYAML, record string) *notifyctl.Reconciler {
	t.Helper()
	c := testenv.Client(t)
	_ = c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}})
	if endpointsYAML != "" {
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, StringData: map[string]string{"endpoints.yaml": endpointsYAML}}
		if err := c.Create(t.Context(), secret); err != nil && !strings.Contains(err.Error(), "already exists") {
			t.Fatal(err)
		}
	}
	var r *notifyctl.Reconciler
	testenv.StartManager(t, func(mgr ctrl.Manager) error {
		sc, err := secretcache.New(context.Background(), mgr)
		if err != nil {
			return err
		}
		r = notifyctl.NewReconciler(notifyctl.Options{Client: sc, Config: types.NamespacedName{Namespace: namespace, Name: name},
			Record: types.NamespacedName{Namespace: namespace, Name: record}})
		return r.SetupWithManager(mgr)
	})
	return r
}

// Timeout bounds the waits for an event.
const Timeout = 2 * time.Minute
