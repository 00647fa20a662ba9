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
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"

	"github.com/stagecoach-dev/stagecoach/internal/metrics"
)

// QueueSize bounds the deliveries waiting for a worker. An event that finds the queue full is
// counted as dropped and offered again at the object's next reconcile.
const QueueSize = 1000

// Notifier delivers events to the configured endpoints in the background: Offer never waits on
// a network call, so a rollout is never slowed by a slow or dead endpoint.
type Notifier struct {
	// Record persists the settled events; nil keeps them in memory only.
	Record *Record
	// Events records Kubernetes Events on the configuration Secret: a refused or dropped
	// delivery. Nil records none.
	Events events.EventRecorder
	// Log logs deliveries; URLs only as Redact shows them.
	Log logr.Logger
	// Client posts the events; nil means a client with a 10 s timeout.
	Client *http.Client
	// Backoff is the wait before the first retry, doubled at each one up to 5 min; zero means 1 s.
	Backoff time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	mu      sync.Mutex
	config  *Config
	secret  *corev1.Secret
	loaded  bool
	settled map[string]time.Time // endpoint/id: delivered, or dropped
	pending map[string]bool      // endpoint/id: queued or waiting to retry
	queue   chan job
	once    sync.Once
}

// job is one event for one endpoint.
type job struct {
	endpoint Endpoint
	event    Event
	attempts int
}

func (j job) key() string { return j.endpoint.Name + "/" + j.event.ID }

func (n *Notifier) init() {
	n.once.Do(func() {
		n.queue = make(chan job, QueueSize)
		n.pending = map[string]bool{}
		n.settled = map[string]time.Time{}
		if n.Client == nil {
			n.Client = &http.Client{Timeout: 10 * time.Second}
		}
		if n.Backoff <= 0 {
			n.Backoff = time.Second
		}
		if n.Now == nil {
			n.Now = time.Now
		}
	})
}

// SetConfig sets the endpoints; nil sends nothing. secret is the Secret they came from, which
// Kubernetes Events about deliveries are recorded on.
func (n *Notifier) SetConfig(c *Config, secret *corev1.Secret) {
	n.init()
	n.mu.Lock()
	defer n.mu.Unlock()
	n.config, n.secret = c, secret
}

// Config returns the endpoints in use, or nil.
func (n *Notifier) Config() *Config {
	n.init()
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.config
}

// Offer queues the events not settled yet for every endpoint that wants them. The first call
// loads the record; its error is the only one returned.
func (n *Notifier) Offer(ctx context.Context, evs []Event) error {
	n.init()
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.config == nil || len(evs) == 0 {
		return nil
	}
	if !n.loaded && n.Record != nil {
		settled, err := n.Record.Load(ctx)
		if err != nil {
			return err
		}
		n.settled = settled
	}
	n.loaded = true
	now := n.Now()
	for _, ev := range evs {
		if now.Sub(ev.Time) > n.config.MaxAge.Duration {
			continue // old news: not sent, as if dropped long ago
		}
		for _, ep := range n.config.Endpoints {
			j := job{endpoint: ep, event: ev}
			if !ep.Wants(ev.Type) || n.pending[j.key()] {
				continue
			}
			if _, ok := n.settled[j.key()]; ok {
				continue
			}
			select {
			case n.queue <- j:
				n.pending[j.key()] = true
			default:
				metrics.ObserveNotification(ep.Name, ev.Type, "dropped")
				n.Log.Info("notification queue full: event left for the next reconcile", "endpoint", ep.Name, "type", ev.Type, "id", ev.ID)
			}
		}
	}
	return nil
}

// Start delivers queued events until ctx ends, with two workers.
func (n *Notifier) Start(ctx context.Context) error {
	n.init()
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case j := <-n.queue:
					n.deliver(ctx, j)
				}
			}
		})
	}
	wg.Wait()
	return nil
}

// deliver posts j once; on failure it retries after a back-off, or drops j once it has had its
// attempts or is older than MaxAge.
func (n *Notifier) deliver(ctx context.Context, j job) {
	err := n.post(ctx, j)
	j.attempts++
	log := n.Log.WithValues("endpoint", j.endpoint.Name, "url", Redact(j.endpoint.URL), "type", j.event.Type, "id", j.event.ID, "object", j.event.Subject())
	if err == nil {
		metrics.ObserveNotification(j.endpoint.Name, j.event.Type, "sent")
		log.V(1).Info("notification sent")
		n.settle(ctx, j)
		return
	}
	cfg := n.Config()
	if cfg == nil || j.attempts >= cfg.MaxAttempts || n.Now().Sub(j.event.Time) > cfg.MaxAge.Duration {
		metrics.ObserveNotification(j.endpoint.Name, j.event.Type, "dropped")
		msg := fmt.Sprintf("notification %s of %s to endpoint %s (%s) dropped after %d attempts: %v",
			j.event.Type, j.event.Subject(), j.endpoint.Name, Redact(j.endpoint.URL), j.attempts, err)
		log.Info("notification dropped", "attempts", j.attempts, "reason", err.Error())
		n.event(corev1.EventTypeWarning, "NotificationDropped", msg)
		n.settle(ctx, j)
		return
	}
	metrics.ObserveNotification(j.endpoint.Name, j.event.Type, "retried")
	wait := min(n.Backoff<<(j.attempts-1), 5*time.Minute)
	log.Info("notification not delivered: retrying", "attempts", j.attempts, "after", wait.String(), "reason", err.Error())
	time.AfterFunc(wait, func() {
		select {
		case n.queue <- j:
		case <-ctx.Done():
		}
	})
}

// post sends one event; anything but a 2xx answer is an error. The error names the endpoint by
// its scheme and host only.
func (n *Notifier) post(ctx context.Context, j job) error {
	body, ctype, err := Body(j.endpoint, j.event)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, j.endpoint.URL, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("the request to %s could not be made", Redact(j.endpoint.URL))
	}
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("User-Agent", "stagecoach-notify")
	resp, err := n.Client.Do(req)
	if err != nil {
		return fmt.Errorf("posting to %s failed: %s", Redact(j.endpoint.URL), redactErr(unwrapURLError(err)))
	}
	defer func() { _ = resp.Body.Close() }()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s answered %s", Redact(j.endpoint.URL), resp.Status)
	}
	return nil
}

// settle marks j delivered or dropped, in memory and in the record.
func (n *Notifier) settle(ctx context.Context, j job) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.pending, j.key())
	n.settled[j.key()] = n.Now()
	if n.Record == nil {
		return
	}
	if err := n.Record.Save(ctx, n.settled); err != nil {
		// The event may be sent again after a restart: at least once, as promised.
		n.Log.Error(err, "the notification record could not be written")
	}
}

// Settled says whether the event id was settled for endpoint.
func (n *Notifier) Settled(endpoint, id string) bool {
	n.init()
	n.mu.Lock()
	defer n.mu.Unlock()
	_, ok := n.settled[endpoint+"/"+id]
	return ok
}

func (n *Notifier) event(typ, reason, msg string) {
	n.mu.Lock()
	secret := n.secret
	n.mu.Unlock()
	if n.Events != nil && secret != nil {
		n.Events.Eventf(secret, nil, typ, reason, "Notify", "%s", msg)
	}
}

// unwrapURLError drops the URL an *url.Error quotes in full.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
