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
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// configMapValue waits until a ConfigMap on a member cluster holds value.
func configMapValue(t *testing.T, c client.Client, ns, name, value string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cm := &corev1.ConfigMap{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cm); err != nil {
			return err
		}
		if cm.Data["key"] != value {
			return fmt.Errorf("ConfigMap %s/%s key=%q, want %q", ns, name, cm.Data["key"], value)
		}
		return nil
	})
}

// deploymentAvailable reports whether a Deployment on a member cluster is available by
// Kubefleet's rule.
func deploymentAvailable(ctx context.Context, c client.Client, ns, name string) error {
	d := &appsv1.Deployment{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, d); err != nil {
		return err
	}
	st := d.Status
	if st.ObservedGeneration != d.Generation || st.AvailableReplicas != *d.Spec.Replicas || st.UpdatedReplicas != *d.Spec.Replicas {
		return fmt.Errorf("Deployment %s/%s is not available: %+v", ns, name, st)
	}
	return nil
}

// TestAppliesUpdatesPrunesAndWithdraws follows one ClusterResourceBinding through snapshots:
// a Deployment that cannot run keeps it unavailable, the next snapshot makes it available, one
// without the Deployment prunes it, a rollback brings it back, and deletion withdraws it all.
func TestAppliesUpdatesPrunesAndWithdraws(t *testing.T) {
	c := startController(t)
	m := member(t, "member1")
	const p, ns = "rollout", "rollout-ns"
	s0 := clusterSnapshot(t, c, p, 0, -1, 1, namespace(ns), configMap(ns, "settings", "one"), deployment(ns, "web", "nginx:1.20", false))
	s1 := clusterSnapshot(t, c, p, 1, -1, 1, namespace(ns), configMap(ns, "settings", "two"), deployment(ns, "web", "nginx:1.21", true))
	s2 := clusterSnapshot(t, c, p, 2, -1, 1, namespace(ns), configMap(ns, "settings", "three"))

	b := &placementv1beta1.ClusterResourceBinding{ObjectMeta: bindingMeta("", p, "member1"), Spec: boundSpec("member1", s0)}
	create(t, c, b)
	waitFor(t, c, b, "applied, Deployment not available", func(placementv1beta1.BindingObj) error {
		if err := condition(b, placementv1beta1.BindingAppliedCondition, metav1.ConditionTrue, placementv1beta1.AllWorkAppliedReason); err != nil {
			return err
		}
		if err := condition(b, placementv1beta1.BindingAvailableCondition, metav1.ConditionFalse, placementv1beta1.WorkNotAvailableReason); err != nil {
			return err
		}
		if len(b.Status.FailedPlacements) != 1 {
			return fmt.Errorf("failedPlacements %+v, want the Deployment", b.Status.FailedPlacements)
		}
		f := b.Status.FailedPlacements[0]
		if f.Kind != "Deployment" || f.Group != "apps" || f.Namespace != ns || f.Name != "web" ||
			f.Condition.Type != placementv1beta1.BindingAvailableCondition || f.Condition.Reason != placementv1beta1.ManifestNotAvailableYetReason {
			return fmt.Errorf("failedPlacements %+v", b.Status.FailedPlacements)
		}
		return nil
	})
	if !controllerutil.ContainsFinalizer(b, placementv1beta1.BindingFinalizer) || b.Status.ObservedResourceSnapshotName != s0 {
		t.Errorf("finalizers %v, observedResourceSnapshotName %q", b.Finalizers, b.Status.ObservedResourceSnapshotName)
	}
	if c := meta.FindStatusCondition(b.Status.Conditions, placementv1beta1.BindingRolloutStartedCondition); c != nil {
		t.Errorf("the binding controller wrote RolloutStarted: %+v", c)
	}
	configMapValue(t, m, ns, "settings", "one")

	// The next snapshot lets the Deployment run: Available only once the member says it is.
	updateSpec(t, c, b, func(s *placementv1beta1.ResourceBindingSpec) { s.ResourceSnapshotName = s1 })
	waitFor(t, c, b, "available on snapshot 1", appliedAndAvailable(s1, placementv1beta1.AllWorkAvailableReason))
	if err := deploymentAvailable(t.Context(), m, ns, "web"); err != nil {
		t.Fatalf("the binding is Available but: %v", err)
	}
	configMapValue(t, m, ns, "settings", "two")
	expectEvent(t, c, b, reasonAvailable)

	// A snapshot without the Deployment prunes it.
	updateSpec(t, c, b, func(s *placementv1beta1.ResourceBindingSpec) { s.ResourceSnapshotName = s2 })
	waitFor(t, c, b, "available on snapshot 2", appliedAndAvailable(s2, placementv1beta1.AllWorkAvailableReason))
	gone(t, m, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}})
	configMapValue(t, m, ns, "settings", "three")

	// Rolling back to snapshot 1 brings it back.
	updateSpec(t, c, b, func(s *placementv1beta1.ResourceBindingSpec) { s.ResourceSnapshotName = s1 })
	waitFor(t, c, b, "available on snapshot 1 again", appliedAndAvailable(s1, placementv1beta1.AllWorkAvailableReason))
	if err := deploymentAvailable(t.Context(), m, ns, "web"); err != nil {
		t.Fatalf("the binding is Available but: %v", err)
	}
	configMapValue(t, m, ns, "settings", "two")

	// Deleting the binding withdraws everything, the Namespace of the snapshot included.
	deleteAndWait(t, c, b)
	gone(t, m, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
}

// TestSnapshotGroupAndUnscheduled applies a group of three snapshots whole, once all of them
// exist, then withdraws it when the binding becomes Unscheduled (its placement, absent here, is
// not External).
func TestSnapshotGroupAndUnscheduled(t *testing.T) {
	c := startController(t)
	m := member(t, "member2")
	const p, ns = "group", "group-ns"
	first := clusterSnapshot(t, c, p, 0, -1, 3, namespace(ns), configMap(ns, "a", "from-first"))
	b := &placementv1beta1.ClusterResourceBinding{ObjectMeta: bindingMeta("", p, "member2"), Spec: boundSpec("member2", first)}
	create(t, c, b)
	waitFor(t, c, b, "waiting for the group", func(placementv1beta1.BindingObj) error {
		if err := condition(b, placementv1beta1.BindingAppliedCondition, metav1.ConditionFalse, placementv1beta1.WorkApplyInProcessReason); err != nil {
			return err
		}
		if msg := meta.FindStatusCondition(b.Status.Conditions, placementv1beta1.BindingAppliedCondition).Message; !strings.Contains(msg, "1 of 3 exist") {
			return fmt.Errorf("message %q", msg)
		}
		return nil
	})
	// The other two arrive, out of order.
	clusterSnapshot(t, c, p, 0, 1, 0, configMap(ns, "c", "from-second-sub"))
	clusterSnapshot(t, c, p, 0, 0, 0, configMap(ns, "b", "from-first-sub"))
	waitFor(t, c, b, "available", appliedAndAvailable(first, placementv1beta1.AllWorkAvailableReason))
	if msg := meta.FindStatusCondition(b.Status.Conditions, placementv1beta1.BindingAppliedCondition).Message; !strings.HasPrefix(msg, "4 resources") {
		t.Errorf("Applied message %q, want 4 resources", msg)
	}
	configMapValue(t, m, ns, "a", "from-first")
	configMapValue(t, m, ns, "b", "from-first-sub")
	configMapValue(t, m, ns, "c", "from-second-sub")

	updateSpec(t, c, b, func(s *placementv1beta1.ResourceBindingSpec) { s.State = placementv1beta1.BindingStateUnscheduled })
	waitFor(t, c, b, "withdrawn", func(placementv1beta1.BindingObj) error {
		if controllerutil.ContainsFinalizer(b, placementv1beta1.BindingFinalizer) {
			return fmt.Errorf("finalizer still there")
		}
		if len(b.Status.Conditions) > 0 || b.Status.ObservedResourceSnapshotName != "" {
			return fmt.Errorf("status still says what was applied: %+v", b.Status)
		}
		return nil
	})
	gone(t, m, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	if b.Spec.State != placementv1beta1.BindingStateUnscheduled || b.Spec.ResourceSnapshotName != first {
		t.Errorf("the controller changed the spec: %+v", b.Spec)
	}
	deleteAndWait(t, c, b)
}

// TestBadInputKeepsWhatIsDeployed binds snapshots that cannot be applied: each is reported in
// words, and what the cluster runs stays.
func TestBadInputKeepsWhatIsDeployed(t *testing.T) {
	c := startController(t)
	m := member(t, "member1")
	const p, ns = "bad", "bad-ns"
	good := clusterSnapshot(t, c, p, 0, -1, 1, namespace(ns), configMap(ns, "settings", "one"))
	widget := `{apiVersion: example.com/v1, kind: Widget, metadata: {name: w, namespace: bad-ns}, spec: {size: 3}}`
	unknownKind := clusterSnapshot(t, c, p, 1, -1, 1, namespace(ns), configMap(ns, "settings", "two"), widget)
	b := &placementv1beta1.ClusterResourceBinding{ObjectMeta: bindingMeta("", p, "member1"), Spec: boundSpec("member1", good)}
	create(t, c, b)
	waitFor(t, c, b, "available", appliedAndAvailable(good, placementv1beta1.AllWorkAvailableReason))

	notApplied := func(snapshot string, wants ...string) func(placementv1beta1.BindingObj) error {
		return func(placementv1beta1.BindingObj) error {
			if err := condition(b, placementv1beta1.BindingAppliedCondition, metav1.ConditionFalse, placementv1beta1.WorkNotAppliedReason); err != nil {
				return err
			}
			msg := meta.FindStatusCondition(b.Status.Conditions, placementv1beta1.BindingAppliedCondition).Message
			for _, want := range wants {
				if !strings.Contains(msg, want) {
					return fmt.Errorf("message %q does not say %q", msg, want)
				}
			}
			if meta.FindStatusCondition(b.Status.Conditions, placementv1beta1.BindingAvailableCondition) != nil {
				return fmt.Errorf("Available is still reported while nothing is applied")
			}
			if b.Status.ObservedResourceSnapshotName != snapshot {
				return fmt.Errorf("observedResourceSnapshotName %q", b.Status.ObservedResourceSnapshotName)
			}
			return nil
		}
	}

	updateSpec(t, c, b, func(s *placementv1beta1.ResourceBindingSpec) { s.ResourceSnapshotName = unknownKind })
	waitFor(t, c, b, "not applied: unknown kind", notApplied(unknownKind,
		"Widget bad-ns/w (from ClusterResourceSnapshot bad-1-snapshot item 3)", "the cluster serves no kind Widget in example.com/v1"))
	if len(b.Status.FailedPlacements) != 1 || b.Status.FailedPlacements[0].Kind != "Widget" || b.Status.FailedPlacements[0].Group != "example.com" ||
		b.Status.FailedPlacements[0].Condition.Reason != placementv1beta1.ManifestApplyFailedReason {
		t.Errorf("failedPlacements %+v, want the Widget", b.Status.FailedPlacements)
	}
	configMapValue(t, m, ns, "settings", "one")
	expectEvent(t, c, b, reasonApplyFailed)

	// A snapshot that does not exist, and one that does not start a group.
	updateSpec(t, c, b, func(s *placementv1beta1.ResourceBindingSpec) { s.ResourceSnapshotName = "bad-7-snapshot" })
	waitFor(t, c, b, "not applied: missing snapshot", notApplied("bad-7-snapshot", "ClusterResourceSnapshot bad-7-snapshot does not exist"))
	sub := clusterSnapshot(t, c, p, 2, 0, 0, configMap(ns, "settings", "three"))
	updateSpec(t, c, b, func(s *placementv1beta1.ResourceBindingSpec) { s.ResourceSnapshotName = sub })
	waitFor(t, c, b, "not applied: not a first snapshot", notApplied(sub, "is not the first snapshot of a group"))
	configMapValue(t, m, ns, "settings", "one")

	// Fixed input applies again.
	fixed := clusterSnapshot(t, c, p, 3, -1, 1, namespace(ns), configMap(ns, "settings", "four"))
	updateSpec(t, c, b, func(s *placementv1beta1.ResourceBindingSpec) { s.ResourceSnapshotName = fixed })
	waitFor(t, c, b, "available once fixed", appliedAndAvailable(fixed, placementv1beta1.AllWorkAvailableReason))
	configMapValue(t, m, ns, "settings", "four")
	deleteAndWait(t, c, b)
}

// expectEvent waits for an event with reason about the binding.
func expectEvent(t *testing.T, c client.Client, b placementv1beta1.BindingObj, reason string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		var list eventsv1.EventList
		if err := c.List(ctx, &list); err != nil {
			return err
		}
		var seen []string
		for _, e := range list.Items {
			if e.Regarding.UID == b.GetUID() {
				if e.Reason == reason {
					return nil
				}
				seen = append(seen, e.Reason)
			}
		}
		return fmt.Errorf("no %s event about %s, only %v", reason, b.GetName(), slices.Compact(seen))
	})
}

// TestDriftIsReverted changes and deletes applied objects on the member: the periodic apply
// puts them back.
func TestDriftIsReverted(t *testing.T) {
	c := startController(t, func(o *Options) { o.ResyncInterval = time.Second })
	m := member(t, "member2")
	const p, ns = "drift", "drift-ns"
	s0 := clusterSnapshot(t, c, p, 0, -1, 1, namespace(ns), configMap(ns, "settings", "one"), deployment(ns, "web", "nginx:1.20", true))
	b := &placementv1beta1.ClusterResourceBinding{ObjectMeta: bindingMeta("", p, "member2"), Spec: boundSpec("member2", s0)}
	create(t, c, b)
	waitFor(t, c, b, "available", appliedAndAvailable(s0, placementv1beta1.AllWorkAvailableReason))

	cm := &corev1.ConfigMap{}
	if err := m.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "settings"}, cm); err != nil {
		t.Fatal(err)
	}
	cm.Data["key"] = "changed-on-the-member"
	if err := m.Update(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	configMapValue(t, m, ns, "settings", "one")

	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}}
	if err := m.Delete(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := m.Get(ctx, client.ObjectKeyFromObject(d), d); err != nil {
			return err
		}
		if !d.DeletionTimestamp.IsZero() {
			return fmt.Errorf("the old Deployment is still being deleted")
		}
		return deploymentAvailable(ctx, m, ns, "web")
	})
	waitFor(t, c, b, "available again", appliedAndAvailable(s0, placementv1beta1.AllWorkAvailableReason))
	deleteAndWait(t, c, b)
}

// TestHandOverToAnotherBinding deletes a binding while another Bound binding of the same
// placement targets the same cluster: the resources stay, managed by the other one.
func TestHandOverToAnotherBinding(t *testing.T) {
	c := startController(t)
	m := member(t, "member1")
	const p, ns = "handover", "handover-ns"
	s0 := clusterSnapshot(t, c, p, 0, -1, 1, namespace(ns), configMap(ns, "settings", "one"))
	s1 := clusterSnapshot(t, c, p, 1, -1, 1, namespace(ns), configMap(ns, "settings", "two"))
	old := &placementv1beta1.ClusterResourceBinding{ObjectMeta: bindingMeta("", p, "member1"), Spec: boundSpec("member1", s0)}
	create(t, c, old)
	waitFor(t, c, old, "available", appliedAndAvailable(s0, placementv1beta1.AllWorkAvailableReason))

	successor := &placementv1beta1.ClusterResourceBinding{ObjectMeta: bindingMeta("", p, "member1-new"), Spec: boundSpec("member1", s1)}
	create(t, c, successor)
	waitFor(t, c, successor, "available", appliedAndAvailable(s1, placementv1beta1.AllWorkAvailableReason))
	deleteAndWait(t, c, old)
	configMapValue(t, m, ns, "settings", "two")

	deleteAndWait(t, c, successor)
	gone(t, m, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
}

// TestConditionsRestored has another controller write RolloutStarted by replacing the whole
// condition list, dropping Applied and Available: they come back at once, RolloutStarted stays.
func TestConditionsRestored(t *testing.T) {
	c := startController(t, func(o *Options) { o.ResyncInterval = time.Hour })
	const p, ns = "clobber", "clobber-ns"
	s0 := clusterSnapshot(t, c, p, 0, -1, 1, namespace(ns), configMap(ns, "settings", "one"))
	b := &placementv1beta1.ClusterResourceBinding{ObjectMeta: bindingMeta("", p, "member1"), Spec: boundSpec("member1", s0)}
	create(t, c, b)
	waitFor(t, c, b, "available", appliedAndAvailable(s0, placementv1beta1.AllWorkAvailableReason))

	base := b.DeepCopy()
	b.Status.Conditions = []metav1.Condition{{
		Type: placementv1beta1.BindingRolloutStartedCondition, Status: metav1.ConditionTrue, Reason: placementv1beta1.RolloutStartedReason,
		ObservedGeneration: b.Generation, LastTransitionTime: metav1.Now(),
	}}
	if err := c.Status().Patch(t.Context(), b, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, c, b, "conditions restored", func(placementv1beta1.BindingObj) error {
		if err := condition(b, placementv1beta1.BindingRolloutStartedCondition, metav1.ConditionTrue, placementv1beta1.RolloutStartedReason); err != nil {
			return err
		}
		return appliedAndAvailable(s0, placementv1beta1.AllWorkAvailableReason)(b)
	})
	deleteAndWait(t, c, b)
}
