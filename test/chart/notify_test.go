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

package chart_test

import (
	"strings"
	"testing"

	"github.com/stagecoach-dev/stagecoach/internal/testing/chartrender"
)

// TestNotificationsValue: notifications.secretName passes --notify-config with the release's
// namespace; without it the controller gets no such flag.
func TestNotificationsValue(t *testing.T) {
	t.Parallel()
	render := func(values map[string]any) string {
		out, err := chartrender.Render(t.Context(), chartDir, chartrender.Options{Release: "stagecoach", Namespace: "ops", Values: values})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if out := render(map[string]any{"notifications": map[string]any{"secretName": "stagecoach-notify"}}); !strings.Contains(out, "- --notify-config=ops/stagecoach-notify\n") {
		t.Error("notifications.secretName does not set --notify-config=ops/stagecoach-notify")
	}
	if out := render(nil); strings.Contains(out, "--notify-config") {
		t.Error("--notify-config is set without notifications.secretName")
	}
}
