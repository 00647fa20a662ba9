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

package schema_test

import (
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
	"github.com/stagecoach-dev/stagecoach/internal/testing/fleetv1"
)

// TestFleetV1Client checks the client the Kubefleet e2e tests write with: typed v1beta1 objects
// go to the server as v1 (the managed fields record the version of each write) and come back
// typed, for create, update, status, patch, get and list; v1beta1-only kinds pass through.
func TestFleetV1Client(t *testing.T) {
	ctx := t.Context()
	plain, err := client.New(mgmt, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	c := fleetv1.Client(plain)
	crp := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: "fleetv1-client"}}
	crp.Spec.ResourceSelectors = []placementv1beta1.ResourceSelectorTerm{{Version: "v1", Kind: "Namespace", Name: "fleetv1"}}
	crp.Spec.Strategy.Type = placementv1beta1.ExternalRolloutStrategyType
	crp.Spec.Strategy.DeleteStrategy = &placementv1beta1.DeleteStrategy{PropagationPolicy: placementv1beta1.DeletePropagationPolicyAbandon}
	if err := c.Create(ctx, crp); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = plain.Delete(t.Context(), crp) })
	if crp.UID == "" || crp.Spec.Strategy.DeleteStrategy == nil || crp.GetObjectKind().GroupVersionKind().Version != "" {
		t.Fatalf("create returned %+v", crp)
	}
	meta.SetStatusCondition(&crp.Status.Conditions, metav1.Condition{Type: "ClusterResourcePlacementScheduled", Status: metav1.ConditionTrue, Reason: "Scheduled"})
	if err := c.Status().Update(ctx, crp); err != nil {
		t.Fatal(err)
	}
	if err := c.Patch(ctx, crp, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"patched":"yes"}}}`))); err != nil {
		t.Fatal(err)
	}
	got := &placementv1beta1.ClusterResourcePlacement{}
	if err := plain.Get(ctx, client.ObjectKeyFromObject(crp), got); err != nil {
		t.Fatal(err)
	}
	if !apiequality.Semantic.DeepEqual(got.Spec, crp.Spec) || got.Labels["patched"] != "yes" || !meta.IsStatusConditionTrue(got.Status.Conditions, "ClusterResourcePlacementScheduled") {
		t.Errorf("v1beta1 reads %+v, the v1 client returned %+v", got, crp)
	}
	if len(got.ManagedFields) < 2 {
		t.Errorf("managed fields %+v: want the writes to the object and to its status", got.ManagedFields)
	}
	for _, f := range got.ManagedFields {
		if f.APIVersion != placementv1beta1.GroupVersion.Group+"/v1" {
			t.Errorf("a %s write (%s) went through %s, not v1", f.Operation, f.Subresource, f.APIVersion)
		}
	}
	list := &placementv1beta1.ClusterResourcePlacementList{}
	if err := c.List(ctx, list); err != nil || len(list.Items) == 0 {
		t.Fatalf("list: %d items, %v", len(list.Items), err)
	}
	var bindings placementv1beta1.ResourceBindingList
	if err := c.List(ctx, &bindings, client.InNamespace("default")); err != nil {
		t.Errorf("a kind served at v1beta1 only: %v", err)
	}
	if err := c.Delete(ctx, crp); err != nil {
		t.Fatal(err)
	}
}
