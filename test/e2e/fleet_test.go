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
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// managed returns a clientset of the named managed cluster.
func managed(t *testing.T, name string) kubernetes.Interface {
	t.Helper()
	for _, c := range testenv.Fleet.Managed {
		if c.Name == name {
			return kubernetes.NewForConfigOrDie(c.Config)
		}
	}
	t.Fatalf("no managed cluster %q", name)
	return nil
}

// createProfile creates a ClusterProfile and deletes it (waiting until it is gone, so that what
// it deployed is withdrawn) when the test ends.
func createProfile(t *testing.T, p *configv1beta1.ClusterProfile) {
	t.Helper()
	c := testenv.Client(t)
	if err := c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		if err := c.Delete(ctx, p); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting profile %s: %v", p.Name, err)
			return
		}
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			if err := c.Get(ctx, client.ObjectKeyFromObject(p), &configv1beta1.ClusterProfile{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("profile %s still there (%v)", p.Name, err)
			}
			return nil
		})
	})
}

func updateProfile(t *testing.T, name string, mutate func(*configv1beta1.ClusterProfile)) {
	t.Helper()
	c := testenv.Client(t)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		p := &configv1beta1.ClusterProfile{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, p); err != nil {
			return err
		}
		mutate(p)
		return c.Update(ctx, p)
	})
}

// createConfigMap creates a ConfigMap in the management cluster's default namespace, removed
// when the test ends.
func createConfigMap(t testing.TB, name string, data map[string]string) {
	t.Helper()
	c := testenv.Client(t)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Data: data}
	if err := c.Create(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), cm) })
}

func updateConfigMap(t *testing.T, name string, data map[string]string) {
	t.Helper()
	c := testenv.Client(t)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cm := &corev1.ConfigMap{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, cm); err != nil {
			return err
		}
		cm.Data = data
		return c.Update(ctx, cm)
	})
}

// summary reads the ClusterSummary of a profile on a cluster (SveltosCluster namespace = name).
func summary(ctx context.Context, t *testing.T, profile, cluster string) (*configv1beta1.ClusterSummary, error) {
	cs := &configv1beta1.ClusterSummary{}
	err := testenv.Client(t).Get(ctx, client.ObjectKey{Namespace: cluster, Name: profile + "-sveltos-" + cluster}, cs)
	return cs, err
}

// expectFeature waits until the feature of the profile's summary on cluster has the status.
func expectFeature(t *testing.T, profile, cluster string, id libv1beta1.FeatureID, status libv1beta1.FeatureStatus) *configv1beta1.ClusterSummary {
	t.Helper()
	var cs *configv1beta1.ClusterSummary
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		var err error
		if cs, err = summary(ctx, t, profile, cluster); err != nil {
			return err
		}
		got := cs.Status.FeatureStatus(id)
		if got != status || cs.Status.ObservedGeneration != cs.Generation {
			msg := ""
			for _, f := range cs.Status.FeatureSummaries {
				if f.FeatureID == id && f.FailureMessage != nil {
					msg = *f.FailureMessage
				}
			}
			return fmt.Errorf("%s on %s: %s is %q (%s), want %q", profile, cluster, id, got, msg, status)
		}
		return nil
	})
	return cs
}

func sveltosProfile(name string, selector map[string]string) *configv1beta1.ClusterProfile {
	p := &configv1beta1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Name: name}}
	p.Spec.ClusterSelector.MatchLabels = selector
	return p
}

func configMapRef(name string) configv1beta1.PolicyRef {
	return configv1beta1.PolicyRef{Kind: "ConfigMap", Namespace: "default", Name: name}
}
