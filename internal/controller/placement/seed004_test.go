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
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestSeed004ClusterResourcePlacement walks seed 004's cluster-scoped part as far as the
// placement goes: snapshot 0 right after the CRP is created, index 1 after the ConfigMap edit,
// three Scheduled bindings, and AVAILABLE True once an update run (played by the test) has
// brought every cluster to index 1.
func TestSeed004ClusterResourcePlacement(t *testing.T) {
	c := startController(t)
	createFixture(t, c, "004-namespace-test-namespace.yaml")
	createFixture(t, c, "004-configmap-test-cm-value1.yaml")
	p := &placementv1beta1.ClusterResourcePlacement{}
	readFixture(t, "004-clusterresourceplacement-example-placement.yaml", p)
	create(t, c, p)

	// The seed's snapshot 1; snapshot 0 is the same with value1.
	var seedSnapshot struct {
		Spec struct {
			SelectedResources []any `json:"selectedResources"`
		} `json:"spec"`
	}
	readFixture(t, "004-clusterresourcesnapshot-example-placement-1-snapshot.yaml", &seedSnapshot)
	want1 := seedSnapshot.Spec.SelectedResources
	wantValue := func(v string) []any {
		out := []any{}
		data, _ := json.Marshal(want1)
		_ = json.Unmarshal([]byte(strings.ReplaceAll(string(data), "value2", v)), &out)
		return out
	}
	labels := func(index string, latest bool) map[string]string {
		return map[string]string{placementv1beta1.IsLatestSnapshotLabel: fmt.Sprint(latest),
			placementv1beta1.PlacementTrackingLabel: "example-placement", placementv1beta1.ResourceIndexLabel: index}
	}
	waitSnapshots := func(want map[string]map[string]string) map[string]*placementv1beta1.ClusterResourceSnapshot {
		var got map[string]*placementv1beta1.ClusterResourceSnapshot
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			var err error
			if got, err = crs(ctx, c, "example-placement"); err != nil {
				return err
			}
			if len(got) != len(want) {
				return fmt.Errorf("snapshots %v, want %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
			}
			for name, l := range want {
				if got[name] == nil || !reflect.DeepEqual(got[name].Labels, l) {
					return fmt.Errorf("snapshot %s: %v, want labels %v", name, got[name], l)
				}
			}
			return nil
		})
		return got
	}

	snaps := waitSnapshots(map[string]map[string]string{"example-placement-0-snapshot": labels("0", true)})
	s0 := snaps["example-placement-0-snapshot"]
	if got := decoded(t, s0.Spec.SelectedResources); !reflect.DeepEqual(got, wantValue("value1")) {
		t.Errorf("snapshot 0 selects\n%v\nwant\n%v", got, wantValue("value1"))
	}
	if a := s0.Annotations; len(a[placementv1beta1.ResourceGroupHashAnnotation]) != 64 ||
		a[placementv1beta1.NumberOfResourceSnapshotsAnnotation] != "1" || a[placementv1beta1.NumberOfEnvelopedObjectsAnnotation] != "0" {
		t.Errorf("snapshot 0 annotations %v", a)
	}
	if !metav1.IsControlledBy(s0, waitCRP(t, c, "example-placement", func(*placementv1beta1.ClusterResourcePlacement) error { return nil })) {
		t.Errorf("snapshot 0 owners %v", s0.OwnerReferences)
	}

	// PickAll: one Scheduled binding per member, and `kubectl get crp` shows SCHEDULED True
	// at generation 1 and no AVAILABLE yet.
	bindings := waitBindings(t, c, "example-placement", func(bs map[string]*placementv1beta1.ClusterResourceBinding) error {
		if got := states(bs); got != "member1=Scheduled member2=Scheduled member3=Scheduled" {
			return fmt.Errorf("bindings %s", got)
		}
		return nil
	})
	for _, cl := range members {
		b := bindings[cl]
		if b.Name != "example-placement-"+cl || b.Spec.SchedulingPolicySnapshotName != "example-placement-0" ||
			!b.Spec.ClusterDecision.Selected || b.Spec.ResourceSnapshotName != "" || len(b.OwnerReferences) != 1 {
			t.Errorf("binding %s: %+v %+v", b.Name, b.ObjectMeta, b.Spec)
		}
	}
	waitCRP(t, c, "example-placement", func(p *placementv1beta1.ClusterResourcePlacement) error {
		if err := conditionIs(p.Status.Conditions, "ClusterResourcePlacementScheduled", metav1.ConditionTrue, "ScheduleSucceeded", 1); err != nil {
			return err
		}
		if err := conditionIs(p.Status.Conditions, "ClusterResourcePlacementRolloutStarted", metav1.ConditionUnknown,
			placementv1beta1.RolloutControlledByExternalControllerReason, 1); err != nil {
			return err
		}
		if c := meta.FindStatusCondition(p.Status.Conditions, "ClusterResourcePlacementAvailable"); c != nil {
			return fmt.Errorf("available before any run: %+v", c)
		}
		if len(p.Status.PerClusterPlacementStatuses) != 3 || p.Status.ObservedResourceIndex != "" {
			return fmt.Errorf("status %+v", p.Status)
		}
		return nil
	})
	policy := &placementv1beta1.ClusterSchedulingPolicySnapshot{}
	if err := c.Get(t.Context(), client.ObjectKey{Name: "example-placement-0"}, policy); err != nil {
		t.Fatal(err)
	}
	if policy.Labels[placementv1beta1.PolicyIndexLabel] != "0" || policy.Labels[placementv1beta1.IsLatestSnapshotLabel] != "true" ||
		conditionIs(policy.Status.Conditions, "Scheduled", metav1.ConditionTrue, "", policy.Generation) != nil ||
		len(policy.Status.ClusterDecisions) != 3 {
		t.Errorf("policy snapshot %+v %+v", policy.Labels, policy.Status)
	}

	// kubectl edit cm test-cm: index 1, which takes over is-latest.
	editConfigMap(t, c, "test-namespace", "test-cm", "value2")
	snaps = waitSnapshots(map[string]map[string]string{
		"example-placement-0-snapshot": labels("0", false),
		"example-placement-1-snapshot": labels("1", true),
	})
	if got := decoded(t, snaps["example-placement-1-snapshot"].Spec.SelectedResources); !reflect.DeepEqual(got, want1) {
		t.Errorf("snapshot 1 selects\n%v\nwant the seed's\n%v", got, want1)
	}

	// An update run (the test here) binds every cluster to index 1 and they report it
	// available: AVAILABLE True, AVAILABLE-GEN 1.
	for _, cl := range members {
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			b := &placementv1beta1.ClusterResourceBinding{}
			if err := c.Get(ctx, client.ObjectKey{Name: "example-placement-" + cl}, b); err != nil {
				return err
			}
			b.Spec.State = placementv1beta1.BindingStateBound
			b.Spec.ResourceSnapshotName = "example-placement-1-snapshot"
			if err := c.Update(ctx, b); err != nil {
				return err
			}
			meta.SetStatusCondition(&b.Status.Conditions, metav1.Condition{Type: placementv1beta1.BindingRolloutStartedCondition,
				Status: metav1.ConditionTrue, Reason: "RolloutStarted", ObservedGeneration: b.Generation})
			return c.Status().Update(ctx, b)
		})
		markAvailable(t, c, "example-placement", cl)
	}
	p = waitCRP(t, c, "example-placement", func(p *placementv1beta1.ClusterResourcePlacement) error {
		if err := conditionIs(p.Status.Conditions, "ClusterResourcePlacementAvailable", metav1.ConditionTrue, "", 1); err != nil {
			return err
		}
		if p.Status.ObservedResourceIndex != "1" {
			return fmt.Errorf("observedResourceIndex %q", p.Status.ObservedResourceIndex)
		}
		return nil
	})
	for _, st := range p.Status.PerClusterPlacementStatuses {
		if st.ObservedResourceIndex != "1" || len(st.Conditions) != 4 {
			t.Errorf("cluster status %+v", st)
		}
	}
	wantSelected := []placementv1beta1.ResourceIdentifier{
		{Version: "v1", Kind: "Namespace", Name: "test-namespace"},
		{Version: "v1", Kind: "ConfigMap", Namespace: "test-namespace", Name: "test-cm"},
	}
	if !reflect.DeepEqual(p.Status.SelectedResources, wantSelected) {
		t.Errorf("selectedResources %+v", p.Status.SelectedResources)
	}
	if err := conditionIs(p.Status.Conditions, "ClusterResourcePlacementRolloutStarted", metav1.ConditionTrue, "", 1); err != nil {
		t.Error(err)
	}
	// External: the placement left the bindings as the run set them.
	waitBindings(t, c, "example-placement", func(bs map[string]*placementv1beta1.ClusterResourceBinding) error {
		for _, b := range bs {
			if b.Spec.State != placementv1beta1.BindingStateBound || b.Spec.ResourceSnapshotName != "example-placement-1-snapshot" {
				return fmt.Errorf("binding %s changed: %+v", b.Name, b.Spec)
			}
		}
		return nil
	})

	// Deleting the placement deletes its bindings and snapshots.
	deleteAndWait(t, c, p)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		bs, err := crbs(ctx, c, "example-placement")
		if err != nil {
			return err
		}
		ss, err := crs(ctx, c, "example-placement")
		if err != nil {
			return err
		}
		if len(bs)+len(ss) > 0 {
			return fmt.Errorf("%d bindings and %d snapshots left", len(bs), len(ss))
		}
		return nil
	})
}

// TestSeed004ResourcePlacement: the namespaced part of seed 004.
func TestSeed004ResourcePlacement(t *testing.T) {
	c := startController(t)
	for _, f := range []string{"004-namespace-my-app-namespace.yaml", "004-deployment-web-app-nginx-1.20.yaml", "004-service-web-app.yaml"} {
		createFixture(t, c, f)
	}
	p := &placementv1beta1.ResourcePlacement{}
	readFixture(t, "004-resourceplacement-web-app-placement.yaml", p)
	create(t, c, p)
	cleanUp(t, c, p)

	snapshots := func(ctx context.Context) (map[string]*placementv1beta1.ResourceSnapshot, error) {
		var l placementv1beta1.ResourceSnapshotList
		if err := c.List(ctx, &l, client.InNamespace("my-app-namespace"),
			client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: "web-app-placement"}); err != nil {
			return nil, err
		}
		out := map[string]*placementv1beta1.ResourceSnapshot{}
		for i := range l.Items {
			out[l.Items[i].Name] = &l.Items[i]
		}
		return out, nil
	}
	// image reads the Deployment's image out of a snapshot, which holds the Service first.
	image := func(s *placementv1beta1.ResourceSnapshot) string {
		objs := decoded(t, s.Spec.SelectedResources)
		if len(objs) != 2 {
			return fmt.Sprintf("%d objects", len(objs))
		}
		kinds := objs[0].(map[string]any)["kind"].(string) + "," + objs[1].(map[string]any)["kind"].(string)
		if kinds != "Service,Deployment" {
			return kinds
		}
		u := unstructured.Unstructured{Object: objs[1].(map[string]any)}
		containers, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
		if len(containers) != 1 {
			return "no container"
		}
		return containers[0].(map[string]any)["image"].(string)
	}
	wantLabels := func(index string, latest bool) map[string]string {
		return map[string]string{placementv1beta1.IsLatestSnapshotLabel: fmt.Sprint(latest),
			placementv1beta1.PlacementTrackingLabel: "web-app-placement", placementv1beta1.ResourceIndexLabel: index}
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		ss, err := snapshots(ctx)
		if err != nil {
			return err
		}
		s := ss["web-app-placement-0-snapshot"]
		if len(ss) != 1 || s == nil || !reflect.DeepEqual(s.Labels, wantLabels("0", true)) || image(s) != "nginx:1.20" {
			return fmt.Errorf("snapshots %v", ss)
		}
		return nil
	})
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		var l placementv1beta1.ResourceBindingList
		if err := c.List(ctx, &l, client.InNamespace("my-app-namespace")); err != nil {
			return err
		}
		var got []string
		for _, b := range l.Items {
			got = append(got, b.Name+"="+string(b.Spec.State))
		}
		slices.Sort(got)
		if want := "web-app-placement-member1=Scheduled web-app-placement-member2=Scheduled web-app-placement-member3=Scheduled"; strings.Join(got, " ") != want {
			return fmt.Errorf("bindings %v", got)
		}
		rp := &placementv1beta1.ResourcePlacement{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(p), rp); err != nil {
			return err
		}
		return conditionIs(rp.Status.Conditions, "ResourcePlacementScheduled", metav1.ConditionTrue, "", 1)
	})

	// kubectl set image deployment/web-app web-app=nginx:1.21: index 1.
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		d := &unstructured.Unstructured{}
		d.SetAPIVersion("apps/v1")
		d.SetKind("Deployment")
		if err := c.Get(ctx, client.ObjectKey{Namespace: "my-app-namespace", Name: "web-app"}, d); err != nil {
			return err
		}
		containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
		containers[0].(map[string]any)["image"] = "nginx:1.21"
		_ = unstructured.SetNestedSlice(d.Object, containers, "spec", "template", "spec", "containers")
		return c.Update(ctx, d)
	})
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		ss, err := snapshots(ctx)
		if err != nil {
			return err
		}
		s0, s1 := ss["web-app-placement-0-snapshot"], ss["web-app-placement-1-snapshot"]
		if len(ss) != 2 || s0 == nil || s1 == nil || !reflect.DeepEqual(s0.Labels, wantLabels("0", false)) ||
			!reflect.DeepEqual(s1.Labels, wantLabels("1", true)) || image(s1) != "nginx:1.21" {
			return fmt.Errorf("snapshots %v", ss)
		}
		return nil
	})
}
