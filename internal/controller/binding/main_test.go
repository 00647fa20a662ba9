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
	"reflect"
	"strconv"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

func TestMain(m *testing.M) {
	testenv.Main(m,
		sandbox.ClusterSpec{Name: "member1", Labels: map[string]string{"environment": "canary", "order": "2"}},
		sandbox.ClusterSpec{Name: "member2", Labels: map[string]string{"environment": "staging"}},
	)
}

// timeout bounds every wait; a Deployment takes ~15 s to become available in the sandbox.
const timeout = 90 * time.Second

// startController runs the binding controllers for the test, tuned by the options, and returns a
// management client.
func startController(t *testing.T, options ...func(*Options)) client.Client {
	t.Helper()
	testenv.StartManager(t, func(mgr ctrl.Manager) error {
		opts := Options{Clusters: fleet.NewCache(mgr.GetClient(), fleet.CacheOptions{}),
			// Recovery after an outage is what the tests wait for, not the production backoff.
			MaxBackoff: 3 * time.Second}
		for _, o := range options {
			o(&opts)
		}
		return NewReconciler(opts).SetupWithManager(mgr)
	})
	return testenv.Client(t)
}

// member returns a client of a managed cluster of the sandbox.
func member(t *testing.T, name string) client.Client {
	t.Helper()
	for _, c := range testenv.Fleet.Managed {
		if c.Name == name {
			cl, err := client.New(c.Config, client.Options{Scheme: scheme.New()})
			if err != nil {
				t.Fatal(err)
			}
			return cl
		}
	}
	t.Fatalf("no managed cluster %s", name)
	return nil
}

// Manifests of the resources selected into snapshots.

func namespace(name string) string {
	return fmt.Sprintf(`{apiVersion: v1, kind: Namespace, metadata: {name: %s, labels: {kubernetes.io/metadata.name: %[1]s}}, spec: {finalizers: [kubernetes]}}`, name)
}

func configMap(ns, name, value string) string {
	return fmt.Sprintf(`{apiVersion: v1, kind: ConfigMap, metadata: {name: %s, namespace: %s}, data: {key: %s}}`, name, ns, value)
}

// deployment has two replicas; schedulable=false gives its pods a node selector no node matches,
// so that it never becomes available.
func deployment(ns, name, image string, schedulable bool) string {
	selector := ""
	if !schedulable {
		selector = "nodeSelector: {no-such-label: anywhere},"
	}
	return fmt.Sprintf(`{apiVersion: apps/v1, kind: Deployment, metadata: {name: %[2]s, namespace: %[1]s},
		spec: {replicas: 2, selector: {matchLabels: {app: %[2]s}}, template: {metadata: {labels: {app: %[2]s}},
		spec: {%[4]s containers: [{name: %[2]s, image: %[3]q, ports: [{containerPort: 80}]}]}}}}`, ns, name, image, selector)
}

func service(ns, name string) string {
	return fmt.Sprintf(`{apiVersion: v1, kind: Service, metadata: {name: %[2]s, namespace: %[1]s},
		spec: {selector: {app: %[2]s}, ports: [{port: 80, targetPort: 80}]}}`, ns, name)
}

func resources(t *testing.T, manifests ...string) []placementv1beta1.ResourceContent {
	t.Helper()
	out := make([]placementv1beta1.ResourceContent, 0, len(manifests))
	for _, m := range manifests {
		js, err := yaml.YAMLToJSON([]byte(m))
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		out = append(out, placementv1beta1.ResourceContent{RawExtension: runtime.RawExtension{Raw: js}})
	}
	return out
}

// snapshotMeta is the metadata of snapshot sub (-1 for the first) of group index of a placement
// whose group has count snapshots, as the snapshot writer sets it.
func snapshotMeta(namespace, placement string, index, sub, count int) metav1.ObjectMeta {
	om := metav1.ObjectMeta{
		Namespace: namespace,
		Name:      fmt.Sprintf(placementv1beta1.ResourceSnapshotNameFmt, placement, index),
		Labels: map[string]string{
			placementv1beta1.PlacementTrackingLabel: placement,
			placementv1beta1.ResourceIndexLabel:     strconv.Itoa(index),
		},
		Annotations: map[string]string{},
	}
	if sub < 0 {
		om.Labels[placementv1beta1.IsLatestSnapshotLabel] = "true"
		om.Annotations[placementv1beta1.ResourceGroupHashAnnotation] = fmt.Sprintf("hash-of-%s-%d", placement, index)
		om.Annotations[placementv1beta1.NumberOfResourceSnapshotsAnnotation] = strconv.Itoa(count)
	} else {
		om.Name = fmt.Sprintf(placementv1beta1.ResourceSnapshotNameWithSubindexFmt, placement, index, sub)
		om.Annotations[placementv1beta1.SubindexOfResourceSnapshotAnnotation] = strconv.Itoa(sub)
	}
	return om
}

// clusterSnapshot creates a ClusterResourceSnapshot and returns its name.
func clusterSnapshot(t *testing.T, c client.Client, placement string, index, sub, count int, manifests ...string) string {
	t.Helper()
	s := &placementv1beta1.ClusterResourceSnapshot{ObjectMeta: snapshotMeta("", placement, index, sub, count)}
	s.Spec.SelectedResources = resources(t, manifests...)
	create(t, c, s)
	return s.Name
}

// namespacedSnapshot creates a ResourceSnapshot and returns its name.
func namespacedSnapshot(t *testing.T, c client.Client, ns, placement string, index int, manifests ...string) string {
	t.Helper()
	s := &placementv1beta1.ResourceSnapshot{ObjectMeta: snapshotMeta(ns, placement, index, -1, 1)}
	s.Spec.SelectedResources = resources(t, manifests...)
	create(t, c, s)
	return s.Name
}

func create(t *testing.T, c client.Client, obj client.Object) {
	t.Helper()
	if err := c.Create(t.Context(), obj); err != nil {
		t.Fatalf("creating %T %s: %v", obj, obj.GetName(), err)
	}
}

// bindingMeta names a binding "<placement>-<cluster>" and labels it with its placement.
func bindingMeta(namespace, placement, cluster string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Namespace: namespace,
		Name:      placement + "-" + cluster,
		Labels:    map[string]string{placementv1beta1.PlacementTrackingLabel: placement},
	}
}

func boundSpec(cluster, snapshot string) placementv1beta1.ResourceBindingSpec {
	return placementv1beta1.ResourceBindingSpec{
		State:                placementv1beta1.BindingStateBound,
		ResourceSnapshotName: snapshot,
		TargetCluster:        cluster,
		ClusterDecision:      placementv1beta1.ClusterDecision{ClusterName: cluster, Selected: true},
	}
}

// updateSpec changes a binding's spec, retrying on conflicts with the controller's writes.
func updateSpec(t *testing.T, c client.Client, b placementv1beta1.BindingObj, change func(*placementv1beta1.ResourceBindingSpec)) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := get(ctx, c, b); err != nil {
			return err
		}
		spec := b.BindingSpec()
		change(spec)
		return c.Update(ctx, b)
	})
}

// get reads obj again into a zeroed object: decoding into obj itself would keep the fields the
// server no longer returns (an emptied list of conditions, say).
func get(ctx context.Context, c client.Client, obj client.Object) error {
	fresh := reflect.New(reflect.TypeOf(obj).Elem()).Interface().(client.Object)
	if err := c.Get(ctx, client.ObjectKeyFromObject(obj), fresh); err != nil {
		return err
	}
	reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(fresh).Elem())
	return nil
}

// waitFor polls the binding until check accepts it.
func waitFor(t *testing.T, c client.Client, b placementv1beta1.BindingObj, what string, check func(b placementv1beta1.BindingObj) error) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := get(ctx, c, b); err != nil {
			return err
		}
		if err := check(b); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return nil
	})
}

// condition checks one condition of a binding at its current generation.
func condition(b placementv1beta1.BindingObj, typ string, status metav1.ConditionStatus, reason string) error {
	st := b.BindingStatus()
	c := meta.FindStatusCondition(st.Conditions, typ)
	switch {
	case c == nil:
		return fmt.Errorf("no %s condition in %+v", typ, st.Conditions)
	case c.ObservedGeneration != b.GetGeneration():
		return fmt.Errorf("%s describes generation %d, not %d", typ, c.ObservedGeneration, b.GetGeneration())
	case c.Status != status || c.Reason != reason:
		return fmt.Errorf("%s is %s/%s (%q), want %s/%s", typ, c.Status, c.Reason, c.Message, status, reason)
	}
	return nil
}

// applied and available: the binding's snapshot is applied, and available with reason.
func appliedAndAvailable(snapshot, reason string) func(placementv1beta1.BindingObj) error {
	return func(b placementv1beta1.BindingObj) error {
		st := b.BindingStatus()
		if st.ObservedResourceSnapshotName != snapshot {
			return fmt.Errorf("observedResourceSnapshotName %q, want %q", st.ObservedResourceSnapshotName, snapshot)
		}
		if err := condition(b, placementv1beta1.BindingAppliedCondition, metav1.ConditionTrue, placementv1beta1.AllWorkAppliedReason); err != nil {
			return err
		}
		if err := condition(b, placementv1beta1.BindingAvailableCondition, metav1.ConditionTrue, reason); err != nil {
			return err
		}
		if len(st.FailedPlacements) > 0 {
			return fmt.Errorf("failedPlacements %+v", st.FailedPlacements)
		}
		return nil
	}
}

// deleteAndWait deletes a binding and waits until it is gone, finalizer released.
func deleteAndWait(t *testing.T, c client.Client, b placementv1beta1.BindingObj) {
	t.Helper()
	if err := c.Delete(t.Context(), b); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(b), b); !apierrors.IsNotFound(err) {
			return fmt.Errorf("binding %s still there (finalizers %v): %v", b.GetName(), b.GetFinalizers(), err)
		}
		return nil
	})
}

// gone waits until an object is absent from a cluster, or being deleted (a namespace takes a
// while to empty).
func gone(t *testing.T, c client.Client, obj client.Object) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj)
		switch {
		case apierrors.IsNotFound(err):
			return nil
		case err != nil:
			return err
		case !obj.GetDeletionTimestamp().IsZero():
			return nil
		}
		return fmt.Errorf("%T %s is still there", obj, client.ObjectKeyFromObject(obj))
	})
}
