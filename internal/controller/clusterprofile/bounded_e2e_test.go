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
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestBoundedStatus: with room for one cluster per list, a profile matching both clusters
// lists the first, counts both, says where they all are, and still deploys to both; matching
// one again, it lists it as before, without counts.
func TestBoundedStatus(t *testing.T) {
	testenv.StartManager(t, func(mgr ctrl.Manager) error {
		return NewReconciler(Options{MaxListedClusters: 1}).SetupWithManager(mgr)
	})
	c := testenv.Client(t)
	p := profile("bounded", nil)
	p.Spec.ClusterSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: []string{"dev", "prod"}}}
	if err := c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), p) })
	expectSummaries(t, c, p.Name, "a/a", "b/b")
	status := func(check func(*configv1beta1.ClusterProfile) error) {
		t.Helper()
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			got := &configv1beta1.ClusterProfile{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(p), got); err != nil {
				return err
			}
			if got.Status.ObservedGeneration != got.Generation {
				return fmt.Errorf("not reconciled yet")
			}
			return check(got)
		})
	}
	status(func(got *configv1beta1.ClusterProfile) error {
		if refs := got.Status.MatchingClusterRefs; len(refs) != 1 || refs[0].Name != "a" {
			return fmt.Errorf("matchingClusters %v", refs)
		}
		if n := got.Status.ClusterCounts; n == nil || n.Matching != 2 {
			return fmt.Errorf("clusterCounts %+v", n)
		}
		if ready := meta.FindStatusCondition(got.Status.Conditions, configv1beta1.ProfileReadyCondition); ready == nil ||
			!strings.Contains(ready.Message, "kubectl get clustersummaries -A -l projectsveltos.io/cluster-profile-name=bounded") {
			return fmt.Errorf("Ready %+v does not say where the clusters are", ready)
		}
		return nil
	})
	patchProfile(t, c, p.Name, func(p *configv1beta1.ClusterProfile) {
		p.Spec.ClusterSelector.MatchExpressions[0].Values = []string{"dev"}
	})
	expectSummaries(t, c, p.Name, "a/a")
	status(func(got *configv1beta1.ClusterProfile) error {
		if refs := got.Status.MatchingClusterRefs; len(refs) != 1 || refs[0].Name != "a" || got.Status.ClusterCounts != nil {
			return fmt.Errorf("matchingClusters %v, clusterCounts %+v", refs, got.Status.ClusterCounts)
		}
		return nil
	})
}
