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
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
	"github.com/stagecoach-dev/stagecoach/internal/targets"
)

var (
	v1 = []byte{0x11, 0x11, 0x11, 0x11, 0x01}
	v2 = []byte{0x22, 0x22, 0x22, 0x22, 0x02}
)

// promotionAt is a ClusterPromotion rolling out current, with lkg its last known good version.
func promotionAt(current, lkg []byte) *configv1beta1.ClusterPromotion {
	p := &configv1beta1.ClusterPromotion{ObjectMeta: metav1.ObjectMeta{Name: "web"}}
	p.Status.ProfileSpecHash = current
	if lkg != nil {
		p.Status.LastKnownGood = &configv1beta1.KnownGoodVersion{ProfileSpecHash: lkg}
	}
	return p
}

func TestRollbackPromotion(t *testing.T) {
	rolling := promotionAt(v2, v1)
	rolling.Status.Failure = &configv1beta1.PromotionFailure{Stage: "dev", ProfileSpecHash: v2}
	rolling.Status.Rollback = &configv1beta1.RollbackStatus{ToProfileSpecHash: v1, Stages: []string{"dev"}}
	suspended := promotionAt(v2, v1)
	suspended.Spec.Suspend = true
	for _, tc := range []struct {
		name          string
		p             *configv1beta1.ClusterPromotion
		want, wantErr string
		annotated     bool
	}{
		{name: "not started", p: promotionAt(nil, nil), wantErr: "ClusterPromotion web has not started rolling anything out"},
		{name: "no last known good", p: promotionAt(v2, nil),
			wantErr: "ClusterPromotion web has no last known good version: no version has gone through every stage yet"},
		{name: "at the last known good", p: promotionAt(v1, v1),
			wantErr: "ClusterPromotion web runs its last known good version 11111111: there is nothing to roll back"},
		{name: "rolling back already", p: rolling, want: "ClusterPromotion web is already rolling back version 22222222"},
		{name: "rolled back", p: promotionAt(v2, v1), annotated: true,
			want: "rolling back ClusterPromotion web from version 22222222 to 11111111"},
		{name: "suspended", p: suspended, annotated: true,
			want: "rolling back ClusterPromotion web from version 22222222 to 11111111 (once it is resumed: it is suspended)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(tc.p).Build()
			msg, err := RollbackPromotion(t.Context(), c, "web")
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Errorf("got %q, %v; want the error %q", msg, err, tc.wantErr)
				}
			} else if err != nil || msg != tc.want {
				t.Errorf("got %q, %v; want %q", msg, err, tc.want)
			}
			got := &configv1beta1.ClusterPromotion{}
			if err := c.Get(t.Context(), client.ObjectKey{Name: "web"}, got); err != nil {
				t.Fatal(err)
			}
			annotation, ok := got.Annotations[configv1beta1.RollbackAnnotation]
			if tc.annotated && annotation != "2222222202" || !tc.annotated && ok {
				t.Errorf("annotation %s = %q (set: %t), want it set: %t", configv1beta1.RollbackAnnotation, annotation, ok, tc.annotated)
			}
		})
	}
	if _, err := RollbackPromotion(t.Context(), fake.NewClientBuilder().WithScheme(scheme.New()).Build(), "nope"); err == nil ||
		err.Error() != "ClusterPromotion nope not found" {
		t.Errorf("rolling back a promotion that does not exist: %v", err)
	}
}

// placementObjects is the placement web of family in namespace with the first snapshots of
// indices 0 and 1 (and a second snapshot of index 1, which names no index of its own), and two
// runs: the older with strategy slow, the newer with fast.
func placementObjects(family placementv1beta1.Family, namespace string) []client.Object {
	placement := family.NewPlacement()
	placement.SetName("web")
	placement.SetNamespace(namespace)
	objs := []client.Object{placement}
	for _, s := range []struct {
		name  string
		index string
		first bool
	}{{"web-0-snapshot", "0", true}, {"web-1-snapshot", "1", true}, {"web-1-snapshot-1", "1", false}} {
		snap := family.NewResourceSnapshot()
		snap.SetName(s.name)
		snap.SetNamespace(namespace)
		snap.SetLabels(map[string]string{placementv1beta1.PlacementTrackingLabel: "web", placementv1beta1.ResourceIndexLabel: s.index})
		if s.first {
			snap.SetAnnotations(map[string]string{placementv1beta1.ResourceGroupHashAnnotation: "abc"})
		}
		objs = append(objs, snap)
	}
	for i, strategy := range []string{"slow", "fast"} {
		run := family.NewUpdateRun()
		run.SetName(fmt.Sprintf("web-%d", i))
		run.SetNamespace(namespace)
		run.SetCreationTimestamp(metav1.NewTime(time.Date(2026, 1, 1, i, 0, 0, 0, time.UTC)))
		*run.UpdateRunSpec() = placementv1beta1.UpdateRunSpec{PlacementName: "web", ResourceSnapshotIndex: fmt.Sprint(i), StagedUpdateStrategyName: strategy}
		objs = append(objs, run)
	}
	return objs
}

func TestRollbackPlacement(t *testing.T) {
	for _, tc := range []struct {
		family    placementv1beta1.Family
		namespace string
	}{{placementv1beta1.ClusterFamily, ""}, {placementv1beta1.NamespacedFamily, "apps"}} {
		t.Run(tc.family.PlacementKind(), func(t *testing.T) {
			c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(placementObjects(tc.family, tc.namespace)...).Build()
			indices, err := targets.SnapshotIndices(t.Context(), c, tc.family, tc.namespace, "web")
			if err != nil || fmt.Sprint(indices) != "[0 1]" {
				t.Errorf("snapshot indices %v (%v), want [0 1]", indices, err)
			}

			// The strategy of the latest run, unless another is named.
			msg, run, err := RollbackPlacement(t.Context(), c, tc.namespace, "web", 0, "")
			want := regexp.MustCompile(fmt.Sprintf(`^created %s (web-rollback-\w+): %s web back to resource snapshot index 0 with strategy fast$`,
				tc.family.UpdateRunKind(), tc.family.PlacementKind()))
			if err != nil || !want.MatchString(msg) {
				t.Fatalf("got %q, %v; want it to match %s", msg, err, want)
			}
			got := tc.family.NewUpdateRun()
			if err := c.Get(t.Context(), client.ObjectKeyFromObject(run), got); err != nil {
				t.Fatal(err)
			}
			if spec := *got.UpdateRunSpec(); spec != (placementv1beta1.UpdateRunSpec{PlacementName: "web", ResourceSnapshotIndex: "0",
				StagedUpdateStrategyName: "fast", State: placementv1beta1.StateRun}) || got.GetNamespace() != tc.namespace {
				t.Errorf("created %s/%s with %+v", got.GetNamespace(), got.GetName(), spec)
			}
			if msg, _, err := RollbackPlacement(t.Context(), c, tc.namespace, "web", 1, "slow"); err != nil || !strings.HasSuffix(msg, " back to resource snapshot index 1 with strategy slow") {
				t.Errorf("with strategy slow: %q, %v", msg, err)
			}

			kind, in := tc.family.PlacementKind(), ""
			if tc.namespace != "" {
				in = " in namespace " + tc.namespace
			}
			for index, placement := range map[int]string{7: "web", 0: "nope"} {
				_, run, err := RollbackPlacement(t.Context(), c, tc.namespace, placement, index, "")
				wantErr := fmt.Sprintf("%s web has no resource snapshot index 7; it has 0, 1", kind)
				if placement == "nope" {
					wantErr = fmt.Sprintf("%s nope not found%s", kind, in)
				}
				if err == nil || err.Error() != wantErr || run != nil {
					t.Errorf("rolling %s back to %d: %v, want %q", placement, index, err, wantErr)
				}
			}
			runs := tc.family.NewUpdateRunList()
			if err := c.List(t.Context(), runs, client.InNamespace(tc.namespace)); err != nil || len(runs.UpdateRunObjs()) != 4 {
				t.Errorf("%d runs (%v), want the 2 there were and the 2 rollbacks", len(runs.UpdateRunObjs()), err)
			}
		})
	}
}

// TestRollbackPlacementWithoutRuns: with no run to take the strategy from, one must be named.
func TestRollbackPlacementWithoutRuns(t *testing.T) {
	var objs []client.Object
	for _, o := range placementObjects(placementv1beta1.ClusterFamily, "") {
		if _, run := o.(placementv1beta1.UpdateRunObj); !run {
			objs = append(objs, o)
		}
	}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).Build()
	if _, _, err := RollbackPlacement(t.Context(), c, "", "web", 0, ""); err == nil ||
		err.Error() != "no update run of ClusterResourcePlacement web names a strategy: say which with --strategy" {
		t.Errorf("without a run: %v", err)
	}
	if msg, _, err := RollbackPlacement(t.Context(), c, "", "web", 0, "fast"); err != nil || !strings.HasSuffix(msg, " with strategy fast") {
		t.Errorf("with a strategy named: %q, %v", msg, err)
	}
}
