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

package testenv

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Events lists the Events about obj with the given reason, oldest first.
func Events(ctx context.Context, c client.Client, obj client.Object, reason string) ([]eventsv1.Event, error) {
	var list eventsv1.EventList
	if err := c.List(ctx, &list, client.InNamespace(eventNamespace(obj))); err != nil {
		return nil, err
	}
	var out []eventsv1.Event
	for _, e := range list.Items {
		if e.Regarding.UID == obj.GetUID() && e.Reason == reason {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b eventsv1.Event) int { return a.CreationTimestamp.Compare(b.CreationTimestamp.Time) })
	return out, nil
}

// ExpectEvent waits for an Event about obj with the given reason, and returns the first one.
func ExpectEvent(t testing.TB, timeout time.Duration, c client.Client, obj client.Object, reason string) eventsv1.Event {
	t.Helper()
	var found eventsv1.Event
	Eventually(t, timeout, func(ctx context.Context) error {
		events, err := Events(ctx, c, obj, reason)
		if err != nil {
			return err
		}
		if len(events) == 0 {
			return fmt.Errorf("no %s Event about %s", reason, obj.GetName())
		}
		found = events[0]
		return nil
	})
	return found
}

// eventNamespace is where the Events about obj are: its namespace, or default for a
// cluster-scoped object.
func eventNamespace(obj client.Object) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns
	}
	return "default"
}
