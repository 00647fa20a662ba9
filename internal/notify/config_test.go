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
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       string // a fragment of the error; empty means valid
	}{
		{"valid", `
blockedAfter: 30m
endpoints:
- name: ops
  type: CloudEvents
  url: https://hooks.example/stagecoach?token=s3cret
  events: [approval.needed, stage.failed]
- name: chat
  type: Slack
  url: https://hooks.slack.example/services/T/B/s3cret
- name: flux
  type: Flux
  url: http://notification-controller.flux-system.svc/
  fluxObject: Kustomization/flux-system/apps`, ""},
		{"yaml error", "endpoints: [", "endpoints.yaml"},
		{"unknown field", "endpoints:\n- name: a\n  type: Slack\n  url: https://x\n  colour: red", "colour"},
		{"unknown type", "endpoints:\n- name: a\n  type: Teams\n  url: https://x", `type "Teams" is not one of CloudEvents, Slack, Flux`},
		{"bad url", "endpoints:\n- name: a\n  type: Slack\n  url: ftp://hooks.example/s3cret", "url ftp://hooks.example is not an http or https URL"},
		{"no host", "endpoints:\n- name: a\n  type: Slack\n  url: /s3cret", "is not an http or https URL"},
		{"unknown event", "endpoints:\n- name: a\n  type: Slack\n  url: https://x\n  events: [stage.started]", `event "stage.started" is not one of`},
		{"bad name", "endpoints:\n- name: Ops_1\n  type: Slack\n  url: https://x", `name "Ops_1"`},
		{"twice", "endpoints:\n- name: a\n  type: Slack\n  url: https://x\n- name: a\n  type: Slack\n  url: https://y", "used twice"},
		{"none", "endpoints: []", "lists no endpoints"},
		{"bad duration", "blockedAfter: soon\nendpoints: []", "not a duration"},
		{"fluxObject off Flux", "endpoints:\n- name: a\n  type: Slack\n  url: https://x\n  fluxObject: Kustomization/a/b", "fluxObject"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse([]byte(tc.yaml))
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if c.BlockedAfter.Duration != 30*time.Minute || c.MaxAttempts != 8 || c.MaxAge.Duration != time.Hour || len(c.Endpoints) != 3 {
					t.Fatalf("config: %+v", c)
				}
				if !c.Endpoints[0].Wants(TypeStageFailed) || c.Endpoints[0].Wants(TypeVersionCompleted) || !c.Endpoints[1].Wants(TypeVersionCompleted) {
					t.Fatal("event filters not applied")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Fatalf("the error shows the URL's secret: %v", err)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"https://hooks.slack.example/services/T/B/s3cret": "https://hooks.slack.example",
		"http://user:pw@sink:8080/x?token=s3cret":         "http://sink:8080",
		"::::": "<unparsable URL>",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}
