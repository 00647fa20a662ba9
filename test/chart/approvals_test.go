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

// TestApprovalPolicyValues: the policy that stamps approvers, and its binding, are rendered by
// default, and approvals.recordApprover: false leaves both out.
func TestApprovalPolicyValues(t *testing.T) {
	t.Parallel()
	for values, want := range map[string]int{"": 4, "false": 0} {
		v := map[string]any{}
		if values == "false" {
			v["approvals"] = map[string]any{"recordApprover": false}
		}
		out, err := chartrender.Render(t.Context(), chartDir, chartrender.Options{Release: "stagecoach", Namespace: "stagecoach-system", Values: v})
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Count(out, "\nkind: MutatingAdmissionPolicy\n") + strings.Count(out, "\nkind: MutatingAdmissionPolicyBinding\n")
		if got != want {
			t.Errorf("recordApprover %q: %d policy objects, want %d", values, got, want)
		}
	}
}
