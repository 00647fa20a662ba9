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

package clusterprofile

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestHoldStartsNoOtherCluster: with maxUpdate 1, a finishes its update while the rollout is
// held; b does not start until the hold is lifted, and the hold never reaches the summaries.
func TestHoldStartsNoOtherCluster(t *testing.T) {
	c := startController(t)
	setClusterReady(t, c, "a", true, "")
	setClusterReady(t, c, "b", true, "")
	p := profile("held-rollout", nil)
	p.Spec.ClusterSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOpExists}}
	one := intstr.FromInt32(1)
	p.Spec.MaxUpdate = &one
	if err := c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	expectSummaries(t, c, p.Name, "a/a") // a is updating: no summary controller runs here

	hold := func(on bool) {
		t.Helper()
		patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:"test"}}}`, configv1beta1.HoldRolloutAnnotation)
		if !on {
			patch = fmt.Sprintf(`{"metadata":{"annotations":{%q:null}}}`, configv1beta1.HoldRolloutAnnotation)
		}
		if err := c.Patch(t.Context(), p, client.RawPatch("application/merge-patch+json", []byte(patch))); err != nil {
			t.Fatal(err)
		}
	}
	hold(true)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := getProfile(ctx, c, p.Name)
		if err != nil {
			return err
		}
		if ready := meta.FindStatusCondition(got.Status.Conditions, configv1beta1.ProfileReadyCondition); ready == nil || !strings.Contains(ready.Message, "the rollout is held") {
			return fmt.Errorf("Ready does not say the rollout is held: %+v", ready)
		}
		return nil
	})
	// a finishes, as its summary controller would say.
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cs := &configv1beta1.ClusterSummary{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: "a", Name: configv1beta1.ClusterSummaryName(p.Name, "a")}, cs); err != nil {
			return err
		}
		if _, held := cs.Annotations[configv1beta1.HoldRolloutAnnotation]; held {
			t.Fatalf("the hold reached the summary: %v", cs.Annotations)
		}
		cs.Status.ObservedGeneration = cs.Generation
		return c.Status().Update(ctx, cs)
	})
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got, err := getProfile(ctx, c, p.Name)
		if err != nil {
			return err
		}
		if u := got.Status.UpdatedClusters.Clusters; len(u) != 1 || u[0].Name != "a" {
			return fmt.Errorf("updatedClusters %+v", u)
		}
		return nil
	})
	if got, err := summariesOf(t.Context(), c, p.Name); err != nil || !slices.Equal(got, []string{"a/a"}) {
		t.Fatalf("summaries %v (%v): b started while the rollout was held", got, err)
	}

	hold(false)
	expectSummaries(t, c, p.Name, "a/a", "b/b")
}
