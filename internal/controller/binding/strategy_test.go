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

package binding

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// refused waits until the binding's Applied condition is False and its failed placements name
// the ConfigMap with a message saying every want.
func refused(t *testing.T, c client.Client, b placementv1beta1.BindingObj, name string, wants ...string) {
	t.Helper()
	waitFor(t, c, b, "refused "+name, func(placementv1beta1.BindingObj) error {
		if err := condition(b, placementv1beta1.BindingAppliedCondition, metav1.ConditionFalse, placementv1beta1.WorkNotAppliedReason); err != nil {
			return err
		}
		for _, f := range b.BindingStatus().FailedPlacements {
			if f.Kind != "ConfigMap" || f.Name != name {
				continue
			}
			for _, want := range wants {
				if !strings.Contains(f.Condition.Message, want) {
					return fmt.Errorf("the failure of %s says %q, not %q", name, f.Condition.Message, want)
				}
			}
			return nil
		}
		return fmt.Errorf("failedPlacements %+v do not name ConfigMap %s", b.BindingStatus().FailedPlacements, name)
	})
}

// memberConfigMap creates a ConfigMap on a member cluster, as someone other than Stagecoach.
func memberConfigMap(t *testing.T, m client.Client, ns, name, value string, owners ...metav1.OwnerReference) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, OwnerReferences: owners}, Data: map[string]string{"key": value}}
	if err := m.Create(t.Context(), cm, client.FieldOwner("someone")); err != nil {
		t.Fatal(err)
	}
	return cm
}

// editConfigMap changes a ConfigMap on a member cluster as another field manager would.
func editConfigMap(t *testing.T, m client.Client, ns, name, value string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cm := &corev1.ConfigMap{}
		if err := m.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cm); err != nil {
			return err
		}
		cm.Data["key"] = value
		return m.Update(ctx, cm, client.FieldOwner("someone"))
	})
}

func ownedByStagecoach(t *testing.T, m client.Client, ns, name string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cm := &corev1.ConfigMap{}
		if err := m.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cm); err != nil {
			return err
		}
		if cm.Annotations[manifests.OwnerAnnotation] == "" {
			return fmt.Errorf("ConfigMap %s/%s is not taken over: annotations %v", ns, name, cm.Annotations)
		}
		return nil
	})
}

// TestTakeOver covers applyStrategy's whenToTakeOver and allowCoOwnership: objects found on the
// member cluster are taken over, or left alone with a message naming the field. The namespace
// is the member's own, so the snapshot leaves it out.
func TestTakeOver(t *testing.T) {
	c := startController(t)
	m := member(t, "member2")
	const p, ns = "takeover", "takeover-ns"
	create(t, m, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	memberConfigMap(t, m, ns, "same", "one")
	memberConfigMap(t, m, ns, "different", "local")
	owner := memberConfigMap(t, m, ns, "owner", "x")
	memberConfigMap(t, m, ns, "co-owned", "one", metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: owner.UID})

	s0 := clusterSnapshot(t, c, p, 0, -1, 1, configMap(ns, "same", "one"), configMap(ns, "different", "hub"), configMap(ns, "co-owned", "one"))
	spec := boundSpec("member2", s0)
	spec.ApplyStrategy = &placementv1beta1.ApplyStrategy{WhenToTakeOver: placementv1beta1.WhenToTakeOverTypeNever}
	b := &placementv1beta1.ClusterResourceBinding{ObjectMeta: bindingMeta("", p, "member2"), Spec: spec}
	create(t, c, b)
	refused(t, c, b, "same", "already exists on the cluster, deployed by nobody", "applyStrategy.whenToTakeOver is Never")
	refused(t, c, b, "co-owned", "is owned by ConfigMap owner", "applyStrategy.allowCoOwnership is false")
	expectEvent(t, c, b, reasonApplyFailed)
	configMapValue(t, m, ns, "different", "local")

	// IfNoDiff takes over what the hub would not change, and lists the differences of the rest.
	updateSpec(t, c, b, func(s *placementv1beta1.ResourceBindingSpec) {
		s.ApplyStrategy = &placementv1beta1.ApplyStrategy{WhenToTakeOver: placementv1beta1.WhenToTakeOverTypeIfNoDiff, AllowCoOwnership: true}
	})
	refused(t, c, b, "different", "differs from its manifest", `~ data.key: "local" -> "hub"`, "applyStrategy.whenToTakeOver is IfNoDiff")
	ownedByStagecoach(t, m, ns, "same")
	ownedByStagecoach(t, m, ns, "co-owned")
	configMapValue(t, m, ns, "different", "local")

	// Always (the default) takes everything over.
	updateSpec(t, c, b, func(s *placementv1beta1.ResourceBindingSpec) {
		s.ApplyStrategy = &placementv1beta1.ApplyStrategy{AllowCoOwnership: true}
	})
	waitFor(t, c, b, "available", appliedAndAvailable(s0, placementv1beta1.AllWorkAvailableReason))
	configMapValue(t, m, ns, "different", "hub")
	deleteAndWait(t, c, b)
	gone(t, m, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "different"}})
	if err := m.Delete(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Error(err)
	}
}

// TestServerSideApplyAndDrift covers applyStrategy's type ServerSideApply without force and
// whenToApply IfNotDrifted: a field changed on the member cluster is not overwritten, and the
// binding says why.
func TestServerSideApplyAndDrift(t *testing.T) {
	c := startController(t, func(o *Options) { o.ResyncInterval = time.Second })
	m := member(t, "member2")
	const p, ns = "ssa", "ssa-ns"
	s0 := clusterSnapshot(t, c, p, 0, -1, 1, namespace(ns), configMap(ns, "settings", "one"))
	s1 := clusterSnapshot(t, c, p, 1, -1, 1, namespace(ns), configMap(ns, "settings", "two"))
	spec := boundSpec("member2", s0)
	spec.ApplyStrategy = &placementv1beta1.ApplyStrategy{WhenToApply: placementv1beta1.WhenToApplyTypeIfNotDrifted}
	b := &placementv1beta1.ClusterResourceBinding{ObjectMeta: bindingMeta("", p, "member2"), Spec: spec}
	create(t, c, b)
	waitFor(t, c, b, "available", appliedAndAvailable(s0, placementv1beta1.AllWorkAvailableReason))

	// The periodic apply leaves the drifted object alone while its manifest is the same...
	editConfigMap(t, m, ns, "settings", "edited")
	refused(t, c, b, "settings", "was changed on the cluster since it was applied", `~ data.key: "edited" -> "one"`, "applyStrategy.whenToApply is IfNotDrifted")
	configMapValue(t, m, ns, "settings", "edited")
	// ...and applies a new manifest over it.
	updateSpec(t, c, b, func(s *placementv1beta1.ResourceBindingSpec) { s.ResourceSnapshotName = s1 })
	waitFor(t, c, b, "available on the new snapshot", appliedAndAvailable(s1, placementv1beta1.AllWorkAvailableReason))
	configMapValue(t, m, ns, "settings", "two")

	// Server-side apply without force does not take a field another manager owns.
	editConfigMap(t, m, ns, "settings", "edited")
	updateSpec(t, c, b, func(s *placementv1beta1.ResourceBindingSpec) {
		s.ResourceSnapshotName = s0
		s.ApplyStrategy = &placementv1beta1.ApplyStrategy{Type: placementv1beta1.ApplyStrategyTypeServerSideApply}
	})
	refused(t, c, b, "settings", "conflict", "applyStrategy.serverSideApplyConfig.force is false")
	configMapValue(t, m, ns, "settings", "edited")
	updateSpec(t, c, b, func(s *placementv1beta1.ResourceBindingSpec) {
		s.ApplyStrategy.ServerSideApplyConfig = &placementv1beta1.ServerSideApplyConfig{ForceConflicts: true}
	})
	waitFor(t, c, b, "available with force", appliedAndAvailable(s0, placementv1beta1.AllWorkAvailableReason))
	configMapValue(t, m, ns, "settings", "one")

	// ReportDiff applies nothing and lists the differences.
	editConfigMap(t, m, ns, "settings", "edited")
	updateSpec(t, c, b, func(spec *placementv1beta1.ResourceBindingSpec) {
		spec.ApplyStrategy = &placementv1beta1.ApplyStrategy{Type: placementv1beta1.ApplyStrategyTypeReportDiff}
	})
	waitFor(t, c, b, "differences reported", func(placementv1beta1.BindingObj) error {
		if err := condition(b, placementv1beta1.BindingDiffReportedCondition, metav1.ConditionTrue, placementv1beta1.AllWorkDiffReportedReason); err != nil {
			return err
		}
		if meta.FindStatusCondition(b.Status.Conditions, placementv1beta1.BindingAppliedCondition) != nil {
			return fmt.Errorf("Applied is still there")
		}
		want := placementv1beta1.PatchDetail{Path: "/data/key", ValueInMember: `"edited"`, ValueInHub: `"one"`}
		if d := b.Status.DiffedPlacements; len(d) != 1 || d[0].Name != "settings" || len(d[0].ObservedDiffs) != 1 || d[0].ObservedDiffs[0] != want {
			return fmt.Errorf("diffedPlacements %+v, want settings with %+v", d, want)
		}
		return nil
	})
	configMapValue(t, m, ns, "settings", "edited")

	// FullComparison sees a field no manifest sets: with IfNotDrifted the object is left alone.
	for _, when := range []placementv1beta1.WhenToApplyType{placementv1beta1.WhenToApplyTypeAlways, placementv1beta1.WhenToApplyTypeIfNotDrifted} {
		updateSpec(t, c, b, func(spec *placementv1beta1.ResourceBindingSpec) {
			spec.ApplyStrategy = &placementv1beta1.ApplyStrategy{ComparisonOption: placementv1beta1.ComparisonOptionTypeFullComparison, WhenToApply: when}
		})
		waitFor(t, c, b, "available again", appliedAndAvailable(s0, placementv1beta1.AllWorkAvailableReason))
	}
	configMapValue(t, m, ns, "settings", "one")
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cm := &corev1.ConfigMap{}
		if err := m.Get(ctx, client.ObjectKey{Namespace: ns, Name: "settings"}, cm); err != nil {
			return err
		}
		cm.Data["extra"] = "local"
		return m.Update(ctx, cm, client.FieldOwner("someone"))
	})
	refused(t, c, b, "settings", "was changed on the cluster since it was applied", `- data.extra: "local"`)
	deleteAndWait(t, c, b)
	gone(t, m, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
}

// TestAbandon deletes a placement whose deleteStrategy is Abandon: its binding goes and the
// placed resources stay on the member cluster.
func TestAbandon(t *testing.T) {
	c := startController(t)
	m := member(t, "member1")
	const p, ns = "abandon", "abandon-ns"
	placement := &placementv1beta1.ClusterResourcePlacement{
		ObjectMeta: metav1.ObjectMeta{Name: p, Finalizers: []string{"example.com/test"}},
		Spec: placementv1beta1.PlacementSpec{
			ResourceSelectors: []placementv1beta1.ResourceSelectorTerm{{Version: "v1", Kind: "Namespace", Name: ns}},
			Strategy: placementv1beta1.RolloutStrategy{
				DeleteStrategy: &placementv1beta1.DeleteStrategy{PropagationPolicy: placementv1beta1.DeletePropagationPolicyAbandon},
			},
		},
	}
	create(t, c, placement)
	s0 := clusterSnapshot(t, c, p, 0, -1, 1, namespace(ns), configMap(ns, "settings", "one"))
	b := &placementv1beta1.ClusterResourceBinding{ObjectMeta: bindingMeta("", p, "member1"), Spec: boundSpec("member1", s0)}
	create(t, c, b)
	waitFor(t, c, b, "available", appliedAndAvailable(s0, placementv1beta1.AllWorkAvailableReason))

	// The placement is going (its test finalizer holds it): its binding goes without withdrawing.
	if err := c.Delete(t.Context(), placement); err != nil {
		t.Fatal(err)
	}
	deleteAndWait(t, c, b)
	expectEvent(t, c, b, reasonAbandoned)
	configMapValue(t, m, ns, "settings", "one")
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(placement), placement); err != nil {
			return err
		}
		placement.Finalizers = nil
		return c.Update(ctx, placement)
	})
}

// TestReportDiffBadEnvelope: with apply type ReportDiff, a snapshot that cannot be opened (an
// envelope carrying what it may not) ends as DiffReported False, the envelope's object in
// failedPlacements at the binding's generation, and a Warning Event.
func TestReportDiffBadEnvelope(t *testing.T) {
	c := startController(t)
	const p, ns = "diff-envelope", "diff-envelope-ns"
	s0 := clusterSnapshot(t, c, p, 0, -1, 1, namespace(ns),
		`{apiVersion: placement.kubernetes-fleet.io/v1beta1, kind: ClusterResourceEnvelope, metadata: {name: diff-envelope},
		  data: {q.yaml: {apiVersion: v1, kind: ResourceQuota, metadata: {name: q, namespace: diff-envelope-ns}}}}`)
	spec := boundSpec("member1", s0)
	spec.ApplyStrategy = &placementv1beta1.ApplyStrategy{Type: placementv1beta1.ApplyStrategyTypeReportDiff}
	b := &placementv1beta1.ClusterResourceBinding{ObjectMeta: bindingMeta("", p, "member1"), Spec: spec}
	create(t, c, b)
	waitFor(t, c, b, "differences not reported", func(placementv1beta1.BindingObj) error {
		if err := condition(b, placementv1beta1.BindingDiffReportedCondition, metav1.ConditionFalse, placementv1beta1.WorkNotDiffReportedReason); err != nil {
			return err
		}
		f := b.Status.FailedPlacements
		if len(f) != 1 || f[0].Kind != "ResourceQuota" || f[0].Envelope == nil || f[0].Condition.ObservedGeneration != b.Generation {
			return fmt.Errorf("failedPlacements %+v, want the quota in its envelope at generation %d", f, b.Generation)
		}
		return nil
	})
	expectEvent(t, c, b, reasonDiffNotReported)
	deleteAndWait(t, c, b)
}
