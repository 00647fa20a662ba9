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

package placement

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// failedBinding is a binding whose resources failed to apply.
func failedBinding(cluster string) placementv1beta1.BindingObj {
	b := testBinding(cluster, 1, placementv1beta1.BindingRolloutStartedCondition)
	meta.SetStatusCondition(&b.BindingStatus().Conditions, metav1.Condition{Type: placementv1beta1.BindingAppliedCondition,
		Status: metav1.ConditionFalse, Reason: "Test", Message: "conflict", ObservedGeneration: 2})
	return b
}

// TestBoundedPlacementStatuses: within the limit, every cluster is listed in name order and
// nothing is counted; past it, the failed clusters come first, then those still rolling out,
// and every cluster is counted, the conditions still describing them all.
func TestBoundedPlacementStatuses(t *testing.T) {
	const started, applied, available = placementv1beta1.BindingRolloutStartedCondition, placementv1beta1.BindingAppliedCondition, placementv1beta1.BindingAvailableCondition
	done := []string{started, applied, available}
	bindings := []placementv1beta1.BindingObj{testBinding("m1", 1, done...), testBinding("m2", 1, started), testBinding("m3", 1, done...),
		failedBinding("m4"), testBinding("m5", 1, started, applied)}
	for _, tc := range []struct {
		name   string
		max    int
		listed []string
		counts *placementv1beta1.PlacementClusterCounts
	}{
		{"every cluster listed", 5, []string{"m1", "m2", "m3", "m4", "m5"}, nil},
		{"failed and pending first", 3, []string{"m4", "m2", "m5"}, &placementv1beta1.PlacementClusterCounts{Total: 5, Available: 2, Failed: 1, Pending: 2}},
		{"failed first", 1, []string{"m4"}, &placementv1beta1.PlacementClusterCounts{Total: 5, Available: 2, Failed: 1, Pending: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "web", Generation: 3}}
			ps := &pass{p: p, spec: withDefaults(&placementv1beta1.PlacementSpec{}), selection: &selection{}, index: 1, bindings: bindings}
			r := &kindReconciler{Reconciler: &Reconciler{now: time.Now, maxListed: tc.max}, family: placementv1beta1.ClusterFamily}
			r.setStatus(ps)
			var listed []string
			for _, st := range p.Status.PerClusterPlacementStatuses {
				listed = append(listed, st.ClusterName)
			}
			if !slices.Equal(listed, tc.listed) {
				t.Errorf("listed %v, want %v", listed, tc.listed)
			}
			switch got := p.Status.ClusterCounts; {
			case tc.counts == nil && got != nil:
				t.Errorf("counts %+v, want none", *got)
			case tc.counts != nil && (got == nil || *got != *tc.counts):
				t.Errorf("counts %+v, want %+v", got, *tc.counts)
			}
			c := meta.FindStatusCondition(p.Status.Conditions, "ClusterResourcePlacementApplied")
			if c == nil || c.Status != metav1.ConditionFalse || !strings.Contains(c.Message, "m4") {
				t.Fatalf("Applied %+v, want False naming m4", c)
			}
			note := "kubectl get clusterresourcebindings -l kubernetes-fleet.io/parent-CRP=web"
			if strings.Contains(c.Message, note) != (tc.counts != nil) {
				t.Errorf("Applied says %q", c.Message)
			}
		})
	}
}

// TestBoundedStatusesReportDiff: with apply type ReportDiff a cluster whose differences could
// not be reported is failed and listed first; one whose differences are reported is done.
func TestBoundedStatusesReportDiff(t *testing.T) {
	const started, diff = placementv1beta1.BindingRolloutStartedCondition, placementv1beta1.BindingDiffReportedCondition
	notReported := testBinding("m3", 1, started)
	meta.SetStatusCondition(&notReported.BindingStatus().Conditions, metav1.Condition{Type: diff,
		Status: metav1.ConditionFalse, Reason: "Test", ObservedGeneration: 2})
	bindings := []placementv1beta1.BindingObj{testBinding("m1", 1, started, diff), testBinding("m2", 1, started), notReported}
	p := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "web", Generation: 3}}
	spec := &placementv1beta1.PlacementSpec{Strategy: placementv1beta1.RolloutStrategy{
		ApplyStrategy: &placementv1beta1.ApplyStrategy{Type: placementv1beta1.ApplyStrategyTypeReportDiff}}}
	ps := &pass{p: p, spec: withDefaults(spec), selection: &selection{}, index: 1, bindings: bindings}
	r := &kindReconciler{Reconciler: &Reconciler{now: time.Now, maxListed: 1}, family: placementv1beta1.ClusterFamily}
	r.setStatus(ps)
	if l := p.Status.PerClusterPlacementStatuses; len(l) != 1 || l[0].ClusterName != "m3" {
		t.Errorf("listed %+v, want m3 alone", l)
	}
	if got, want := p.Status.ClusterCounts, (placementv1beta1.PlacementClusterCounts{Total: 3, Available: 1, Failed: 1, Pending: 1}); got == nil || *got != want {
		t.Errorf("counts %+v, want %+v", got, want)
	}
}

// TestStatusSizeAt20000Clusters measures the status of a placement on 20,000 clusters (names of
// 20 characters): every one available, and a third each available, failing and not applied yet.
func TestStatusSizeAt20000Clusters(t *testing.T) {
	done := []string{placementv1beta1.BindingRolloutStartedCondition, placementv1beta1.BindingAppliedCondition, placementv1beta1.BindingAvailableCondition}
	for _, kinds := range []int{1, 3} {
		var bindings []placementv1beta1.BindingObj
		for i := range 20000 {
			name := fmt.Sprintf("member-cluster-%05d", i)
			switch i % kinds {
			case 0:
				bindings = append(bindings, testBinding(name, 1, done...))
			case 1:
				bindings = append(bindings, failedBinding(name))
			default:
				bindings = append(bindings, testBinding(name, 1, placementv1beta1.BindingRolloutStartedCondition))
			}
		}
		p := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "fleet-wide-placement", Generation: 3}}
		ps := &pass{p: p, spec: withDefaults(&placementv1beta1.PlacementSpec{}), selection: &selection{}, index: 1, bindings: bindings}
		r := &kindReconciler{Reconciler: &Reconciler{now: time.Now}, family: placementv1beta1.ClusterFamily}
		r.setStatus(ps)
		r.setStatus(ps) // a second pass, over the listed clusters' previous status
		data, err := json.Marshal(p.Status)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d kinds of cluster: status of %d bytes, %d clusters listed", kinds, len(data), len(p.Status.PerClusterPlacementStatuses))
		if len(data) > 600_000 {
			t.Errorf("the status is %d bytes", len(data))
		}
	}
}

// TestPolicyDecisionsAt20000Clusters: the policy snapshot of a placement that picks 20,000
// clusters lists few of them, in a status far below the API server's request limit; one that
// picks fewer than the bound lists them all.
func TestPolicyDecisionsAt20000Clusters(t *testing.T) {
	var picked, unpicked []placementv1beta1.ClusterDecision
	for i := range 20000 {
		picked = append(picked, placementv1beta1.ClusterDecision{ClusterName: fmt.Sprintf("member-cluster-%05d", i), Selected: true,
			Reason: "picked by scheduling policy"})
	}
	for i := range 50 {
		unpicked = append(unpicked, placementv1beta1.ClusterDecision{ClusterName: fmt.Sprintf("other-%d", i), Reason: "does not match"})
	}
	decisions, cut := policyDecisions(picked, unpicked, DefaultMaxListedClusters)
	data, err := json.Marshal(placementv1beta1.SchedulingPolicySnapshotStatus{ClusterDecisions: decisions})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("policy snapshot status of %d bytes, %d decisions", len(data), len(decisions))
	if !cut || len(decisions) != DefaultMaxListedClusters+maxUnpickedDecisions || len(data) > 200_000 {
		t.Errorf("%d decisions (cut %v), %d bytes", len(decisions), cut, len(data))
	}
	if d, cut := policyDecisions(picked[:3], unpicked[:2], DefaultMaxListedClusters); cut || len(d) != 5 {
		t.Errorf("3 picked, 2 not: %d decisions, cut %v", len(d), cut)
	}
}

// TestEventsNameFewClusters: an Event about thousands of clusters names a few and counts the
// rest, within the 1 KB the API server allows an Event's note.
func TestEventsNameFewClusters(t *testing.T) {
	names := make([]string, 5000)
	for i := range names {
		names[i] = fmt.Sprintf("member-cluster-%05d", i)
	}
	note := "Rolling resource snapshot index 12 out to " + listClusters(names)
	if len(note) > 1024 || !strings.HasSuffix(note, fmt.Sprintf("and %d more", 5000-maxListed)) {
		t.Fatalf("note of %d bytes: %q", len(note), note)
	}
}
