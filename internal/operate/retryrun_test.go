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

package operate

import (
	"maps"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

// updateRun is a run of placement web (or of placement) created at minute, that rolled out index
// and succeeded, failed at its second stage, or runs.
func updateRun(name, placement string, minute int, index string, succeeded *bool, marks map[string]string) *placementv1beta1.ClusterStagedUpdateRun {
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	r := &placementv1beta1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: marks,
		CreationTimestamp: metav1.NewTime(t0.Add(time.Duration(minute) * time.Minute))}}
	r.Spec.PlacementName, r.Spec.StagedUpdateStrategyName, r.Spec.State = placement, "s", placementv1beta1.StateRun
	r.Status.ResourceSnapshotIndexUsed = index
	cond := func(typ string, s metav1.ConditionStatus) metav1.Condition {
		return metav1.Condition{Type: typ, Status: s, Reason: "r"}
	}
	r.Status.Conditions = []metav1.Condition{cond(string(placementv1beta1.StagedUpdateRunConditionInitialized), metav1.ConditionTrue)}
	if succeeded == nil {
		r.Status.Conditions = append(r.Status.Conditions, cond(string(placementv1beta1.StagedUpdateRunConditionProgressing), metav1.ConditionTrue))
		return r
	}
	s := metav1.ConditionTrue
	if !*succeeded {
		s = metav1.ConditionFalse
	}
	r.Status.Conditions = append(r.Status.Conditions, cond(string(placementv1beta1.StagedUpdateRunConditionSucceeded), s))
	r.Status.StagesStatus = []placementv1beta1.StageUpdatingStatus{
		{StageName: "dev", Conditions: []metav1.Condition{cond(string(placementv1beta1.StageUpdatingConditionSucceeded), metav1.ConditionTrue)}},
		{StageName: "prod", Conditions: []metav1.Condition{cond(string(placementv1beta1.StageUpdatingConditionSucceeded), s)}},
	}
	return r
}

// RetryRun refuses to put a placement back on an older snapshot than a later run rolled out,
// and keeps a rollback run's marker.
func TestRetryRun(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		name      string
		runs      []client.Object
		retry     string
		wantErr   string
		wantMarks map[string]string
	}{
		{name: "the latest run", runs: []client.Object{updateRun("old", "web", -60, "0", &yes, nil), updateRun("a", "web", 0, "1", &no, nil),
			updateRun("other", "api", 5, "4", &yes, nil)}, retry: "a",
			wantMarks: map[string]string{placementv1beta1.RetryOfAnnotation: "a"}},
		{name: "a later run succeeded", runs: []client.Object{updateRun("a", "web", 0, "1", &no, nil), updateRun("b", "web", 1, "2", &yes, nil)}, retry: "a",
			wantErr: "ClusterStagedUpdateRun b was created after a on ClusterResourcePlacement web (resource snapshot index 2): retrying a would put the placement back on resource snapshot index 1; create a new run instead"},
		{name: "a later run failed", runs: []client.Object{updateRun("a", "web", 0, "1", &no, nil), updateRun("b", "web", 2, "2", &no, nil),
			updateRun("c", "web", 1, "2", &yes, nil)}, retry: "a",
			wantErr: "ClusterStagedUpdateRun b was created after a"},
		{name: "a run created the same second", runs: []client.Object{updateRun("a", "web", 0, "1", &no, nil), updateRun("b", "web", 0, "", nil, nil)}, retry: "a",
			wantErr: "ClusterStagedUpdateRun b was created after a on ClusterResourcePlacement web (resource snapshot index latest)"},
		{name: "retried already", runs: []client.Object{updateRun("a", "web", 0, "1", &no, nil),
			updateRun("a-retry-x", "web", 1, "1", &yes, map[string]string{placementv1beta1.RetryOfAnnotation: "a"})}, retry: "a",
			wantErr: "ClusterStagedUpdateRun a was retried already, by a-retry-x: retry that one if it failed"},
		{name: "an earlier run under way", runs: []client.Object{updateRun("x", "web", -1, "0", nil, nil), updateRun("a", "web", 0, "1", &no, nil)}, retry: "a",
			wantErr: "ClusterStagedUpdateRun x is under way on ClusterResourcePlacement web"},
		{name: "a failed rollback run", runs: []client.Object{updateRun("a", "web", 0, "2", &no, nil),
			updateRun("a-rollback", "web", 1, "1", &no, map[string]string{placementv1beta1.RollbackOfAnnotation: "a"})}, retry: "a-rollback",
			wantMarks: map[string]string{placementv1beta1.RetryOfAnnotation: "a-rollback", placementv1beta1.RollbackOfAnnotation: "a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(tc.runs...).Build()
			msg, run, err := RetryRun(t.Context(), c, "", tc.retry)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(msg, "created ClusterStagedUpdateRun "+tc.retry+"-retry-") || !maps.Equal(run.GetAnnotations(), tc.wantMarks) {
				t.Errorf("RetryRun = %q, annotations %v; want %v", msg, run.GetAnnotations(), tc.wantMarks)
			}
		})
	}
}
