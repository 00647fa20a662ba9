//go:build e2e

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

package kubefleet

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// fixedPlacement places the Namespace ns on the named members with the apply strategy given.
func fixedPlacement(name, ns string, strategy *placementv1beta1.ApplyStrategy, clusters ...string) *placementv1beta1.ClusterResourcePlacement {
	crp := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: name}}
	crp.Spec.ResourceSelectors = []placementv1beta1.ResourceSelectorTerm{{Version: "v1", Kind: "Namespace", Name: ns}}
	crp.Spec.Policy = &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickFixedPlacementType, ClusterNames: clusters}
	crp.Spec.Strategy.ApplyStrategy = strategy
	return crp
}

// clusterStatusOf waits until check accepts the placement's status for cluster.
func clusterStatusOf(t *testing.T, crp, cluster string, check func(p *placementv1beta1.ClusterResourcePlacement, st *placementv1beta1.PerClusterPlacementStatus) error) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		p := &placementv1beta1.ClusterResourcePlacement{}
		if err := testenv.Client(t).Get(ctx, client.ObjectKey{Name: crp}, p); err != nil {
			return err
		}
		for i := range p.Status.PerClusterPlacementStatuses {
			if st := &p.Status.PerClusterPlacementStatuses[i]; st.ClusterName == cluster {
				return check(p, st)
			}
		}
		return fmt.Errorf("no status for %s", cluster)
	})
}

// TestReportDiff: a placement with apply type ReportDiff changes nothing on its members and
// reports, per cluster, how each differs from the hub: a ConfigMap with another value on
// member1, everything missing on member2.
func TestReportDiff(t *testing.T) {
	t.Parallel()
	const ns = "reportdiff"
	createAll(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: ns}, Data: map[string]string{"key": "hub"}})
	m1 := member(t, "member1")
	if _, err := m1.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m1.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	if _, err := m1.CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings"},
		Data: map[string]string{"key": "local"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	createAll(t, fixedPlacement("reportdiff", ns, &placementv1beta1.ApplyStrategy{Type: placementv1beta1.ApplyStrategyTypeReportDiff}, "member1", "member2"))

	diffOf := func(st *placementv1beta1.PerClusterPlacementStatus, kind string) []placementv1beta1.PatchDetail {
		for _, d := range st.DiffedPlacements {
			if d.Kind == kind {
				return d.ObservedDiffs
			}
		}
		return nil
	}
	reported := func(p *placementv1beta1.ClusterResourcePlacement, st *placementv1beta1.PerClusterPlacementStatus) error {
		if !meta.IsStatusConditionTrue(st.Conditions, string(placementv1beta1.PerClusterDiffReportedConditionType)) {
			return fmt.Errorf("%s: conditions %+v", st.ClusterName, st.Conditions)
		}
		if meta.FindStatusCondition(p.Status.Conditions, string(placementv1beta1.ClusterResourcePlacementAppliedConditionType)) != nil {
			return fmt.Errorf("the placement reports Applied")
		}
		return nil
	}
	clusterStatusOf(t, "reportdiff", "member1", func(p *placementv1beta1.ClusterResourcePlacement, st *placementv1beta1.PerClusterPlacementStatus) error {
		if err := reported(p, st); err != nil {
			return err
		}
		want := []placementv1beta1.PatchDetail{{Path: "/data/key", ValueInMember: `"local"`, ValueInHub: `"hub"`}}
		if got := diffOf(st, "ConfigMap"); fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Errorf("member1's ConfigMap differs by %+v, want %+v", got, want)
		}
		return nil
	})
	clusterStatusOf(t, "reportdiff", "member2", func(p *placementv1beta1.ClusterResourcePlacement, st *placementv1beta1.PerClusterPlacementStatus) error {
		if err := reported(p, st); err != nil {
			return err
		}
		for _, kind := range []string{"Namespace", "ConfigMap"} {
			if got := diffOf(st, kind); len(got) != 1 || got[0].Path != "/" || got[0].ValueInHub != "(the whole object)" {
				return fmt.Errorf("member2's %s differs by %+v, want the whole object", kind, got)
			}
		}
		return nil
	})
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		p := &placementv1beta1.ClusterResourcePlacement{}
		if err := testenv.Client(t).Get(ctx, client.ObjectKey{Name: "reportdiff"}, p); err != nil {
			return err
		}
		if c := meta.FindStatusCondition(p.Status.Conditions, string(placementv1beta1.ClusterResourcePlacementDiffReportedConditionType)); c == nil ||
			c.Status != metav1.ConditionTrue || c.Reason != placementv1beta1.DiffReportedStatusTrueReason {
			return fmt.Errorf("DiffReported %+v", c)
		}
		return nil
	})

	// Nothing changed on the members.
	cm, err := m1.CoreV1().ConfigMaps(ns).Get(t.Context(), "settings", metav1.GetOptions{})
	if err != nil || cm.Data["key"] != "local" || len(cm.Labels) > 0 || len(cm.Annotations) > 0 {
		t.Errorf("member1's ConfigMap was changed: %+v (%v)", cm, err)
	}
	if _, err := member(t, "member2").CoreV1().Namespaces().Get(t.Context(), ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("member2 has namespace %s (%v)", ns, err)
	}
}

// TestFullComparisonDrift: with comparisonOption FullComparison a key added on the member to a
// ConfigMap the placement applied, a field no manifest sets, is a drift. With whenToApply Always
// the placement lists it in driftedPlacements and keeps applying; with IfNotDrifted the
// ConfigMap is left as it is and the cluster's Applied condition names the field.
func TestFullComparisonDrift(t *testing.T) {
	t.Parallel()
	c := testenv.Client(t)
	const ns = "fullcomparison"
	createAll(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: ns}, Data: map[string]string{"key": "hub"}})
	crp := fixedPlacement("fullcomparison", ns, &placementv1beta1.ApplyStrategy{ComparisonOption: placementv1beta1.ComparisonOptionTypeFullComparison}, "member3")
	createAll(t, crp)
	clusterStatusOf(t, "fullcomparison", "member3", func(_ *placementv1beta1.ClusterResourcePlacement, st *placementv1beta1.PerClusterPlacementStatus) error {
		if !meta.IsStatusConditionTrue(st.Conditions, string(placementv1beta1.PerClusterAvailableConditionType)) {
			return fmt.Errorf("not available: %+v", st.Conditions)
		}
		return nil
	})

	m3 := member(t, "member3")
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cm, err := m3.CoreV1().ConfigMaps(ns).Get(ctx, "settings", metav1.GetOptions{})
		if err != nil {
			return err
		}
		cm.Data["extra"] = "local"
		_, err = m3.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{FieldManager: "someone"})
		return err
	})
	clusterStatusOf(t, "fullcomparison", "member3", func(_ *placementv1beta1.ClusterResourcePlacement, st *placementv1beta1.PerClusterPlacementStatus) error {
		want := []placementv1beta1.PatchDetail{{Path: "/data/extra", ValueInMember: `"local"`}}
		if d := st.DriftedPlacements; len(d) != 1 || d[0].Kind != "ConfigMap" || fmt.Sprint(d[0].ObservedDrifts) != fmt.Sprint(want) {
			return fmt.Errorf("driftedPlacements %+v, want the ConfigMap with %+v", d, want)
		}
		if !meta.IsStatusConditionTrue(st.Conditions, string(placementv1beta1.PerClusterAppliedConditionType)) {
			return fmt.Errorf("not applied: %+v", st.Conditions)
		}
		return nil
	})

	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(crp), crp); err != nil {
			return err
		}
		crp.Spec.Strategy.ApplyStrategy.WhenToApply = placementv1beta1.WhenToApplyTypeIfNotDrifted
		return c.Update(ctx, crp)
	})
	clusterStatusOf(t, "fullcomparison", "member3", func(_ *placementv1beta1.ClusterResourcePlacement, st *placementv1beta1.PerClusterPlacementStatus) error {
		c := meta.FindStatusCondition(st.Conditions, string(placementv1beta1.PerClusterAppliedConditionType))
		if c == nil || c.Status != metav1.ConditionFalse || !strings.Contains(c.Message, `- data.extra: "local"`) ||
			!strings.Contains(c.Message, "applyStrategy.whenToApply is IfNotDrifted") {
			return fmt.Errorf("Applied %+v does not report the drift of data.extra", c)
		}
		return nil
	})
	cm, err := m3.CoreV1().ConfigMaps(ns).Get(t.Context(), "settings", metav1.GetOptions{})
	if err != nil || cm.Data["extra"] != "local" || cm.Data["key"] != "hub" {
		t.Errorf("member3's ConfigMap: %+v (%v)", cm, err)
	}
}
