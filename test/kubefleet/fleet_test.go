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
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/testing/fleetv1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

var members = []string{"member1", "member2", "member3"}

func fixture(t *testing.T, file string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "seeds", file))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// kclient is the client the tests write and read with. It sends the Kubefleet kinds as
// placement.kubernetes-fleet.io/v1 and cluster.kubernetes-fleet.io/v1, the versions Kubefleet's
// docs write, so that every test here drives v1 objects; the walkthroughs of seed 004 apply the
// seed's v1beta1 documents as written (applyAsWritten).
func kclient(t testing.TB) client.Client { return fleetv1.Client(testenv.Client(t)) }

// apply creates the seed's object through v1 (kclient), or replaces the spec/data of the one that
// exists, after mutate (which may be nil) adjusted it; the object is deleted when the test ends.
func apply(t *testing.T, file string, mutate func(*unstructured.Unstructured)) *unstructured.Unstructured {
	t.Helper()
	return applyWith(t, kclient(t), file, mutate)
}

// applyAsWritten is apply in the version the seed's document names.
func applyAsWritten(t *testing.T, file string, mutate func(*unstructured.Unstructured)) *unstructured.Unstructured {
	t.Helper()
	return applyWith(t, testenv.Client(t), file, mutate)
}

func applyWith(t *testing.T, c client.Client, file string, mutate func(*unstructured.Unstructured)) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(fixture(t, file), &u.Object); err != nil {
		t.Fatal(err)
	}
	if mutate != nil {
		mutate(u)
	}
	ctx := t.Context()
	existing := &unstructured.Unstructured{}
	existing.SetGroupVersionKind(u.GroupVersionKind())
	err := c.Get(ctx, client.ObjectKeyFromObject(u), existing)
	switch {
	case apierrors.IsNotFound(err):
		if err := c.Create(ctx, u); err != nil {
			t.Fatalf("creating %s: %v", file, err)
		}
		t.Cleanup(func() { _ = c.Delete(context.Background(), u) })
	case err != nil:
		t.Fatal(err)
	default:
		u.SetResourceVersion(existing.GetResourceVersion())
		if err := c.Update(ctx, u); err != nil {
			t.Fatalf("updating %s: %v", file, err)
		}
	}
	return u
}

func member(t *testing.T, name string) kubernetes.Interface {
	t.Helper()
	for _, c := range testenv.Fleet.Managed {
		if c.Name == name {
			return kubernetes.NewForConfigOrDie(c.Config)
		}
	}
	t.Fatalf("no member %s", name)
	return nil
}

// approve patches the status of an approval request with one of the seed's approval bodies.
func approve(t *testing.T, obj client.Object, patchFile string) {
	t.Helper()
	c := kclient(t)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		return c.Get(ctx, client.ObjectKeyFromObject(obj), obj)
	})
	if err := c.Status().Patch(t.Context(), obj, client.RawPatch(types.MergePatchType, fixture(t, patchFile))); err != nil {
		t.Fatal(err)
	}
}

// waitConfigMapValue waits until test-cm holds value on every member.
func waitConfigMapValue(t *testing.T, value string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		for _, m := range members {
			cm, err := member(t, m).CoreV1().ConfigMaps("test-namespace").Get(ctx, "test-cm", metav1.GetOptions{})
			if err != nil {
				return fmt.Errorf("%s: %w", m, err)
			}
			if cm.Data["key"] != value {
				return fmt.Errorf("%s: key=%s, want %s", m, cm.Data["key"], value)
			}
		}
		return nil
	})
}

// kubectl runs the sandbox's kubectl against the management cluster.
func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	bin, err := sandbox.FindKubeBin()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(filepath.Join(bin, "kubectl"), append([]string{"--kubeconfig", testenv.Fleet.Management.Kubeconfig}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// header returns the column names of a kubectl table.
func header(out string) []string {
	line, _, _ := strings.Cut(out, "\n")
	return strings.Fields(line)
}

// watchValues records, in the order the members' watches report them, the first time each
// member's ConfigMap ns/name held each value of its "key". stop ends the watches and returns
// "member=value" entries.
func watchValues(t *testing.T, ns, name string) (stop func() []string) {
	t.Helper()
	type event struct{ member, value string }
	events := make(chan event, 100)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	for _, m := range members {
		w, err := member(t, m).CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name})
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for ev := range w.ResultChan() {
				if cm, ok := ev.Object.(*corev1.ConfigMap); ok {
					select {
					case events <- event{m, cm.Data["key"]}:
					case <-ctx.Done():
						return
					}
				}
			}
		}()
	}
	done := make(chan []string)
	go func() {
		var order []string
		for {
			select {
			case e := <-events:
				if k := e.member + "=" + e.value; !slices.Contains(order, k) {
					order = append(order, k)
				}
			case <-ctx.Done():
				done <- order
				return
			}
		}
	}()
	return func() []string { cancel(); return <-done }
}

// externalPlacement places the Namespace ns on every member, its rollouts driven by update runs.
func externalPlacement(name, ns string) *placementv1beta1.ClusterResourcePlacement {
	crp := &placementv1beta1.ClusterResourcePlacement{ObjectMeta: metav1.ObjectMeta{Name: name}}
	crp.Spec.ResourceSelectors = []placementv1beta1.ResourceSelectorTerm{{Group: "", Version: "v1", Kind: "Namespace", Name: ns}}
	crp.Spec.Policy = &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickAllPlacementType}
	crp.Spec.Strategy.Type = placementv1beta1.ExternalRolloutStrategyType
	return crp
}

// createAll creates the objects, in order, and deletes them when the test ends.
func createAll(t *testing.T, objs ...client.Object) {
	t.Helper()
	c := kclient(t)
	for _, obj := range objs {
		if err := c.Create(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Delete(context.Background(), obj) })
	}
}

// waitSnapshot waits for the ClusterResourceSnapshot name, which the placement controller writes.
func waitSnapshot(t *testing.T, name string) {
	t.Helper()
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		return kclient(t).Get(ctx, client.ObjectKey{Name: name}, &placementv1beta1.ClusterResourceSnapshot{})
	})
}

// writtenInV1 fails the test unless a write of each object's spec went through version v1 of
// its group (its managed fields record the version of every write).
func writtenInV1(t *testing.T, objs ...client.Object) {
	t.Helper()
	for _, obj := range objs {
		if err := kclient(t).Get(t.Context(), client.ObjectKeyFromObject(obj), obj); err != nil {
			t.Fatal(err)
		}
		var versions []string
		for _, f := range obj.GetManagedFields() {
			if f.Subresource == "" && f.FieldsV1 != nil && strings.Contains(f.FieldsV1.GetRawString(), `"f:spec"`) {
				versions = append(versions, f.APIVersion)
				if strings.HasSuffix(f.APIVersion, "/v1") {
					versions = nil
					break
				}
			}
		}
		if versions != nil {
			t.Errorf("%s: its spec was written through %v, never v1", obj.GetName(), versions)
		}
	}
}

// TestMembersRegisteredInV1: the sandbox registers its MemberClusters as
// cluster.kubernetes-fleet.io/v1, and every test here places onto them.
func TestMembersRegisteredInV1(t *testing.T) {
	for _, m := range members {
		writtenInV1(t, &clusterv1beta1.MemberCluster{ObjectMeta: metav1.ObjectMeta{Name: m}})
	}
}
