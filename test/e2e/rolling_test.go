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
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

var rolloutClusters = []string{"dev", "prod", "qa", "staging"}

// deploymentHealth is seed 000's Lua check: every Deployment of the namespace is available.
func deploymentHealth(ns string) libv1beta1.ValidateHealth {
	return libv1beta1.ValidateHealth{
		Name: "deployment-health", FeatureID: libv1beta1.FeatureResources,
		Group: "apps", Version: "v1", Kind: "Deployment", Namespace: ns,
		Script: `function evaluate()
  local hs = {healthy = false, message = "available replicas not matching requested replicas"}
  if obj.status and obj.status.availableReplicas ~= nil and obj.status.availableReplicas == obj.spec.replicas then
    hs.healthy = true
  end
  return hs
end`,
	}
}

// concurrency watches a profile's summaries and records the largest number of clusters ever
// mid-update: holding the profile's current spec without being provisioned and healthy.
type concurrency struct {
	mu      sync.Mutex
	spec    configv1beta1.Spec
	state   map[string]*configv1beta1.ClusterSummary
	max     int
	stopped chan struct{}
}

func watchConcurrency(t *testing.T, profile string) *concurrency {
	t.Helper()
	c, err := client.NewWithWatch(testenv.Fleet.Management.Config, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w, err := c.Watch(ctx, &configv1beta1.ClusterSummaryList{}, client.MatchingLabels{configv1beta1.ClusterProfileNameLabel: profile})
	if err != nil {
		t.Fatal(err)
	}
	cc := &concurrency{state: map[string]*configv1beta1.ClusterSummary{}, stopped: make(chan struct{})}
	go func() {
		defer close(cc.stopped)
		for ev := range w.ResultChan() {
			cs, ok := ev.Object.(*configv1beta1.ClusterSummary)
			if !ok {
				continue
			}
			cc.mu.Lock()
			if ev.Type == watch.Deleted {
				delete(cc.state, cs.Namespace)
			} else {
				cc.state[cs.Namespace] = cs
			}
			cc.count()
			cc.mu.Unlock()
		}
	}()
	t.Cleanup(func() { cancel(); w.Stop(); <-cc.stopped })
	return cc
}

// expect sets the spec the rollout goes to and resets the maximum.
func (cc *concurrency) expect(spec configv1beta1.Spec) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.spec, cc.max = spec, 0
	cc.count()
}

func (cc *concurrency) count() {
	n := 0
	for _, cs := range cc.state {
		if equality.Semantic.DeepEqual(cs.Spec.ClusterProfileSpec, cc.spec) && !cs.Provisioned() {
			n++
		}
	}
	cc.max = max(cc.max, n)
}

func (cc *concurrency) maximum() int {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.max
}

// waitRolledOut waits until every cluster's summary runs spec, provisioned.
func waitRolledOut(t *testing.T, profile string, spec configv1beta1.Spec) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		for _, c := range rolloutClusters {
			cs, err := summary(ctx, t, profile, c)
			if err != nil {
				return err
			}
			if !equality.Semantic.DeepEqual(cs.Spec.ClusterProfileSpec, spec) || !cs.Provisioned() {
				return fmt.Errorf("%s not rolled out on %s yet", profile, c)
			}
		}
		return nil
	})
}

func currentSpec(t *testing.T, name string) configv1beta1.Spec {
	t.Helper()
	p := &configv1beta1.ClusterProfile{}
	if err := testenv.Client(t).Get(t.Context(), client.ObjectKey{Name: name}, p); err != nil {
		t.Fatal(err)
	}
	return p.Spec
}

// TestRollingUpdate rolls seed 000's profile part out to four clusters with maxUpdate 1, then an
// update with maxUpdate 50%, and checks no more clusters were ever mid-update than allowed.
func TestRollingUpdate(t *testing.T) {
	t.Parallel()
	const ns = "e2e-rolling"
	createConfigMap(t, "e2e-rolling", map[string]string{"deploy.yaml": deploymentManifest(ns, "web")})
	p := sveltosProfile("e2e-rolling", map[string]string{"fleet": "e2e"})
	p.Spec.MaxUpdate = ptr(intstr.FromInt32(1))
	p.Spec.PolicyRefs = []configv1beta1.PolicyRef{configMapRef("e2e-rolling")}
	p.Spec.ValidateHealths = []libv1beta1.ValidateHealth{deploymentHealth(ns)}
	cc := watchConcurrency(t, p.Name)
	createProfile(t, p)
	spec := currentSpec(t, p.Name)
	cc.expect(spec)
	waitRolledOut(t, p.Name, spec)
	t.Logf("maxUpdate 1: at most %d clusters mid-update", cc.maximum())
	if m := cc.maximum(); m > 1 || m == 0 {
		t.Errorf("maxUpdate 1: %d clusters were mid-update at once", m)
	}

	updateProfile(t, p.Name, func(p *configv1beta1.ClusterProfile) {
		p.Spec.MaxUpdate = ptr(intstr.FromString("50%"))
		p.Spec.Tier = 90
	})
	spec = currentSpec(t, p.Name)
	cc.expect(spec)
	waitRolledOut(t, p.Name, spec)
	t.Logf("maxUpdate 50%% of 4: at most %d clusters mid-update", cc.maximum())
	if m := cc.maximum(); m > 2 || m == 0 {
		t.Errorf("maxUpdate 50%% of 4: %d clusters were mid-update at once", m)
	}
}

func ptr[T any](v T) *T { return &v }
