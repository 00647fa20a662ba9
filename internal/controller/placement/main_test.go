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

package placement

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/membercluster"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestMain runs the tests on seed 004's fleet: three members with the seed's labels.
func TestMain(m *testing.M) {
	testenv.Main(m,
		sandbox.ClusterSpec{Name: "member1", Labels: map[string]string{"environment": "canary", "order": "2"}},
		sandbox.ClusterSpec{Name: "member2", Labels: map[string]string{"environment": "staging"}},
		sandbox.ClusterSpec{Name: "member3", Labels: map[string]string{"environment": "canary", "order": "1"}},
	)
}

const (
	timeout = 60 * time.Second
	seedDir = "../../../testdata/seeds"
)

var members = []string{"member1", "member2", "member3"}

// startController runs the placement controllers and, so that members join, the MemberCluster
// controller. No binding controller runs: tests stand in for it by writing binding status.
func startController(t *testing.T) client.Client {
	t.Helper()
	testenv.StartManager(t, func(mgr ctrl.Manager) error {
		probe := membercluster.NewReconciler(membercluster.Options{Clusters: fleet.NewCache(mgr.GetClient(), fleet.CacheOptions{}),
			Probe: fleet.ProbeOptions{ProbeInterval: 5 * time.Second}})
		if err := probe.SetupWithManager(mgr); err != nil {
			return err
		}
		return NewReconciler(Options{}).SetupWithManager(mgr)
	})
	c := testenv.Client(t)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		for _, name := range members {
			mc := &clusterv1beta1.MemberCluster{}
			if err := c.Get(ctx, client.ObjectKey{Name: name}, mc); err != nil {
				return err
			}
			if !meta.IsStatusConditionTrue(mc.Status.Conditions, string(clusterv1beta1.ConditionTypeMemberClusterJoined)) {
				return fmt.Errorf("member %s has not joined: %+v", name, mc.Status.Conditions)
			}
		}
		return nil
	})
	return c
}

// readFixture decodes a seed fixture into obj.
func readFixture(t *testing.T, file string, obj any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(seedDir, file))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, obj); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

func createFixture(t *testing.T, c client.Client, file string) *unstructured.Unstructured {
	t.Helper()
	obj := &unstructured.Unstructured{}
	readFixture(t, file, &obj.Object)
	create(t, c, obj)
	return obj
}

func create(t *testing.T, c client.Client, obj client.Object) {
	t.Helper()
	if err := c.Create(t.Context(), obj); err != nil {
		t.Fatalf("creating %s %s: %v", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), err)
	}
}

// cleanUp deletes a placement when the test ends, while its controller still runs, and waits
// until the finalizer let it go.
func cleanUp(t *testing.T, c client.Client, obj client.Object) {
	t.Cleanup(func() { deleteAndWait(t, c, obj) })
}

func deleteAndWait(t *testing.T, c client.Client, obj client.Object) {
	t.Helper()
	if err := c.Delete(context.Background(), obj); client.IgnoreNotFound(err) != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj.DeepCopyObject().(client.Object)); !apierrors.IsNotFound(err) {
			return fmt.Errorf("%s still there: %v", obj.GetName(), err)
		}
		return nil
	})
}

func namespace(t *testing.T, c client.Client, name string, configMaps map[string]string) {
	t.Helper()
	create(t, c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
	for cm, value := range configMaps {
		create(t, c, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: cm, Namespace: name}, Data: map[string]string{"key": value}})
	}
}

func editConfigMap(t *testing.T, c client.Client, ns, name, value string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		cm := &corev1.ConfigMap{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cm); err != nil {
			return err
		}
		cm.Data = map[string]string{"key": value}
		return c.Update(ctx, cm)
	})
}

func crp(name string, selectors []placementv1beta1.ResourceSelectorTerm, policy *placementv1beta1.PlacementPolicy, strategy placementv1beta1.RolloutStrategyType) *placementv1beta1.ClusterResourcePlacement {
	return &placementv1beta1.ClusterResourcePlacement{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: placementv1beta1.PlacementSpec{ResourceSelectors: selectors, Policy: policy,
			Strategy: placementv1beta1.RolloutStrategy{Type: strategy}},
	}
}

func selectNamespace(name string) []placementv1beta1.ResourceSelectorTerm {
	return []placementv1beta1.ResourceSelectorTerm{{Group: "", Version: "v1", Kind: "Namespace", Name: name}}
}

func updateCRP(t *testing.T, c client.Client, name string, mutate func(*placementv1beta1.ClusterResourcePlacement)) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		p := &placementv1beta1.ClusterResourcePlacement{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, p); err != nil {
			return err
		}
		mutate(p)
		return c.Update(ctx, p)
	})
}

// waitCRP polls a ClusterResourcePlacement until check accepts it.
func waitCRP(t *testing.T, c client.Client, name string, check func(*placementv1beta1.ClusterResourcePlacement) error) *placementv1beta1.ClusterResourcePlacement {
	t.Helper()
	p := &placementv1beta1.ClusterResourcePlacement{}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := c.Get(ctx, client.ObjectKey{Name: name}, p); err != nil {
			return err
		}
		return check(p)
	})
	return p
}

// conditionIs checks a condition's status and, when given, reason, for the object's generation.
func conditionIs(conds []metav1.Condition, condType string, status metav1.ConditionStatus, reason string, generation int64) error {
	c := meta.FindStatusCondition(conds, condType)
	switch {
	case c == nil:
		return fmt.Errorf("no %s condition in %+v", condType, conds)
	case c.Status != status || (reason != "" && c.Reason != reason) || c.ObservedGeneration != generation:
		return fmt.Errorf("%s is %s/%s at generation %d (%s), want %s/%s at %d", condType, c.Status, c.Reason,
			c.ObservedGeneration, c.Message, status, reason, generation)
	}
	return nil
}

// crbs returns the bindings of a ClusterResourcePlacement by cluster.
func crbs(ctx context.Context, c client.Client, placement string) (map[string]*placementv1beta1.ClusterResourceBinding, error) {
	var l placementv1beta1.ClusterResourceBindingList
	if err := c.List(ctx, &l, client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: placement}); err != nil {
		return nil, err
	}
	out := map[string]*placementv1beta1.ClusterResourceBinding{}
	for i := range l.Items {
		out[l.Items[i].Spec.TargetCluster] = &l.Items[i]
	}
	return out, nil
}

// waitBindings polls the bindings of a ClusterResourcePlacement until check accepts them.
func waitBindings(t *testing.T, c client.Client, placement string, check func(map[string]*placementv1beta1.ClusterResourceBinding) error) map[string]*placementv1beta1.ClusterResourceBinding {
	t.Helper()
	var got map[string]*placementv1beta1.ClusterResourceBinding
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		var err error
		if got, err = crbs(ctx, c, placement); err != nil {
			return err
		}
		return check(got)
	})
	return got
}

// states renders bindings as "cluster=state" sorted, for comparisons.
func states(bs map[string]*placementv1beta1.ClusterResourceBinding) string {
	var out []string
	for _, cl := range slices.Sorted(maps.Keys(bs)) {
		out = append(out, cl+"="+string(bs[cl].Spec.State))
	}
	return strings.Join(out, " ")
}

func crs(ctx context.Context, c client.Client, placement string) (map[string]*placementv1beta1.ClusterResourceSnapshot, error) {
	var l placementv1beta1.ClusterResourceSnapshotList
	if err := c.List(ctx, &l, client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: placement}); err != nil {
		return nil, err
	}
	out := map[string]*placementv1beta1.ClusterResourceSnapshot{}
	for i := range l.Items {
		out[l.Items[i].Name] = &l.Items[i]
	}
	return out, nil
}

// decoded returns the selected resources of a snapshot as plain JSON values.
func decoded(t *testing.T, contents []placementv1beta1.ResourceContent) []any {
	t.Helper()
	out := []any{}
	for _, c := range contents {
		var v any
		if err := json.Unmarshal(c.Raw, &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// markAvailable stands in for the binding controller: it reports the binding's snapshot
// applied and available on its cluster.
func markAvailable(t *testing.T, c client.Client, placement, cluster string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		bs, err := crbs(ctx, c, placement)
		if err != nil {
			return err
		}
		b := bs[cluster]
		if b == nil {
			return fmt.Errorf("no binding for %s", cluster)
		}
		b.Status.ObservedResourceSnapshotName = b.Spec.ResourceSnapshotName
		for _, ct := range []string{placementv1beta1.BindingAppliedCondition, placementv1beta1.BindingAvailableCondition} {
			meta.SetStatusCondition(&b.Status.Conditions, metav1.Condition{Type: ct, Status: metav1.ConditionTrue,
				Reason: "Test", Message: "reported by the test", ObservedGeneration: b.Generation})
		}
		return c.Status().Update(ctx, b)
	})
}
