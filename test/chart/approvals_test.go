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
// default, and approvals.recordApprover: false, or a Kubernetes without the API, leaves both
// out; the controller trusts the stamps (--record-approvers) exactly when they are rendered.
func TestApprovalPolicyValues(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		values    map[string]any
		kubeMinor int
		want      int
	}{
		{name: "default", want: 4},
		{name: "recordApprover false", values: map[string]any{"approvals": map[string]any{"recordApprover": false}}},
		{name: "Kubernetes 1.35", kubeMinor: 35},
	} {
		out, err := chartrender.Render(t.Context(), chartDir, chartrender.Options{Release: "stagecoach", Namespace: "stagecoach-system",
			Values: tc.values, KubeMinor: tc.kubeMinor})
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Count(out, "\nkind: MutatingAdmissionPolicy\n") + strings.Count(out, "\nkind: MutatingAdmissionPolicyBinding\n")
		if got != tc.want {
			t.Errorf("%s: %d policy objects, want %d", tc.name, got, tc.want)
		}
		if flag := strings.Contains(out, "- --record-approvers\n"); flag != (tc.want > 0) {
			t.Errorf("%s: --record-approvers passed: %t, want %t", tc.name, flag, tc.want > 0)
		}
	}
}
