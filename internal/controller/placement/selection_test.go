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

package placement

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestInvalidSelectors: selectors that cannot work are reported, in words a person can act on.
func TestInvalidSelectors(t *testing.T) {
	c := startController(t)
	for _, tc := range []struct {
		name     string
		selector placementv1beta1.ResourceSelectorTerm
		message  string
	}{
		{"unknown-kind", placementv1beta1.ResourceSelectorTerm{Group: "example.com", Version: "v1", Kind: "Nope"}, "serves no kind Nope.example.com"},
		{"namespaced-kind", placementv1beta1.ResourceSelectorTerm{Version: "v1", Kind: "ConfigMap", Name: "x"}, "ConfigMap is namespaced"},
		{"fleet-kind", placementv1beta1.ResourceSelectorTerm{Group: "placement.kubernetes-fleet.io", Version: "v1beta1", Kind: "ClusterResourcePlacement"}, "fleet's own kinds"},
		{"reserved-namespace", placementv1beta1.ResourceSelectorTerm{Version: "v1", Kind: "Namespace", Name: "kube-system"}, "belongs to the hub cluster"},
	} {
		p := crp("invalid-"+tc.name, []placementv1beta1.ResourceSelectorTerm{tc.selector}, nil, placementv1beta1.ExternalRolloutStrategyType)
		create(t, c, p)
		cleanUp(t, c, p)
		waitCRP(t, c, p.Name, func(p *placementv1beta1.ClusterResourcePlacement) error {
			if err := conditionIs(p.Status.Conditions, "ClusterResourcePlacementScheduled", metav1.ConditionFalse, "InvalidResourceSelectors", 1); err != nil {
				return err
			}
			if msg := meta.FindStatusCondition(p.Status.Conditions, "ClusterResourcePlacementScheduled").Message; !strings.Contains(msg, tc.message) {
				return fmt.Errorf("message %q does not say %q", msg, tc.message)
			}
			return nil
		})
	}
	rp := &placementv1beta1.ResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "cluster-kind", Namespace: "default"},
		Spec: placementv1beta1.PlacementSpec{ResourceSelectors: []placementv1beta1.ResourceSelectorTerm{
			{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole", Name: "view"}}}}
	create(t, c, rp)
	cleanUp(t, c, rp)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got := &placementv1beta1.ResourcePlacement{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(rp), got); err != nil {
			return err
		}
		if err := conditionIs(got.Status.Conditions, "ResourcePlacementScheduled", metav1.ConditionFalse, "InvalidResourceSelectors", 1); err != nil {
			return err
		}
		if msg := meta.FindStatusCondition(got.Status.Conditions, "ResourcePlacementScheduled").Message; !strings.Contains(msg, "ClusterRole is cluster-scoped") {
			return fmt.Errorf("message %q", msg)
		}
		return nil
	})
}

// TestUnsupportedFields: a placement asking for what Stagecoach does not do is refused with a
// condition and an Event that name the field.
func TestUnsupportedFields(t *testing.T) {
	c := startController(t)
	mirror := placementv1beta1.ReportBackDestinationOriginalResource
	namespace(t, c, "unsupported", nil)
	for _, tc := range []struct {
		name    string
		edit    func(*placementv1beta1.ClusterResourcePlacement)
		reason  string
		message string
	}{
		{"namespace-accessible-by-label", func(p *placementv1beta1.ClusterResourcePlacement) {
			p.Spec.StatusReportingScope = placementv1beta1.NamespaceAccessible
			p.Spec.ResourceSelectors = []placementv1beta1.ResourceSelectorTerm{{Version: "v1", Kind: "Namespace",
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "blue"}}}}
		}, reasonInvalidSelectors, "statusReportingScope NamespaceAccessible needs the Namespace resourceSelector to name its namespace"},
		{"mirror", func(p *placementv1beta1.ClusterResourcePlacement) {
			p.Spec.Strategy.ReportBackStrategy = &placementv1beta1.ReportBackStrategy{Type: placementv1beta1.ReportBackStrategyTypeMirror, Destination: &mirror}
		}, reasonUnsupportedField, "strategy.reportBackStrategy type Mirror"},
	} {
		p := crp("unsupported-"+tc.name, selectNamespace("unsupported"), nil, placementv1beta1.ExternalRolloutStrategyType)
		tc.edit(p)
		create(t, c, p)
		cleanUp(t, c, p)
		waitCRP(t, c, p.Name, func(p *placementv1beta1.ClusterResourcePlacement) error {
			if err := conditionIs(p.Status.Conditions, "ClusterResourcePlacementScheduled", metav1.ConditionFalse, tc.reason, 1); err != nil {
				return err
			}
			if msg := meta.FindStatusCondition(p.Status.Conditions, "ClusterResourcePlacementScheduled").Message; !strings.Contains(msg, tc.message) {
				return fmt.Errorf("message %q does not say %q", msg, tc.message)
			}
			return nil
		})
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			var list eventsv1.EventList
			if err := c.List(ctx, &list, client.InNamespace("default")); err != nil {
				return err
			}
			for _, e := range list.Items {
				if e.Regarding.Name == p.Name && e.Type == corev1.EventTypeWarning && strings.Contains(e.Note, tc.message) {
					return nil
				}
			}
			return fmt.Errorf("no Warning event about %s says %q", p.Name, tc.message)
		})
	}
}

// TestNamespacesByLabel: a Namespace selector by labels carries the namespaces' contents, and
// edits inside them, or a new matching namespace, give a new snapshot at once (well before the
// resync).
func TestNamespacesByLabel(t *testing.T) {
	c := startController(t)
	const prompt = 20 * time.Second
	labelled := func(name string) {
		create(t, c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"team": "blue"}}})
		create(t, c, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: name}, Data: map[string]string{"key": "a"}})
	}
	labelled("blue-one")
	namespace(t, c, "red-one", map[string]string{"settings": "a"})
	p := crp("by-label", []placementv1beta1.ResourceSelectorTerm{{Version: "v1", Kind: "Namespace",
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "blue"}}}}, nil, placementv1beta1.ExternalRolloutStrategyType)
	create(t, c, p)
	cleanUp(t, c, p)
	expect := func(index int, want ...string) {
		t.Helper()
		testenv.Eventually(t, prompt, func(ctx context.Context) error {
			ss, err := crs(ctx, c, "by-label")
			if err != nil {
				return err
			}
			s := ss[fmt.Sprintf("by-label-%d-snapshot", index)]
			if s == nil || !isLatest(s) {
				return fmt.Errorf("no latest snapshot %d in %v", index, slices.Sorted(maps.Keys(ss)))
			}
			var got []string
			for _, id := range identifiersOfContents(s.Spec.SelectedResources) {
				got = append(got, id.Kind+"/"+id.Namespace+"/"+id.Name)
			}
			if !slices.Equal(got, want) {
				return fmt.Errorf("snapshot %d selects %v, want %v", index, got, want)
			}
			return nil
		})
	}
	expect(0, "Namespace//blue-one", "ConfigMap/blue-one/settings")
	editConfigMap(t, c, "blue-one", "settings", "b")
	expect(1, "Namespace//blue-one", "ConfigMap/blue-one/settings")
	labelled("blue-two")
	expect(2, "Namespace//blue-one", "Namespace//blue-two", "ConfigMap/blue-one/settings", "ConfigMap/blue-two/settings")
	// What is outside the selected namespaces stays out; an edit inside one cuts a new index.
	editConfigMap(t, c, "red-one", "settings", "b")
	editConfigMap(t, c, "blue-two", "settings", "b")
	expect(3, "Namespace//blue-one", "Namespace//blue-two", "ConfigMap/blue-one/settings", "ConfigMap/blue-two/settings")
}
