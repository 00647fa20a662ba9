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

package manifests

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const lifecycleV1 = `
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: lifecycle}
data: {mode: one}
---
apiVersion: v1
kind: Namespace
metadata: {name: lifecycle}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: extra, namespace: lifecycle}
data: {a: b}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: lifecycle}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
`

// TestApplyUpdatePrune applies a Namespace, ConfigMaps and a Deployment, then a set with one
// object changed and one removed.
func TestApplyUpdatePrune(t *testing.T) {
	t.Parallel()
	remote := newRemote(t)
	const owner = "ClusterSummary dev/lifecycle-sveltos-a:Resources"

	res := mustApply(t, remote, Request{Owner: owner, Objects: objects(t, lifecycleV1, Options{})})
	checkRefs(t, "applied", res.Applied, "Namespace lifecycle", "ConfigMap lifecycle/settings", "ConfigMap lifecycle/extra", "Deployment lifecycle/web")
	if want := []string{"ConfigMap.v1.", "Namespace.v1.", "Deployment.v1.apps"}; !slices.Equal(res.DeployedGVKs, want) {
		t.Errorf("deployed GVKs %q, want %q", res.DeployedGVKs, want)
	}
	eventually(t, 2*time.Minute, func(context.Context) error { return available(get(t, remote, deployments, "lifecycle", "web"), 2) })

	settings := get(t, remote, configMaps, "lifecycle", "settings")
	if settings.GetLabels()[OwnerLabel] != ownerHash(owner) || settings.GetLabels()[TierLabel] != "100" ||
		settings.GetAnnotations()[OwnerAnnotation] != owner {
		t.Errorf("owner marks missing: labels %v annotations %v", settings.GetLabels(), settings.GetAnnotations())
	}
	inv, err := remote.Core.ConfigMaps(InventoryNamespace).Get(t.Context(), InventoryName(owner), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("inventory: %v", err)
	}
	if inv.Data["owner"] != owner || !strings.Contains(inv.Data["objects"], `"name":"web"`) {
		t.Errorf("inventory content: %v", inv.Data)
	}

	v2 := strings.Replace(lifecycleV1, "data: {mode: one}", "data: {mode: two}", 1)
	v2 = strings.Replace(v2, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra, namespace: lifecycle}\ndata: {a: b}\n", "", 1)
	res = mustApply(t, remote, Request{Owner: owner, Objects: objects(t, v2, Options{})})
	checkRefs(t, "pruned", res.Pruned, "ConfigMap lifecycle/extra")
	if got := dataOf(get(t, remote, configMaps, "lifecycle", "settings"))["mode"]; got != "two" {
		t.Errorf("settings mode %q after the update, want two", got)
	}
	if !gone(get(t, remote, configMaps, "lifecycle", "extra")) {
		t.Error("extra was not pruned")
	}

	// The same set again: nothing pruned and the inventory is not rewritten.
	inv, _ = remote.Core.ConfigMaps(InventoryNamespace).Get(t.Context(), InventoryName(owner), metav1.GetOptions{})
	res = mustApply(t, remote, Request{Owner: owner, Objects: objects(t, v2, Options{})})
	after, _ := remote.Core.ConfigMaps(InventoryNamespace).Get(t.Context(), InventoryName(owner), metav1.GetOptions{})
	if len(res.Pruned) != 0 || after.ResourceVersion != inv.ResourceVersion {
		t.Errorf("re-applying an unchanged set pruned %v, inventory version %s -> %s", res.Pruned, inv.ResourceVersion, after.ResourceVersion)
	}

	// An empty set prunes everything, the Namespace last, and leaves no inventory.
	res = mustApply(t, remote, Request{Owner: owner})
	checkRefs(t, "pruned by an empty set", res.Pruned, "ConfigMap lifecycle/settings", "Deployment lifecycle/web", "Namespace lifecycle")
	if _, err := remote.Core.ConfigMaps(InventoryNamespace).Get(t.Context(), InventoryName(owner), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("inventory of an owner with nothing deployed: %v", err)
	}
}

const widgetCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: %[1]ss.test.stagecoach.dev}
spec:
  group: test.stagecoach.dev
  scope: %[3]s
  names: {plural: %[1]ss, singular: %[1]s, kind: %[2]s, listKind: %[2]sList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer}}}
`

// TestCRDAndCR applies a custom resource listed before its CRD in the same set, as seed 000's
// ConfigMap carries a ClusterIssuer.
func TestCRDAndCR(t *testing.T) {
	t.Parallel()
	remote := newRemote(t)
	const owner = "ClusterSummary dev/crd-sveltos-a:Resources"
	set := "apiVersion: test.stagecoach.dev/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {size: 3}\n---\n" +
		fmt.Sprintf(widgetCRD, "widget", "Widget", "Namespaced")
	res := mustApply(t, remote, Request{Owner: owner, Objects: objects(t, set, Options{})})
	checkRefs(t, "applied", res.Applied, "CustomResourceDefinition widgets.test.stagecoach.dev", "Widget default/w1")
	if want := []string{"Widget.v1.test.stagecoach.dev", "CustomResourceDefinition.v1.apiextensions.k8s.io"}; !slices.Equal(res.DeployedGVKs, want) {
		t.Errorf("deployed GVKs %q, want %q", res.DeployedGVKs, want)
	}
	widgets := schema.GroupVersionResource{Group: "test.stagecoach.dev", Version: "v1", Resource: "widgets"}
	if w := get(t, remote, widgets, "default", "w1"); w == nil {
		t.Fatal("widget default/w1 not created")
	}

	// A dry run of another CRD and its object: the CRD is validated, the object cannot be.
	dry := "apiVersion: test.stagecoach.dev/v1\nkind: Gadget\nmetadata: {name: g1}\n---\n" +
		fmt.Sprintf(widgetCRD, "gadget", "Gadget", "Cluster")
	res = mustApply(t, remote, Request{Owner: owner + "-dry", Objects: objects(t, dry, Options{}), DryRun: true})
	checkDiffs(t, res.Diffs,
		"Create CustomResourceDefinition gadgets.test.stagecoach.dev",
		"Create Gadget g1: not validated: its CustomResourceDefinition is not installed yet")

	deleted, err := Withdraw(testContext(t), remote, owner)
	if err != nil {
		t.Fatal(err)
	}
	checkRefs(t, "withdrawn", deleted, "Widget default/w1", "CustomResourceDefinition widgets.test.stagecoach.dev")
}

// TestApplyErrors feeds bad input and checks the message, the error class, and that nothing
// deployed is lost.
func TestApplyErrors(t *testing.T) {
	t.Parallel()
	remote := newRemote(t)
	ctx := testContext(t)
	const owner = "ClusterSummary dev/errors-sveltos-a:Resources"
	keep := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: keep, namespace: errors}\ndata: {a: b}\n"
	mustApply(t, remote, Request{Owner: owner, Objects: objects(t, keep, Options{})})

	t.Run("rejected by the server", func(t *testing.T) {
		bad := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: bad, namespace: errors}\nspec: {replicas: 1}\n"
		_, err := Apply(ctx, remote, Request{Owner: owner, Objects: objects(t, bad, Options{})})
		want := "applying Deployment errors/bad (from ConfigMap test/testapplyerrors-rejected_by_the_server): Deployment.apps \"bad\" is invalid"
		if err == nil || !strings.Contains(err.Error(), want) || !IsPermanent(err) {
			t.Fatalf("error %v (permanent %v), want a permanent one containing %q", err, IsPermanent(err), want)
		}
		if gone(get(t, remote, configMaps, "errors", "keep")) {
			t.Error("a failed apply pruned what was deployed")
		}
	})
	t.Run("unknown kind", func(t *testing.T) {
		set := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: early, namespace: errors}\n---\n" +
			"apiVersion: example.invalid/v1\nkind: Foo\nmetadata: {name: f}\n"
		_, err := Apply(ctx, remote, Request{Owner: owner, Objects: objects(t, set, Options{})})
		if err == nil || !strings.Contains(err.Error(), "serves no kind Foo in example.invalid/v1") || !IsPermanent(err) {
			t.Fatalf("error %v, want a permanent one naming the kind", err)
		}
		if get(t, remote, configMaps, "errors", "early") != nil {
			t.Error("objects were written although the set cannot be applied")
		}
	})
	t.Run("duplicate", func(t *testing.T) {
		_, err := Apply(ctx, remote, Request{Owner: owner, Objects: objects(t, keep+"---\n"+keep, Options{})})
		if err == nil || !strings.Contains(err.Error(), "ConfigMap errors/keep is in the set twice") || !IsPermanent(err) {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("missing namespace not created", func(t *testing.T) {
		set := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: errors-missing}\n"
		_, err := Apply(ctx, remote, Request{Owner: owner, Objects: objects(t, set, Options{SkipNamespaceCreation: true})})
		if err == nil || !strings.Contains(err.Error(), "namespace creation is skipped") || IsPermanent(err) {
			t.Fatalf("error %v, want a transient one with a hint", err)
		}
	})
	t.Run("immutable field", func(t *testing.T) {
		frozen := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: frozen, namespace: errors}\nimmutable: true\ndata: {v: '1'}\n"
		mustApply(t, remote, Request{Owner: owner + "-frozen", Objects: objects(t, frozen, Options{})})
		before := get(t, remote, configMaps, "errors", "frozen")
		changed := strings.Replace(frozen, "'1'", "'2'", 1)
		_, err := Apply(ctx, remote, Request{Owner: owner + "-frozen", Objects: objects(t, changed, Options{})})
		if err == nil || !strings.Contains(err.Error(), "set force on its source") || !IsPermanent(err) {
			t.Fatalf("error %v, want a permanent one suggesting force", err)
		}
		mustApply(t, remote, Request{Owner: owner + "-frozen", Objects: objects(t, changed, Options{Force: true})})
		after := get(t, remote, configMaps, "errors", "frozen")
		if dataOf(after)["v"] != "2" || after.GetUID() == before.GetUID() {
			t.Errorf("force did not recreate the object: data %v, uid %s -> %s", dataOf(after), before.GetUID(), after.GetUID())
		}
	})
}

// available checks a Deployment's Available condition and its available replicas.
func available(d *unstructured.Unstructured, replicas int64) error {
	if d == nil {
		return fmt.Errorf("deployment not found")
	}
	got, _, _ := unstructured.NestedInt64(d.Object, "status", "availableReplicas")
	conds, _, _ := unstructured.NestedSlice(d.Object, "status", "conditions")
	for _, c := range conds {
		cond, _ := c.(map[string]any)
		if cond["type"] == "Available" && cond["status"] == "True" && got == replicas {
			return nil
		}
	}
	return fmt.Errorf("deployment %s has %d available replicas, conditions %v", d.GetName(), got, conds)
}

func checkRefs(t *testing.T, what string, refs []ObjectRef, want ...string) {
	t.Helper()
	got := make([]string, 0, len(refs))
	for _, r := range refs {
		got = append(got, r.String())
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: got %q, want %q", what, got, want)
	}
}

func checkDiffs(t *testing.T, diffs []Diff, want ...string) {
	t.Helper()
	got := make([]string, 0, len(diffs))
	for _, d := range diffs {
		got = append(got, d.String())
	}
	if !slices.Equal(got, want) {
		t.Errorf("diffs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
