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
	"fmt"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

const driftSet = `
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: drift}
data: {mode: strict}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: deleted, namespace: drift}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: worker, namespace: drift}
spec:
  replicas: 1
  selector: {matchLabels: {app: worker}}
  template:
    metadata: {labels: {app: worker}}
    spec: {containers: [{name: worker, image: busybox}]}
`

// TestDrift edits deployed objects by hand and checks what is reported as drift and what
// re-applying repairs.
func TestDrift(t *testing.T) {
	t.Parallel()
	remote, dryRuns := dryRunCounting(t)
	ctx := testContext(t)
	req := Request{
		Owner:   "ClusterSummary dev/drift-sveltos-a:Resources",
		Objects: objects(t, driftSet, Options{}),
		DriftExclusions: []libv1beta1.DriftExclusion{{
			Paths:  []string{"/spec/replicas"},
			Target: &libv1beta1.PatchSelector{Group: "apps", Kind: "Deployment", Name: "worker"},
		}},
	}
	mustApply(t, remote, req)
	// Untouched objects are proven unchanged by their fields hash, without a dry run.
	dryRuns.Store(0)
	if drifts, err := Drifted(ctx, remote, req); err != nil || len(drifts) != 0 || dryRuns.Load() != 0 {
		t.Fatalf("drift right after apply: %+v, %v, %d dry runs", drifts, err, dryRuns.Load())
	}

	// By hand: change a field Stagecoach set, add a label nobody set, scale the Deployment
	// (an excluded path), delete an object.
	patch := func(resource, name, manager, body string) {
		t.Helper()
		gvr := configMaps
		if resource == "deployments" {
			gvr = deployments
		}
		_, err := remote.Dynamic.Resource(gvr).Namespace("drift").Patch(ctx, name, types.MergePatchType, []byte(body), metav1.PatchOptions{FieldManager: manager})
		if err != nil {
			t.Fatal(err)
		}
	}
	patch("configmaps", "settings", "kubectl-edit", `{"data":{"mode":"lax"},"metadata":{"labels":{"team":"payments"}}}`)
	patch("deployments", "worker", "kubectl-scale", `{"spec":{"replicas":3}}`)
	if err := remote.Core.ConfigMaps("drift").Delete(ctx, "deleted", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	dryRuns.Store(0)
	drifts, err := Drifted(ctx, remote, req)
	if err != nil {
		t.Fatal(err)
	}
	// One per object edited and still present, and one more each time the Deployment's status
	// moved between reading it and the dry run.
	if n := dryRuns.Load(); n < 2 {
		t.Errorf("%d dry runs, want at least 2", n)
	}
	var got []string
	for _, d := range drifts {
		got = append(got, fmt.Sprintf("%s missing=%v %s", d.Object, d.Missing, strings.Join(d.Changes, "; ")))
	}
	want := []string{
		`ConfigMap drift/settings missing=false ~ data.mode: "lax" -> "strict"`,
		"ConfigMap drift/deleted missing=true ",
	}
	if !slices.Equal(got, want) {
		t.Errorf("drift:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	mustApply(t, remote, req)
	settings := get(t, remote, configMaps, "drift", "settings")
	if dataOf(settings)["mode"] != "strict" || settings.GetLabels()["team"] != "payments" {
		t.Errorf("after re-apply: data %v labels %v, want mode strict and the foreign label kept", dataOf(settings), settings.GetLabels())
	}
	replicas, _, _ := unstructured.NestedInt64(get(t, remote, deployments, "drift", "worker").Object, "spec", "replicas")
	if replicas != 3 {
		t.Errorf("re-apply reverted the excluded replicas to %d", replicas)
	}
	if get(t, remote, configMaps, "drift", "deleted") == nil {
		t.Error("re-apply did not recreate the deleted object")
	}
	dryRuns.Store(0)
	if drifts, err := Drifted(ctx, remote, req); err != nil || len(drifts) != 0 || dryRuns.Load() != 0 {
		t.Errorf("drift after re-apply: %+v, %v, %d dry runs", drifts, err, dryRuns.Load())
	}
}

const dryRunBase = `
apiVersion: v1
kind: ConfigMap
metadata: {name: same, namespace: dryrun}
data: {a: "1"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: changed, namespace: dryrun}
data: {a: "1"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: removed, namespace: dryrun}
---
apiVersion: v1
kind: Secret
metadata: {name: token, namespace: dryrun}
stringData: {token: old-secret-value}
`

// TestDryRun checks that a dry run reports every kind of change and writes nothing.
func TestDryRun(t *testing.T) {
	t.Parallel()
	remote := newRemote(t)
	ctx := testContext(t)
	const owner = "ClusterSummary dev/dryrun-sveltos-a:Resources"
	mustApply(t, remote, Request{Owner: owner, Objects: objects(t, dryRunBase, Options{})})
	theirs := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: theirs, namespace: dryrun}\n"
	mustApply(t, remote, Request{Owner: "ClusterSummary dev/other:Resources", Tier: 10, Objects: objects(t, theirs, Options{})})
	inventoryBefore, err := remote.Core.ConfigMaps(InventoryNamespace).Get(ctx, InventoryName(owner), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}

	next := strings.Replace(dryRunBase, "metadata: {name: changed, namespace: dryrun}\ndata: {a: \"1\"}", "metadata: {name: changed, namespace: dryrun}\ndata: {a: \"2\"}", 1)
	next = strings.Replace(next, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: removed, namespace: dryrun}\n", "", 1)
	next = strings.Replace(next, "old-secret-value", "new-secret-value", 1)
	next += "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: added, namespace: dryrun}\n---\n" + theirs +
		"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: elsewhere, namespace: dryrun-new}\n"
	res, err := Apply(ctx, remote, Request{Owner: owner, Objects: objects(t, next, Options{}), DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	checkDiffs(t, res.Diffs,
		"Create Namespace dryrun-new: created for the objects it holds (not part of the inventory)",
		"Update ConfigMap dryrun/changed",
		"Update Secret dryrun/token",
		"Create ConfigMap dryrun/added",
		`Conflict ConfigMap dryrun/theirs: ConfigMap dryrun/theirs is deployed by "ClusterSummary dev/other:Resources" with tier 10; tier 100 does not take it over (a lower tier wins)`,
		"Create ConfigMap dryrun-new/elsewhere: not validated: namespace dryrun-new does not exist yet",
		"Delete ConfigMap dryrun/removed: no longer in the set")
	for _, d := range res.Diffs {
		switch d.Object.Name {
		case "changed":
			if !slices.Equal(d.Changes, []string{`~ data.a: "1" -> "2"`}) {
				t.Errorf("changes of %s: %q", d.Object, d.Changes)
			}
		case "token":
			if !slices.Equal(d.Changes, []string{"~ data.token: (redacted) -> (redacted)"}) {
				t.Errorf("changes of %s: %q", d.Object, d.Changes)
			}
		}
	}
	if len(res.Applied) != 0 || len(res.DeployedGVKs) != 0 {
		t.Errorf("a dry run reports deployed objects: %v %v", res.Applied, res.DeployedGVKs)
	}

	// Nothing changed on the cluster.
	if dataOf(get(t, remote, configMaps, "dryrun", "changed"))["a"] != "1" || get(t, remote, configMaps, "dryrun", "added") != nil ||
		get(t, remote, configMaps, "dryrun", "removed") == nil {
		t.Error("the dry run changed objects")
	}
	if _, err := remote.Core.Namespaces().Get(ctx, "dryrun-new", metav1.GetOptions{}); err == nil {
		t.Error("the dry run created a namespace")
	}
	inventoryAfter, _ := remote.Core.ConfigMaps(InventoryNamespace).Get(ctx, InventoryName(owner), metav1.GetOptions{})
	if inventoryAfter.ResourceVersion != inventoryBefore.ResourceVersion {
		t.Error("the dry run wrote the inventory")
	}
}
