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

// Package notify tells people outside the cluster when a rollout needs them: a stage waits for
// approval, is blocked, or failed; a version completed; a rollback started or finished. The
// events are derived from the status the reconcilers persisted (level-based), so a restarted
// controller derives again what was due; each carries an id made from the transition, and the
// ids delivered are recorded, so an event is sent at least once and, but for a crash between a
// delivery and its record, once.
package notify

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// ConfigKey is the key of the Secret that holds the endpoints.
const ConfigKey = "endpoints.yaml"

// Endpoint kinds.
const (
	KindCloudEvents = "CloudEvents"
	KindSlack       = "Slack"
	KindFlux        = "Flux"
)

// DefaultBlockedAfter is how long a stage may stay unpassed before stage.blocked is posted.
const DefaultBlockedAfter = time.Hour

// Config is the content of endpoints.yaml.
type Config struct {
	// BlockedAfter is how long the current stage may not pass before stage.blocked is posted.
	BlockedAfter Duration `json:"blockedAfter,omitempty"`
	// MaxAttempts bounds the deliveries of one event to one endpoint (default 8).
	MaxAttempts int `json:"maxAttempts,omitempty"`
	// MaxAge drops an event not delivered this long after it happened (default 1h); events
	// older than that are not sent at all, so that a first start does not post old news.
	MaxAge Duration `json:"maxAge,omitempty"`
	// Endpoints receive the events.
	Endpoints []Endpoint `json:"endpoints"`
}

// Endpoint is one receiver of events.
type Endpoint struct {
	// Name identifies the endpoint in metrics, logs and the delivery record: a DNS label.
	Name string `json:"name"`
	// Type is CloudEvents, Slack or Flux.
	Type string `json:"type"`
	// URL is where the events are posted. It may hold a token: it is never logged.
	URL string `json:"url"`
	// FluxObject, for a Flux endpoint, is the Flux object the events are posted as,
	// "Kind/namespace/name" (a Kustomization, say): Flux Alerts select their event sources
	// among Flux's own kinds only. Empty posts them as the rollout object itself.
	FluxObject string `json:"fluxObject,omitempty"`
	// Events are the short names of the events sent (approval.needed, ...); empty means all.
	Events []string `json:"events,omitempty"`
}

// Duration is a time.Duration written as "1h30m".
type Duration struct{ time.Duration }

// UnmarshalJSON reads "1h30m".
func (d *Duration) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration such as 30m or 1h", s)
	}
	d.Duration = v
	return nil
}

// MarshalJSON writes "1h30m".
func (d Duration) MarshalJSON() ([]byte, error) { return []byte(`"` + d.String() + `"`), nil }

// Parse reads endpoints.yaml, refusing unknown fields, kinds and events, and URLs that are not
// http or https. Its errors never show a URL beyond its scheme and host.
func Parse(data []byte) (*Config, error) {
	var c Config
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", ConfigKey, redactErr(err))
	}
	if c.BlockedAfter.Duration <= 0 {
		c.BlockedAfter.Duration = DefaultBlockedAfter
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 8
	}
	if c.MaxAge.Duration <= 0 {
		c.MaxAge.Duration = time.Hour
	}
	var errs []error
	seen := map[string]bool{}
	for i, e := range c.Endpoints {
		where := fmt.Sprintf("%s: endpoints[%d]", ConfigKey, i)
		if msgs := validation.IsDNS1123Label(e.Name); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("%s: name %q: %s", where, e.Name, strings.Join(msgs, "; ")))
		} else if seen[e.Name] {
			errs = append(errs, fmt.Errorf("%s: name %q is used twice", where, e.Name))
		}
		seen[e.Name] = true
		if !slices.Contains([]string{KindCloudEvents, KindSlack, KindFlux}, e.Type) {
			errs = append(errs, fmt.Errorf("%s (%s): type %q is not one of CloudEvents, Slack, Flux", where, e.Name, e.Type))
		}
		if u, err := url.Parse(e.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("%s (%s): url %s is not an http or https URL", where, e.Name, Redact(e.URL)))
		}
		if e.FluxObject != "" && (e.Type != KindFlux || len(strings.Split(e.FluxObject, "/")) != 3) {
			errs = append(errs, fmt.Errorf("%s (%s): fluxObject %q must be Kind/namespace/name, on a Flux endpoint", where, e.Name, e.FluxObject))
		}
		for _, ev := range e.Events {
			if !slices.Contains(ShortTypes(), ev) {
				errs = append(errs, fmt.Errorf("%s (%s): event %q is not one of %s", where, e.Name, ev, strings.Join(ShortTypes(), ", ")))
			}
		}
	}
	if len(c.Endpoints) == 0 {
		errs = append(errs, fmt.Errorf("%s lists no endpoints", ConfigKey))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &c, nil
}

// Wants says whether the endpoint takes events of type t (a full type).
func (e Endpoint) Wants(t string) bool {
	return len(e.Events) == 0 || slices.Contains(e.Events, strings.TrimPrefix(t, TypePrefix))
}

// Redact keeps of a URL its scheme and host, which is all logs, Events and errors may show: the
// path or query of a webhook often is its token.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "<unparsable URL>"
	}
	return u.Scheme + "://" + u.Host
}

// redactErr drops from a YAML error whatever value it quotes: it could be a URL with its token.
func redactErr(err error) error {
	msg := err.Error()
	if i := strings.Index(msg, "http"); i >= 0 {
		msg = msg[:i] + "<redacted>"
	}
	return errors.New(msg)
}
