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

package targets

import (
	"slices"
	"strconv"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

func TestLatestAt(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	snap := func(override string, index, minute int, latest bool) *placementv1beta1.ResourceOverrideSnapshot {
		return &placementv1beta1.ResourceOverrideSnapshot{ObjectMeta: metav1.ObjectMeta{
			Name: override + "-" + strconv.Itoa(index), Namespace: "ns", CreationTimestamp: metav1.NewTime(t0.Add(time.Duration(minute) * time.Minute)),
			Labels: map[string]string{placementv1beta1.OverrideTrackingLabel: override, placementv1beta1.OverrideIndexLabel: strconv.Itoa(index),
				placementv1beta1.IsLatestSnapshotLabel: strconv.FormatBool(latest)}}}
	}
	snaps := []*placementv1beta1.ResourceOverrideSnapshot{
		snap("a", 0, 0, false), snap("a", 1, 10, false), snap("a", 2, 20, true), // edited twice
		snap("b", 0, 15, true), // created after minute 12
		snap("c", 7, 13, true), // the one latest at minute 12 is gone: the latest stands in
	}
	var got []string
	for _, s := range latestAt(snaps, t0.Add(12*time.Minute)) {
		got = append(got, s.Name)
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"a-1", "c-7"}) {
		t.Errorf("latest at minute 12: %v, want a-1 and c-7", got)
	}
	got = nil
	for _, s := range latestAt([]*placementv1beta1.ResourceOverrideSnapshot{snap("d", 8, 30, true)}, t0) {
		got = append(got, s.Name)
	}
	if !slices.Equal(got, []string{"d-8"}) {
		t.Errorf("beyond the history: %v, want the latest, d-8", got)
	}
}
