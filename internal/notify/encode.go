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
	"encoding/json"
	"fmt"
	"strings"

	eventv1 "github.com/fluxcd/pkg/apis/event/v1beta1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Content types of the bodies posted.
const (
	ContentTypeCloudEvents = "application/cloudevents+json"
	ContentTypeJSON        = "application/json"
)

// cloudEvent is a CloudEvents 1.0 event in structured mode: the attributes and the data in one
// JSON document.
type cloudEvent struct {
	SpecVersion     string `json:"specversion"`
	ID              string `json:"id"`
	Source          string `json:"source"`
	Type            string `json:"type"`
	Subject         string `json:"subject"`
	Time            string `json:"time"`
	DataContentType string `json:"datacontenttype"`
	Data            Event  `json:"data"`
}

// Source is the CloudEvents source of every event: the controller.
const Source = "stagecoach.dev/controller"

// Body returns what endpoint e receives for ev, and its content type.
func Body(e Endpoint, ev Event) ([]byte, string, error) {
	switch e.Type {
	case KindCloudEvents:
		b, err := json.Marshal(cloudEvent{SpecVersion: "1.0", ID: ev.ID, Source: Source, Type: ev.Type, Subject: ev.Subject(),
			Time: ev.Time.UTC().Format("2006-01-02T15:04:05Z"), DataContentType: ContentTypeJSON, Data: ev})
		return b, ContentTypeCloudEvents, err
	case KindSlack:
		b, err := json.Marshal(map[string]string{"text": Text(ev)})
		return b, ContentTypeJSON, err
	case KindFlux:
		b, err := json.Marshal(fluxEvent(e, ev))
		return b, ContentTypeJSON, err
	}
	return nil, "", fmt.Errorf("endpoint type %q is not one of CloudEvents, Slack, Flux", e.Type)
}

// Text is the event in one line, as a chat shows it.
func Text(ev Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[stagecoach] %s: %s", strings.TrimPrefix(ev.Type, TypePrefix), ev.Subject())
	if ev.Stage != "" {
		fmt.Fprintf(&b, ", stage %s", ev.Stage)
	}
	if ev.Version != "" {
		fmt.Fprintf(&b, ", version %s", shortString(ev.Version))
	}
	fmt.Fprintf(&b, ": %s", ev.Message)
	return b.String()
}

// fluxEvent is ev as a Flux controller posts an event to notification-controller's event API.
// Its metadata keys carry the event group's prefix: notification-controller keeps no other.
func fluxEvent(e Endpoint, ev Event) eventv1.Event {
	ref := corev1.ObjectReference{APIVersion: ev.Object.APIVersion, Kind: ev.Object.Kind, Namespace: ev.Object.Namespace,
		Name: ev.Object.Name, UID: ev.Object.UID}
	if parts := strings.Split(e.FluxObject, "/"); len(parts) == 3 {
		ref = corev1.ObjectReference{Kind: parts[0], Namespace: parts[1], Name: parts[2]}
	}
	meta := map[string]string{"id": ev.ID, "type": ev.Type, "object": ev.Subject(), "stage": ev.Stage, "version": ev.Version}
	prefixed := map[string]string{}
	for k, v := range meta {
		if v != "" {
			prefixed[eventv1.Group+"/"+k] = v
		}
	}
	return eventv1.Event{InvolvedObject: ref, Severity: ev.Severity, Timestamp: metav1.NewTime(ev.Time), Message: Text(ev),
		Reason: reason(ev.Type), Metadata: prefixed, ReportingController: "stagecoach"}
}

// reason is the type as a Kubernetes reason: "stage.failed" becomes "StageFailed".
func reason(typ string) string {
	var b strings.Builder
	for _, part := range strings.Split(strings.TrimPrefix(typ, TypePrefix), ".") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

func shortString(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}
