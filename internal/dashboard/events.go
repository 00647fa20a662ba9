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

package dashboard

import (
	"cmp"
	"context"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
)

// event is one entry of a rollout's timeline.
type event struct {
	Time    time.Time
	Warning bool
	Reason  string
	Message string
	Object  string
	Count   int32
}

// objectRef names an object whose Events a timeline shows.
type objectRef struct{ Kind, Namespace, Name string }

// maxEvents bounds a timeline: the most recent are what a viewer looks for.
const maxEvents = 100

// events is the timeline of the objects' Events, the most recent first.
func (s *Server) events(ctx context.Context, refs []objectRef) ([]event, error) {
	var list eventsv1.EventList
	if err := s.read(ctx).List(ctx, &list); err != nil {
		return nil, shown(err)
	}
	var out []event
	for i := range list.Items {
		e := &list.Items[i]
		o := e.Regarding
		if !slices.Contains(refs, objectRef{Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}) {
			continue
		}
		ev := event{Time: e.EventTime.Time, Warning: e.Type == corev1.EventTypeWarning, Reason: e.Reason, Message: e.Note,
			Object: o.Kind + " " + o.Name, Count: max(e.DeprecatedCount, 1)}
		if e.Series != nil {
			ev.Time, ev.Count = e.Series.LastObservedTime.Time, e.Series.Count
		}
		if ev.Time.IsZero() {
			ev.Time = cmp.Or(e.DeprecatedLastTimestamp.Time, e.CreationTimestamp.Time)
		}
		out = append(out, ev)
	}
	slices.SortFunc(out, func(a, b event) int { return cmp.Or(b.Time.Compare(a.Time), cmp.Compare(a.Reason, b.Reason)) })
	return out[:min(len(out), maxEvents)], nil
}
