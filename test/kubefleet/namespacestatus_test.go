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

// TestNamespaceAccessibleStatus: a placement with statusReportingScope NamespaceAccessible keeps
// a ClusterResourcePlacementStatus of its name in the namespace it places, equal to its own
// status without StatusSynced; the copy follows a new resource index, is written again when
// deleted by hand, and goes with the placement.
func TestNamespaceAccessibleStatus(t *testing.T) {
	t.Parallel()
	c := testenv.Client(t)
	const ns = "crps-demo"
	createAll(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings", Namespace: ns}, Data: map[string]string{"key": "a"}})
	crp := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "crps-demo"}}
	crp.Spec.ResourceSelectors = []placementv1beta1.ResourceSelectorTerm{{Version: "v1", Kind: "Namespace", Name: ns}}
	crp.Spec.Policy = &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickAllPlacementType}
	crp.Spec.StatusReportingScope = placementv1beta1.NamespaceAccessible
	createAll(t, crp)

	// copyIs waits until the copy holds index and matches the placement's status.
	copyIs := func(index string) *placementv1beta1.ClusterResourcePlacementStatus {
		t.Helper()
		got := &placementv1beta1.ClusterResourcePlacementStatus{}
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			p := &placementv1beta1.ClusterResourcePlacement{}
			if err := c.Get(ctx, client.ObjectKey{Name: crp.Name}, p); err != nil {
				return err
			}
			if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: crp.Name}, got); err != nil {
				return err
			}
			synced := meta.FindStatusCondition(p.Status.Conditions, string(placementv1beta1.ClusterResourcePlacementStatusSyncedConditionType))
			if synced == nil || synced.Status != metav1.ConditionTrue || synced.Reason != "StatusSyncSucceeded" {
				return fmt.Errorf("StatusSynced %+v", synced)
			}
			if !meta.IsStatusConditionTrue(got.Conditions, string(placementv1beta1.ClusterResourcePlacementAvailableConditionType)) ||
				got.ObservedResourceIndex != index {
				return fmt.Errorf("copy at index %q, conditions %+v; want %s and available", got.ObservedResourceIndex, got.Conditions, index)
			}
			meta.RemoveStatusCondition(&p.Status.Conditions, synced.Type)
			if meta.FindStatusCondition(got.Conditions, synced.Type) != nil {
				return fmt.Errorf("the copy carries StatusSynced")
			}
			if len(got.PerClusterPlacementStatuses) != len(members) || len(got.Conditions) != len(p.Status.Conditions) {
				return fmt.Errorf("copy %+v differs from the placement's status %+v", got.PlacementStatus, p.Status)
			}
			if !metav1.IsControlledBy(got, p) || got.LastUpdatedTime.IsZero() {
				return fmt.Errorf("copy owners %+v, lastUpdatedTime %v", got.OwnerReferences, got.LastUpdatedTime)
			}
			return nil
		})
		return got
	}
	first := copyIs("0")

	cm := &corev1.ConfigMap{}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "settings"}, cm); err != nil {
			return err
		}
		cm.Data["key"] = "b"
		return c.Update(ctx, cm)
	})
	if second := copyIs("1"); second.LastUpdatedTime.Before(&first.LastUpdatedTime) {
		t.Errorf("lastUpdatedTime went back from %v to %v", first.LastUpdatedTime, second.LastUpdatedTime)
	}

	if err := c.Delete(t.Context(), first); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		again := &placementv1beta1.ClusterResourcePlacementStatus{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(first), again); err != nil {
			return err
		}
		if again.UID == first.UID {
			return fmt.Errorf("not deleted yet")
		}
		return nil
	})
	copyIs("1")

	// The copy cannot move to another namespace: the placement refuses the new selector.
	createAll(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns + "-moved"}})
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(crp), crp); err != nil {
			return err
		}
		crp.Spec.ResourceSelectors[0].Name = ns + "-moved"
		return c.Update(ctx, crp)
	})
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		p := &placementv1beta1.ClusterResourcePlacement{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(crp), p); err != nil {
			return err
		}
		s := meta.FindStatusCondition(p.Status.Conditions, string(placementv1beta1.ClusterResourcePlacementScheduledConditionType))
		want := `the Namespace resourceSelector names namespace "crps-demo-moved", but the placement selected "crps-demo" before`
		if s == nil || s.Status != metav1.ConditionFalse || s.Reason != placementv1beta1.InvalidResourceSelectorsReason || !strings.Contains(s.Message, want) {
			return fmt.Errorf("Scheduled %+v, want False saying %q", s, want)
		}
		return nil
	})

	if err := c.Delete(t.Context(), crp); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		err := c.Get(ctx, client.ObjectKeyFromObject(first), &placementv1beta1.ClusterResourcePlacementStatus{})
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("the copy is still there (%v)", err)
		}
		return nil
	})
}
