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
	"net"
	"os"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	inventoryv1alpha1 "github.com/stagecoach-dev/stagecoach/api/inventory/v1alpha1"
	"github.com/stagecoach-dev/stagecoach/internal/registration"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// profileState waits until the ClusterProfile namespace/name exists, is Stagecoach's, and its
// ControlPlaneHealthy condition has the status; it returns the profile.
func profileState(t *testing.T, namespace, name string, healthy metav1.ConditionStatus) *inventoryv1alpha1.ClusterProfile {
	t.Helper()
	p := &inventoryv1alpha1.ClusterProfile{}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := testenv.Client(t).Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, p); err != nil {
			return err
		}
		if p.Spec.ClusterManager.Name != "Stagecoach" || p.Labels[inventoryv1alpha1.ClusterManagerLabel] != "Stagecoach" || p.Spec.DisplayName != name {
			return fmt.Errorf("not Stagecoach's: %+v %v", p.Spec, p.Labels)
		}
		c := meta.FindStatusCondition(p.Status.Conditions, inventoryv1alpha1.ControlPlaneHealthyCondition)
		if c == nil || c.Status != healthy {
			return fmt.Errorf("ClusterProfile %s/%s: ControlPlaneHealthy %+v, want %s", namespace, name, c, healthy)
		}
		return nil
	})
	return p
}

// deadKubeconfig is the kubeconfig of member1 with its server moved to a loopback port nothing
// listens on.
func deadKubeconfig(t *testing.T) []byte {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	cfg, err := clientcmd.LoadFromFile(testenv.Fleet.Managed[0].Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cfg.Clusters {
		c.Server = "https://" + addr
	}
	out, err := clientcmd.Write(*cfg)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestClusterInventory: every registered cluster, as MemberCluster and as SveltosCluster, has
// its Cluster Inventory ClusterProfile, whose health follows the cluster's and which goes with
// the cluster.
func TestClusterInventory(t *testing.T) {
	for _, m := range members {
		p := profileState(t, "default", m, metav1.ConditionTrue)
		if !meta.IsStatusConditionTrue(p.Status.Conditions, "Joined") || p.Status.Version.Kubernetes == "" {
			t.Errorf("MemberCluster %s's profile: %+v", m, p.Status)
		}
		found := false
		for _, prop := range p.Status.Properties {
			found = found || (prop.Name == "k8s.io/k8s-version" && prop.Value == p.Status.Version.Kubernetes)
		}
		if !found {
			t.Errorf("MemberCluster %s's profile lacks the version property: %+v", m, p.Status.Properties)
		}
		if p := profileState(t, m, m, metav1.ConditionTrue); p.Status.Version.Kubernetes == "" {
			t.Errorf("SveltosCluster %s/%s's profile has no version", m, m)
		}
	}

	// A cluster registered now, healthy, then its API server out of reach.
	const name = "inventory-probe"
	kubeconfig, err := os.ReadFile(testenv.Fleet.Managed[0].Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c := testenv.Client(t)
	reg := registration.Cluster{Namespace: name, Name: name, Kubeconfig: kubeconfig, Member: true, Manager: "inventory-test", CreateNamespace: true}
	if err := registration.Register(t.Context(), c, reg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = registration.Unregister(context.Background(), c, name, name) })
	profileState(t, "default", name, metav1.ConditionTrue)
	profileState(t, name, name, metav1.ConditionTrue)

	reg.Kubeconfig = deadKubeconfig(t)
	if err := registration.Register(t.Context(), c, reg); err != nil {
		t.Fatal(err)
	}
	if p := profileState(t, "default", name, metav1.ConditionFalse); meta.FindStatusCondition(p.Status.Conditions,
		inventoryv1alpha1.ControlPlaneHealthyCondition).Reason != "MemberClusterAPIServerUnhealthy" {
		t.Errorf("MemberCluster's profile: %+v", p.Status.Conditions)
	}
	if p := profileState(t, name, name, metav1.ConditionFalse); meta.FindStatusCondition(p.Status.Conditions,
		inventoryv1alpha1.ControlPlaneHealthyCondition).Reason != "SveltosClusterAPIServerUnhealthy" {
		t.Errorf("SveltosCluster's profile: %+v", p.Status.Conditions)
	}

	if _, err := registration.Unregister(t.Context(), c, name, name); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		for _, key := range []client.ObjectKey{{Namespace: "default", Name: name}, {Namespace: name, Name: name}} {
			if err := c.Get(ctx, key, &inventoryv1alpha1.ClusterProfile{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("ClusterProfile %s still there (%v)", key, err)
			}
		}
		return nil
	})
}

// TestClusterInventoryLeavesOthersProfiles: a ClusterProfile of the cluster's name that another
// cluster manager made is not taken over; an Event on the cluster says why it is not published.
func TestClusterInventoryLeavesOthersProfiles(t *testing.T) {
	const name = "inventory-foreign"
	c := testenv.Client(t)
	foreign := &inventoryv1alpha1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name,
		Labels: map[string]string{inventoryv1alpha1.ClusterManagerLabel: "OtherManager"}},
		Spec: inventoryv1alpha1.ClusterProfileSpec{DisplayName: "theirs", ClusterManager: inventoryv1alpha1.ClusterManager{Name: "OtherManager"}}}
	createAll(t, foreign)
	kubeconfig, err := os.ReadFile(testenv.Fleet.Managed[0].Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	reg := registration.Cluster{Namespace: name, Name: name, Kubeconfig: kubeconfig, Member: true, Manager: "inventory-test", CreateNamespace: true}
	if err := registration.Register(t.Context(), c, reg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = registration.Unregister(context.Background(), c, name, name) })
	profileState(t, name, name, metav1.ConditionTrue) // the SveltosCluster's, in its own namespace

	mc := &clusterv1beta1.MemberCluster{}
	if err := c.Get(t.Context(), client.ObjectKey{Name: name}, mc); err != nil {
		t.Fatal(err)
	}
	ev := testenv.ExpectEvent(t, timeout, c, mc, "ClusterProfileNotPublished")
	if want := "ClusterProfile default/inventory-foreign exists and belongs to OtherManager: this MemberCluster is not published"; ev.Note != want {
		t.Errorf("Event %q, want %q", ev.Note, want)
	}
	got := &inventoryv1alpha1.ClusterProfile{}
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(foreign), got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.DisplayName != "theirs" || len(got.Status.Conditions) != 0 || len(got.OwnerReferences) != 0 {
		t.Errorf("the other manager's profile changed: %+v", got)
	}
}
