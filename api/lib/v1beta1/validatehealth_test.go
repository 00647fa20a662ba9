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

package v1beta1

import "testing"

func TestValidateHealthTarget(t *testing.T) {
	tests := []struct {
		name                    string
		check                   ValidateHealth
		kind, object, checkName string
		metricOnly              bool
	}{
		{
			name:      "by kind",
			check:     ValidateHealth{Name: "deployment-health", Kind: "Deployment"},
			kind:      "Deployment",
			checkName: "deployment-health",
		},
		{
			name:      "by type and name",
			check:     ValidateHealth{Name: "validation-job-stage-staging", Type: "Job"},
			kind:      "Job",
			object:    "validation-job-stage-staging",
			checkName: "Job/validation-job-stage-staging",
		},
		{
			name:      "type and kind agreeing",
			check:     ValidateHealth{Name: "smoke", Type: "Job", Kind: "Job"},
			kind:      "Job",
			object:    "smoke",
			checkName: "Job/smoke",
		},
		{
			name:       "metric only",
			check:      ValidateHealth{Name: "error-rate", Script: "function evaluate() end"},
			checkName:  "error-rate",
			metricOnly: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.check.TargetKind(); got != tc.kind {
				t.Errorf("TargetKind() = %q, want %q", got, tc.kind)
			}
			if got := tc.check.TargetName(); got != tc.object {
				t.Errorf("TargetName() = %q, want %q", got, tc.object)
			}
			if got := tc.check.CheckName(); got != tc.checkName {
				t.Errorf("CheckName() = %q, want %q", got, tc.checkName)
			}
			if got := tc.check.IsMetricOnly(); got != tc.metricOnly {
				t.Errorf("IsMetricOnly() = %v, want %v", got, tc.metricOnly)
			}
		})
	}
}

func TestCELRuleSource(t *testing.T) {
	if got := (&CELRule{Name: "a", Rule: "true"}).Source(); got != "true" {
		t.Errorf("rule: Source() = %q", got)
	}
	if got := (&CELRule{Name: "b", Expression: "false"}).Source(); got != "false" {
		t.Errorf("expression: Source() = %q", got)
	}
}
