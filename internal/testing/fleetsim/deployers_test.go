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

package fleetsim

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/testr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/chartrepo"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/helm"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
)

// These tests run Stagecoach's own deployers against a simulated cluster: the simulator is good
// enough for benchmarks only if they work on it as on a real one.

const appSet = `
apiVersion: v1
kind: Namespace
metadata: {name: app}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: app}
data: {mode: one}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: app}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
`

const widgetSet = `
apiVersion: test.stagecoach.dev/v1
kind: Widget
metadata: {name: w1, namespace: app}
spec: {size: 3}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.test.stagecoach.dev}
spec:
  group: test.stagecoach.dev
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`

func deployerContext(t *testing.T) context.Context {
	return logr.NewContext(t.Context(), testr.New(t))
}

func objectsOf(t *testing.T, yaml string) []manifests.Object {
	t.Helper()
	const source = "ConfigMap test/app"
	objs, err := manifests.Parse(source, map[string][]byte{"objects.yaml": []byte(yaml)})
	if err != nil {
		t.Fatal(err)
	}
	return manifests.ObjectsOf(objs, source, manifests.Options{})
}

func refs(rs []manifests.ObjectRef) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.String())
	}
	return out
}

func TestManifestsDeployer(t *testing.T) {
	f := startFleet(t, Options{Clusters: 2, AvailableAfter: 100 * time.Millisecond})
	c := f.Clusters()[1]
	r := remote(t, c)
	ctx := deployerContext(t)
	const owner = "ClusterSummary x/app:Resources"

	res, err := manifests.Apply(ctx, r, manifests.Request{Owner: owner, Objects: objectsOf(t, appSet+"---"+widgetSet)})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Namespace app", "CustomResourceDefinition widgets.test.stagecoach.dev", "ConfigMap app/settings", "Deployment app/web", "Widget app/w1"}
	if got := refs(res.Applied); !slices.Equal(got, want) {
		t.Errorf("applied %q, want %q", got, want)
	}
	web, ok := c.Get(deployments, "app", "web")
	if !ok {
		t.Fatal("the Deployment is not on the cluster")
	}
	entries := web.GetManagedFields()
	if len(entries) == 0 || entries[0].Manager != manifests.FieldManager || entries[0].Operation != metav1.ManagedFieldsOperationApply {
		t.Errorf("managedFields of the Deployment: %+v", entries)
	}

	inventory := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	before, ok := c.Get(inventory, manifests.InventoryNamespace, manifests.InventoryName(owner))
	if !ok {
		t.Fatal("no inventory")
	}
	requests := c.Requests()
	if _, err := manifests.Apply(ctx, r, manifests.Request{Owner: owner, Objects: objectsOf(t, appSet+"---"+widgetSet)}); err != nil {
		t.Fatal(err)
	}
	t.Logf("re-applying 5 unchanged objects took %d requests", c.Requests()-requests)
	after, _ := c.Get(inventory, manifests.InventoryNamespace, manifests.InventoryName(owner))
	again, _ := c.Get(deployments, "app", "web")
	if after.GetResourceVersion() != before.GetResourceVersion() || again.GetResourceVersion() != web.GetResourceVersion() &&
		again.GetGeneration() != web.GetGeneration() {
		t.Errorf("re-applying the same set changed the inventory (%s -> %s) or the Deployment's generation (%d -> %d)",
			before.GetResourceVersion(), after.GetResourceVersion(), web.GetGeneration(), again.GetGeneration())
	}

	res, err = manifests.Apply(ctx, r, manifests.Request{Owner: owner, Objects: objectsOf(t, appSet)})
	if err != nil {
		t.Fatal(err)
	}
	if got := refs(res.Pruned); !slices.Equal(got, []string{"Widget app/w1", "CustomResourceDefinition widgets.test.stagecoach.dev"}) {
		t.Errorf("pruned %q", got)
	}
	if _, ok := c.Get(crds, "", "widgets.test.stagecoach.dev"); ok {
		t.Error("the CRD was not pruned")
	}

	deleted, err := manifests.Withdraw(ctx, r, owner)
	if err != nil {
		t.Fatal(err)
	}
	if got := refs(deleted); !slices.Equal(got, []string{"ConfigMap app/settings", "Deployment app/web", "Namespace app"}) {
		t.Errorf("withdrawn %q", got)
	}
	if _, ok := c.Get(deployments, "app", "web"); ok {
		t.Error("the Deployment survived its withdrawal")
	}
}

func TestHelmDeployer(t *testing.T) {
	f := startFleet(t, Options{Clusters: 1, AvailableAfter: 200 * time.Millisecond})
	c := f.Clusters()[0]
	r := remote(t, c)
	ctx := t.Context()
	repoURL, stop, err := chartrepo.Serve(ctx, "../../../testdata/charts")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	cache, err := helm.NewCache(helm.CacheOptions{Dir: t.TempDir(), Log: testr.New(t)})
	if err != nil {
		t.Fatal(err)
	}
	d, err := helm.NewDeployer(helm.Options{Cache: cache, Log: testr.New(t)})
	if err != nil {
		t.Fatal(err)
	}
	const owner = "ClusterSummary x/web:Helm"
	hc := configv1beta1.HelmChart{
		RepositoryURL: repoURL, RepositoryName: "local", ChartName: "local/webapp", ChartVersion: "1.0.0",
		ReleaseName: "web", ReleaseNamespace: "web",
		Options: &configv1beta1.HelmOptions{Wait: true, Timeout: &metav1.Duration{Duration: time.Minute}},
	}

	rel, err := d.Deploy(ctx, r, owner, hc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rel.Action != helm.ActionInstalled || rel.Revision != 1 || rel.Status != "deployed" {
		t.Fatalf("install: %+v", rel)
	}
	dep, err := clientset(t, c).AppsV1().Deployments("web").Get(ctx, "web", metav1.GetOptions{})
	if err != nil || available(dep) != nil {
		t.Fatalf("Deploy with wait returned before the Deployment was available: %v %v", err, available(dep))
	}

	if rel, err = d.Deploy(ctx, r, owner, hc, nil); err != nil || rel.Action != helm.ActionUnchanged {
		t.Fatalf("deploying the same again: %+v, %v", rel, err)
	}

	hc.ChartVersion = "1.1.0"
	rel, err = d.Deploy(ctx, r, owner, hc, map[string]any{"replicas": 3})
	if err != nil {
		t.Fatal(err)
	}
	if rel.Action != helm.ActionUpgraded || rel.Revision != 2 || rel.ChartVersion != "1.1.0" {
		t.Fatalf("upgrade: %+v", rel)
	}
	cm, err := clientset(t, c).CoreV1().ConfigMaps("web").Get(ctx, "web-info", metav1.GetOptions{})
	if err != nil || cm.Data["chartVersion"] != "1.1.0" {
		t.Fatalf("ConfigMap after the upgrade: %v, %v", cm.Data, err)
	}
	dep, err = clientset(t, c).AppsV1().Deployments("web").Get(ctx, "web", metav1.GetOptions{})
	if err != nil || *dep.Spec.Replicas != 3 || available(dep) != nil {
		t.Fatalf("Deployment after the upgrade: %v, %v", err, available(dep))
	}

	if err := d.Uninstall(ctx, r, owner, hc); err != nil {
		t.Fatal(err)
	}
	if _, err := clientset(t, c).AppsV1().Deployments("web").Get(ctx, "web", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Deployment after uninstall: %v", err)
	}
	secrets, err := clientset(t, c).CoreV1().Secrets("web").List(ctx, metav1.ListOptions{LabelSelector: "owner=helm"})
	if err != nil || len(secrets.Items) != 0 {
		t.Errorf("release records after uninstall: %d, %v", len(secrets.Items), err)
	}
}
