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
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestPlacementReadsOnlyWhatTheChartGrants: the controller runs as the chart's ServiceAccount,
// which may read only the kinds of the chart's placement.selectableResources. A selector of
// another kind is refused in words that say how to grant it; a selected Namespace carries the
// kinds the controller may read and leaves the others behind.
func TestPlacementReadsOnlyWhatTheChartGrants(t *testing.T) {
	c := kclient(t)
	apply(t, "004-clusterresourceplacement-example-placement.yaml", func(u *unstructured.Unstructured) {
		u.SetName("unreadable-kind")
		_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"group": "", "version": "v1", "kind": "PersistentVolume", "name": "data"}}, "spec", "resourceSelectors")
	})
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		p := &placementv1beta1.ClusterResourcePlacement{}
		if err := c.Get(ctx, client.ObjectKey{Name: "unreadable-kind"}, p); err != nil {
			return err
		}
		cond := meta.FindStatusCondition(p.Status.Conditions, string(placementv1beta1.ClusterResourcePlacementScheduledConditionType))
		if cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != placementv1beta1.InvalidResourceSelectorsReason {
			return fmt.Errorf("scheduled condition %+v", cond)
		}
		if want := "may not read persistentvolumes on the hub"; !strings.Contains(cond.Message, want) {
			return fmt.Errorf("message %q does not say %q", cond.Message, want)
		}
		return nil
	})

	apply(t, "004-namespace-test-namespace.yaml", func(u *unstructured.Unstructured) { u.SetName("granted-kinds") })
	apply(t, "004-configmap-test-cm-value1.yaml", func(u *unstructured.Unstructured) { u.SetNamespace("granted-kinds") })
	template := &corev1.PodTemplate{ObjectMeta: metav1.ObjectMeta{Name: "not-granted", Namespace: "granted-kinds"},
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}}
	if err := c.Create(t.Context(), template); err != nil {
		t.Fatal(err)
	}
	apply(t, "004-clusterresourceplacement-example-placement.yaml", func(u *unstructured.Unstructured) {
		u.SetName("granted-kinds")
		_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"group": "", "version": "v1", "kind": "Namespace", "name": "granted-kinds"}}, "spec", "resourceSelectors")
		_ = unstructured.SetNestedMap(u.Object, map[string]any{"type": "RollingUpdate"}, "spec", "strategy")
	})
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		for _, m := range members {
			if _, err := member(t, m).CoreV1().ConfigMaps("granted-kinds").Get(ctx, "test-cm", metav1.GetOptions{}); err != nil {
				return fmt.Errorf("%s: %w", m, err)
			}
		}
		return nil
	})
	for _, m := range members {
		if _, err := member(t, m).CoreV1().PodTemplates("granted-kinds").Get(t.Context(), "not-granted", metav1.GetOptions{}); err == nil {
			t.Errorf("%s got the PodTemplate, a kind the controller may not read", m)
		}
	}
}
