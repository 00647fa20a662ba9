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

import (
	"testing"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// TestProvisioned checks that only a status describing the current generation counts, and
// that every feature with content must be Provisioned.
func TestProvisioned(t *testing.T) {
	summary := func(gen, observed int64, statuses map[libv1beta1.FeatureID]libv1beta1.FeatureStatus) *ClusterSummary {
		cs := &ClusterSummary{}
		cs.Generation = gen
		cs.Status.ObservedGeneration = observed
		cs.Spec.ClusterProfileSpec.HelmCharts = []HelmChart{{ReleaseName: "web"}}
		cs.Spec.ClusterProfileSpec.PolicyRefs = []PolicyRef{{Name: "cm"}}
		for id, st := range statuses {
			msg := "invalid YAML"
			cs.Status.FeatureSummaries = append(cs.Status.FeatureSummaries, FeatureSummary{FeatureID: id, Status: st, FailureMessage: &msg})
		}
		return cs
	}
	both := map[libv1beta1.FeatureID]libv1beta1.FeatureStatus{
		libv1beta1.FeatureHelm: libv1beta1.FeatureStatusProvisioned, libv1beta1.FeatureResources: libv1beta1.FeatureStatusProvisioned}
	if !summary(2, 2, both).Provisioned() {
		t.Error("both features provisioned on the current generation: not Provisioned")
	}
	if summary(3, 2, both).Provisioned() {
		t.Error("a status of an earlier generation counts as Provisioned")
	}
	helmOnly := map[libv1beta1.FeatureID]libv1beta1.FeatureStatus{libv1beta1.FeatureHelm: libv1beta1.FeatureStatusProvisioned}
	if summary(2, 2, helmOnly).Provisioned() {
		t.Error("Provisioned without the Resources feature")
	}

	failed := map[libv1beta1.FeatureID]libv1beta1.FeatureStatus{
		libv1beta1.FeatureHelm: libv1beta1.FeatureStatusProvisioned, libv1beta1.FeatureResources: libv1beta1.FeatureStatusFailedNonRetriable}
	if got := summary(2, 2, failed).FailedForGood(); got != "Resources: invalid YAML" {
		t.Errorf("FailedForGood = %q", got)
	}
	if got := summary(3, 2, failed).FailedForGood(); got != "" {
		t.Errorf("FailedForGood on a stale status = %q, want none", got)
	}
}

// TestRetryPending: a summary with a retry it has not acted on, for its cluster, reports no
// failure, so that a stage does not count it failed before the retry reaches it.
func TestRetryPending(t *testing.T) {
	cs := &ClusterSummary{}
	cs.Spec.ClusterNamespace, cs.Spec.ClusterName = "prod", "eu"
	msg := "boom"
	cs.Status.FeatureSummaries = []FeatureSummary{{FeatureID: libv1beta1.FeatureHelm, Status: libv1beta1.FeatureStatusFailedNonRetriable, FailureMessage: &msg}}
	for _, tc := range []struct {
		annotation, recorded string
		pending              bool
	}{
		{"", "", false},
		{"t1", "", true},
		{"t1 prod/eu", "", true},
		{"t1 prod/us", "", false},
		{"t1", "t1", false},
	} {
		cs.Annotations = map[string]string{RetryAnnotation: tc.annotation}
		cs.Status.RetryToken = tc.recorded
		if got := cs.RetryPending(); got != tc.pending {
			t.Errorf("%q (recorded %q): RetryPending = %t, want %t", tc.annotation, tc.recorded, got, tc.pending)
		}
		if failed := cs.FailedForGood() != ""; failed == tc.pending {
			t.Errorf("%q (recorded %q): FailedForGood = %q", tc.annotation, tc.recorded, cs.FailedForGood())
		}
	}
}
