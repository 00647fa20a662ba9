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

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// appliedFalseSaying expects Applied=False, reason NotAllWorkHaveBeenApplied, with a message
// containing want.
func appliedFalseSaying(want string) func(placementv1beta1.BindingObj) error {
	return func(b placementv1beta1.BindingObj) error {
		if err := condition(b, placementv1beta1.BindingAppliedCondition, metav1.ConditionFalse, placementv1beta1.WorkNotAppliedReason); err != nil {
			return err
		}
		st := b.BindingStatus()
		if msg := meta.FindStatusCondition(st.Conditions, placementv1beta1.BindingAppliedCondition).Message; !strings.Contains(msg, want) {
			return fmt.Errorf("message %q does not say %q", msg, want)
		}
		return nil
	}
}

// TestUnreachableCluster stops a member's API server under a binding: the binding says the
// cluster cannot be reached, and applies once it is back.
func TestUnreachableCluster(t *testing.T) {
	c := startController(t)
	const p, ns = "outage", "outage-ns"
	s0 := clusterSnapshot(t, c, p, 0, -1, 1, namespace(ns), configMap(ns, "settings", "one"))
	s1 := clusterSnapshot(t, c, p, 1, -1, 1, namespace(ns), configMap(ns, "settings", "two"))
	b := &placementv1beta1.ClusterResourceBinding{ObjectMeta: bindingMeta("", p, "member2"), Spec: boundSpec("member2", s0)}
	create(t, c, b)
	waitFor(t, c, b, "available", appliedAndAvailable(s0, placementv1beta1.AllWorkAvailableReason))

	if err := sandbox.Kill(testenv.Fleet.Dir, "member2-kube-apiserver"); err != nil {
		t.Fatal(err)
	}
	recovered := false
	t.Cleanup(func() {
		if !recovered {
			testenv.Recover(t)
		}
	})
	updateSpec(t, c, b, func(s *placementv1beta1.ResourceBindingSpec) { s.ResourceSnapshotName = s1 })
	waitFor(t, c, b, "unreachable", appliedFalseSaying("MemberCluster member2: cannot reach https://"))
	t.Logf("while down: %s", meta.FindStatusCondition(b.Status.Conditions, placementv1beta1.BindingAppliedCondition).Message)

	testenv.Recover(t)
	recovered = true
	waitFor(t, c, b, "available after the outage", appliedAndAvailable(s1, placementv1beta1.AllWorkAvailableReason))
	configMapValue(t, member(t, "member2"), ns, "settings", "two")
	deleteAndWait(t, c, b)
}

// TestMemberClusterNotJoined holds a binding while its MemberCluster reports Joined=False, and
// applies it when the cluster joins again.
func TestMemberClusterNotJoined(t *testing.T) {
	c := startController(t)
	const p, ns = "joined", "joined-ns"
	setJoined(t, c, "member1", metav1.ConditionFalse, "cannot reach the API server (set by the test)")
	t.Cleanup(func() { setJoined(t, c, "member1", metav1.ConditionTrue, "") })
	s0 := clusterSnapshot(t, c, p, 0, -1, 1, namespace(ns), configMap(ns, "settings", "one"))
	b := &placementv1beta1.ClusterResourceBinding{ObjectMeta: bindingMeta("", p, "member1"), Spec: boundSpec("member1", s0)}
	create(t, c, b)
	waitFor(t, c, b, "held", appliedFalseSaying("MemberCluster member1 has not joined: cannot reach the API server (set by the test)"))

	setJoined(t, c, "member1", metav1.ConditionTrue, "")
	waitFor(t, c, b, "available", appliedAndAvailable(s0, placementv1beta1.AllWorkAvailableReason))
	configMapValue(t, member(t, "member1"), ns, "settings", "one")
	deleteAndWait(t, c, b)
}

// setJoined writes a MemberCluster's Joined condition, standing in for the MemberCluster
// controller, which this test does not run.
func setJoined(t *testing.T, c client.Client, name string, status metav1.ConditionStatus, msg string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		mc := &clusterv1beta1.MemberCluster{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, mc); err != nil {
			return err
		}
		meta.SetStatusCondition(&mc.Status.Conditions, metav1.Condition{
			Type: string(clusterv1beta1.ConditionTypeMemberClusterJoined), Status: status, Reason: "SetByTest", Message: msg,
			ObservedGeneration: mc.Generation,
		})
		return c.Status().Update(ctx, mc)
	})
}

// TestResourceBinding follows the namespace-scoped walkthrough of seed 004: a ResourcePlacement's
// Deployment and Service reach a member, whose namespace is created for them, then a new image,
// then the placement becomes External and the Unscheduled binding keeps its cluster's resources
// until it is deleted.
func TestResourceBinding(t *testing.T) {
	c := startController(t)
	m := member(t, "member1")
	const ns, p = "my-app-namespace", "web-app-placement"
	create(t, c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	s0 := namespacedSnapshot(t, c, ns, p, 0, deployment(ns, "web-app", "nginx:1.20", true), service(ns, "web-app"))
	s1 := namespacedSnapshot(t, c, ns, p, 1, deployment(ns, "web-app", "nginx:1.21", true), service(ns, "web-app"))

	b := &placementv1beta1.ResourceBinding{ObjectMeta: bindingMeta(ns, p, "member1"), Spec: boundSpec("member1", s0)}
	create(t, c, b)
	waitFor(t, c, b, "available on snapshot 0", appliedAndAvailable(s0, placementv1beta1.AllWorkAvailableReason))
	if err := deploymentAvailable(t.Context(), m, ns, "web-app"); err != nil {
		t.Fatalf("the binding is Available but: %v", err)
	}

	updateSpec(t, c, b, func(s *placementv1beta1.ResourceBindingSpec) { s.ResourceSnapshotName = s1 })
	waitFor(t, c, b, "available on snapshot 1", appliedAndAvailable(s1, placementv1beta1.AllWorkAvailableReason))
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := deploymentAvailable(ctx, m, ns, "web-app"); err != nil {
			return err
		}
		d := &appsv1.Deployment{}
		if err := m.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web-app"}, d); err != nil {
			return err
		}
		if img := d.Spec.Template.Spec.Containers[0].Image; img != "nginx:1.21" {
			return fmt.Errorf("image %s", img)
		}
		return nil
	})

	// A ResourceSnapshot reaching outside its namespace is refused, whoever wrote it.
	outside := namespacedSnapshot(t, c, ns, p, 2, configMap("kube-system", "planted", "x"))
	clusterWide := namespacedSnapshot(t, c, ns, p, 3, `{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: planted}, rules: []}`)
	updateSpec(t, c, b, func(s *placementv1beta1.ResourceBindingSpec) { s.ResourceSnapshotName = outside })
	waitFor(t, c, b, "refused: another namespace", appliedFalseSaying("ConfigMap kube-system/planted (from ResourceSnapshot my-app-namespace/web-app-placement-2-snapshot item 1) is in another namespace"))
	updateSpec(t, c, b, func(s *placementv1beta1.ResourceBindingSpec) { s.ResourceSnapshotName = clusterWide })
	waitFor(t, c, b, "refused: cluster-scoped", appliedFalseSaying("ClusterRole planted (from ResourceSnapshot my-app-namespace/web-app-placement-3-snapshot item 1) is cluster-scoped"))
	if err := deploymentAvailable(t.Context(), m, ns, "web-app"); err != nil {
		t.Fatalf("the refused snapshots removed the Deployment: %v", err)
	}
	updateSpec(t, c, b, func(s *placementv1beta1.ResourceBindingSpec) { s.ResourceSnapshotName = s1 })
	waitFor(t, c, b, "available on snapshot 1 again", appliedAndAvailable(s1, placementv1beta1.AllWorkAvailableReason))

	rp := &placementv1beta1.ResourcePlacement{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: p}}
	rp.Spec.ResourceSelectors = []placementv1beta1.ResourceSelectorTerm{{Group: "apps", Version: "v1", Kind: "Deployment", Name: "web-app"}}
	rp.Spec.Strategy.Type = placementv1beta1.ExternalRolloutStrategyType
	create(t, c, rp)
	updateSpec(t, c, b, func(s *placementv1beta1.ResourceBindingSpec) { s.State = placementv1beta1.BindingStateUnscheduled })
	waitFor(t, c, b, "kept while Unscheduled", appliedAndAvailable(s1, placementv1beta1.AllWorkAvailableReason))
	if err := deploymentAvailable(t.Context(), m, ns, "web-app"); err != nil {
		t.Fatalf("an External placement's Unscheduled binding lost its resources: %v", err)
	}

	deleteAndWait(t, c, b)
	gone(t, m, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-app"}})
	gone(t, m, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-app"}})
}
