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

package e2e

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/registration"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// registerTenantCluster registers a sandbox cluster a second time, as namespace/name, so that a
// tenant's namespace has clusters of its own without moving the clusters other tests use. It is
// unregistered when the test ends, after the profiles (cleanups run last first).
func registerTenantCluster(t *testing.T, namespace, name, sandboxCluster string, labels map[string]string) {
	t.Helper()
	var kubeconfig []byte
	for _, c := range testenv.Fleet.Managed {
		if c.Name == sandboxCluster {
			var err error
			if kubeconfig, err = os.ReadFile(c.Kubeconfig); err != nil {
				t.Fatal(err)
			}
		}
	}
	c := testenv.Client(t)
	err := registration.Register(t.Context(), c, registration.Cluster{Namespace: namespace, Name: name, Labels: labels,
		Kubeconfig: kubeconfig, Manager: "e2e-profile", CreateNamespace: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := registration.Unregister(context.Background(), c, namespace, name); client.IgnoreNotFound(err) != nil {
			t.Errorf("unregistering %s/%s: %v", namespace, name, err)
		}
	})
	if err := registration.WaitReady(t.Context(), c, namespace, name, timeout); err != nil {
		t.Fatal(err)
	}
}

func createConfigMapIn(t *testing.T, namespace, name string, data map[string]string) {
	t.Helper()
	c := testenv.Client(t)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, Data: data}
	if err := c.Create(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), cm) })
}

// createNamespacedProfile creates a Profile and deletes it when the test ends, waiting until it
// is gone so that what it deployed is withdrawn.
func createNamespacedProfile(t *testing.T, p *configv1beta1.Profile) {
	t.Helper()
	c := testenv.Client(t)
	if err := c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Delete(context.Background(), p); client.IgnoreNotFound(err) != nil {
			t.Errorf("deleting Profile %s/%s: %v", p.Namespace, p.Name, err)
			return
		}
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			if err := c.Get(ctx, client.ObjectKeyFromObject(p), &configv1beta1.Profile{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("Profile %s/%s still there (%v)", p.Namespace, p.Name, err)
			}
			return nil
		})
	})
}

// midUpdate watches the summaries of a namespace and records the largest number ever
// mid-update at once: existing and not provisioned on their current spec.
type midUpdate struct {
	mu      sync.Mutex
	state   map[string]bool
	max     int
	stopped chan struct{}
}

func watchMidUpdate(t *testing.T, namespace string, labels client.MatchingLabels) *midUpdate {
	t.Helper()
	c, err := client.NewWithWatch(testenv.Fleet.Management.Config, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w, err := c.Watch(ctx, &configv1beta1.ClusterSummaryList{}, client.InNamespace(namespace), labels)
	if err != nil {
		t.Fatal(err)
	}
	m := &midUpdate{state: map[string]bool{}, stopped: make(chan struct{})}
	go func() {
		defer close(m.stopped)
		for ev := range w.ResultChan() {
			cs, ok := ev.Object.(*configv1beta1.ClusterSummary)
			if !ok {
				continue
			}
			m.mu.Lock()
			if ev.Type == watch.Deleted {
				delete(m.state, cs.Name)
			} else {
				m.state[cs.Name] = !cs.Provisioned()
			}
			n := 0
			for _, mid := range m.state {
				if mid {
					n++
				}
			}
			m.max = max(m.max, n)
			m.mu.Unlock()
		}
	}()
	t.Cleanup(func() { cancel(); w.Stop(); <-m.stopped })
	return m
}

func (m *midUpdate) reset() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	seen := m.max
	m.max = 0
	return seen
}

// TestProfileSeesItsNamespaceOnly: a Profile in one tenant's namespace rolls a ConfigMap's
// manifests out to that namespace's clusters one at a time (maxUpdate 1), and nothing of another
// namespace reaches it or is reached by it: a cluster of the other namespace with matching
// labels gets nothing, and a policyRef naming a ConfigMap of the other namespace is read from
// the Profile's own namespace, as Sveltos reads it.
func TestProfileSeesItsNamespaceOnly(t *testing.T) {
	t.Parallel()
	const (
		tenantA, tenantB = "e2e-tenant-a", "e2e-tenant-b"
		deployed         = "e2e-tenant" // the namespace the content lands in on the managed clusters
	)
	labels := map[string]string{"e2e-tenant": "on"}
	registerTenantCluster(t, tenantA, "a-dev", "dev", labels)
	registerTenantCluster(t, tenantA, "a-staging", "staging", labels)
	registerTenantCluster(t, tenantB, "b-prod", "prod", labels)

	// The same name in both namespaces, with different content; and one only in B.
	createConfigMapIn(t, tenantA, "content", map[string]string{"cm.yaml": configMapManifest(deployed, "settings", "from-a")})
	createConfigMapIn(t, tenantB, "content", map[string]string{"cm.yaml": configMapManifest(deployed, "settings", "from-b")})
	createConfigMapIn(t, tenantB, "b-only", map[string]string{"cm.yaml": configMapManifest(deployed, "leaked", "from-b")})

	p := &configv1beta1.Profile{ObjectMeta: metav1.ObjectMeta{Namespace: tenantA, Name: "tenant"}}
	p.Spec.ClusterSelector.MatchLabels = labels
	p.Spec.MaxUpdate = ptr(intstr.FromInt32(1))
	p.Spec.PolicyRefs = []configv1beta1.PolicyRef{
		{Kind: "ConfigMap", Namespace: tenantB, Name: "content"},
		{Kind: "ConfigMap", Namespace: tenantB, Name: "b-only", Optional: true},
	}
	mid := watchMidUpdate(t, tenantA, client.MatchingLabels{configv1beta1.ProfileNameLabel: p.Name})
	createNamespacedProfile(t, p)

	dev, staging, prod := managed(t, "dev"), managed(t, "staging"), managed(t, "prod")
	waitConfigMapValue(t, dev, deployed, "settings", "from-a")
	waitConfigMapValue(t, staging, deployed, "settings", "from-a")
	waitProfileReady(t, p)
	if m := mid.reset(); m != 1 {
		t.Errorf("maxUpdate 1: %d clusters were mid-update at once", m)
	}

	c := testenv.Client(t)
	got := &configv1beta1.Profile{}
	if err := c.Get(t.Context(), client.ObjectKeyFromObject(p), got); err != nil {
		t.Fatal(err)
	}
	var matching []string
	for _, r := range got.Status.MatchingClusterRefs {
		matching = append(matching, r.Namespace+"/"+r.Name)
	}
	if want := []string{tenantA + "/a-dev", tenantA + "/a-staging"}; !slices.Equal(matching, want) {
		t.Errorf("matchingClusters %v, want %v", matching, want)
	}
	stalled := meta.FindStatusCondition(got.Status.Conditions, configv1beta1.ProfileStalledCondition)
	if stalled == nil || !strings.Contains(stalled.Message, `spec.policyRefs[0].namespace "e2e-tenant-b"`) {
		t.Errorf("Stalled condition %+v does not say which namespace was not followed", stalled)
	}
	testenv.ExpectEvent(t, timeout, c, got, "NamespaceIgnored")

	// Upstream's names and labels, owned by the Profile.
	cs := &configv1beta1.ClusterSummary{}
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: tenantA, Name: "p--tenant-sveltos-a-dev"}, cs); err != nil {
		t.Fatal(err)
	}
	if cs.Labels[configv1beta1.ProfileNameLabel] != "tenant" || !metav1.IsControlledBy(cs, got) {
		t.Errorf("summary labels %v, owners %v", cs.Labels, cs.OwnerReferences)
	}
	var inB configv1beta1.ClusterSummaryList
	if err := c.List(t.Context(), &inB, client.InNamespace(tenantB)); err != nil || len(inB.Items) != 0 {
		t.Errorf("namespace %s has %d summaries (%v)", tenantB, len(inB.Items), err)
	}

	// B's cluster got nothing, and nothing B alone holds was deployed anywhere.
	if _, err := prod.CoreV1().Namespaces().Get(t.Context(), deployed, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the cluster of namespace %s got namespace %s (%v)", tenantB, deployed, err)
	}
	for _, cl := range []string{"dev", "staging"} {
		if _, err := managed(t, cl).CoreV1().ConfigMaps(deployed).Get(t.Context(), "leaked", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("%s got ConfigMap leaked from namespace %s (%v)", cl, tenantB, err)
		}
	}

	// An edit of the content is a new version, rolled out one cluster at a time too; an edit in B
	// changes nothing.
	updateConfigMapIn(t, tenantB, "content", map[string]string{"cm.yaml": configMapManifest(deployed, "settings", "b-edited")})
	updateConfigMapIn(t, tenantA, "content", map[string]string{"cm.yaml": configMapManifest(deployed, "settings", "a-edited")})
	waitConfigMapValue(t, dev, deployed, "settings", "a-edited")
	waitConfigMapValue(t, staging, deployed, "settings", "a-edited")
	waitProfileReady(t, p)
	if m := mid.reset(); m != 1 {
		t.Errorf("maxUpdate 1, content edit: %d clusters were mid-update at once", m)
	}
}

func updateConfigMapIn(t *testing.T, namespace, name string, data map[string]string) {
	t.Helper()
	c := testenv.Client(t)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cm := &corev1.ConfigMap{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, cm); err != nil {
			return err
		}
		cm.Data = data
		return c.Update(ctx, cm)
	})
}

// waitProfileReady waits until the Profile reports every matching cluster on its current spec.
func waitProfileReady(t *testing.T, p *configv1beta1.Profile) {
	t.Helper()
	c := testenv.Client(t)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got := &configv1beta1.Profile{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(p), got); err != nil {
			return err
		}
		ready := meta.FindStatusCondition(got.Status.Conditions, configv1beta1.ProfileReadyCondition)
		if got.Status.ObservedGeneration != got.Generation || ready == nil || ready.Status != metav1.ConditionTrue ||
			ready.ObservedGeneration != got.Generation {
			return fmt.Errorf("Profile %s/%s not ready: %+v", p.Namespace, p.Name, ready)
		}
		return nil
	})
}

// TestProfileDependsOnProfilesOfItsNamespace: a Profile waits for the Profile of its namespace it
// depends on, which is deployed wherever its dependent is without a selector of its own.
func TestProfileDependsOnProfilesOfItsNamespace(t *testing.T) {
	t.Parallel()
	const tenant, deployed = "e2e-tenant-deps", "e2e-tenant-deps"
	labels := map[string]string{"e2e-tenant-deps": "on"}
	registerTenantCluster(t, tenant, "deps-qa", "qa", labels)
	createConfigMapIn(t, tenant, "app", map[string]string{"cm.yaml": configMapManifest(deployed, "app", "app")})
	createConfigMapIn(t, tenant, "base", map[string]string{"cm.yaml": configMapManifest(deployed, "base", "base")})

	app := &configv1beta1.Profile{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "app"}}
	app.Spec.ClusterSelector.MatchLabels = labels
	app.Spec.DependsOn = []string{"base"}
	app.Spec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: "ConfigMap", Name: "app"}}
	createNamespacedProfile(t, app)

	c := testenv.Client(t)
	key := client.ObjectKey{Namespace: tenant, Name: "p--app-sveltos-deps-qa"}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cs := &configv1beta1.ClusterSummary{}
		if err := c.Get(ctx, key, cs); err != nil {
			return err
		}
		if cs.Status.Dependencies == nil || !strings.Contains(*cs.Status.Dependencies, "Profile base is a dependency") {
			return fmt.Errorf("summary dependencies %v", cs.Status.Dependencies)
		}
		return nil
	})
	qa := managed(t, "qa")
	if _, err := qa.CoreV1().ConfigMaps(deployed).Get(t.Context(), "app", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("app deployed before its dependency (%v)", err)
	}

	base := &configv1beta1.Profile{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "base"}}
	base.Spec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: "ConfigMap", Name: "base"}}
	createNamespacedProfile(t, base)
	waitConfigMapValue(t, qa, deployed, "base", "base")
	waitConfigMapValue(t, qa, deployed, "app", "app")
	waitProfileReady(t, app)
	waitProfileReady(t, base)
}
