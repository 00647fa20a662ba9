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
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func applied(name, value string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": "default"},
		"data":     map[string]any{"key": value},
	}}
}

func TestServerSideApply(t *testing.T) {
	f := startFleet(t, Options{Clusters: 1})
	ctx := t.Context()
	cms := dynamicClient(t, f.Clusters()[0]).Resource(configMaps).Namespace("default")

	first, err := cms.Apply(ctx, "settings", applied("settings", "one"), metav1.ApplyOptions{FieldManager: "stagecoach"})
	if err != nil {
		t.Fatal(err)
	}
	again, err := cms.Apply(ctx, "settings", applied("settings", "one"), metav1.ApplyOptions{FieldManager: "stagecoach"})
	if err != nil || again.GetResourceVersion() != first.GetResourceVersion() {
		t.Errorf("re-applying the same configuration: %v, resourceVersion %s -> %s", err, first.GetResourceVersion(), again.GetResourceVersion())
	}
	entries := again.GetManagedFields()
	if len(entries) != 1 || entries[0].Manager != "stagecoach" || entries[0].Operation != metav1.ManagedFieldsOperationApply ||
		!strings.Contains(entries[0].FieldsV1.GetRawString(), `"f:key"`) {
		t.Fatalf("managedFields %+v, want one Apply entry of stagecoach owning data.key", entries)
	}

	_, err = cms.Apply(ctx, "settings", applied("settings", "two"), metav1.ApplyOptions{FieldManager: "other"})
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), `conflict with "stagecoach"`) || !strings.Contains(err.Error(), ".data.key") {
		t.Fatalf("applying a field another manager owns: %v, want a conflict naming stagecoach and .data.key", err)
	}
	dry, err := cms.Apply(ctx, "settings", applied("settings", "two"), metav1.ApplyOptions{FieldManager: "other", Force: true, DryRun: []string{metav1.DryRunAll}})
	if err != nil || dry.Object["data"].(map[string]any)["key"] != "two" {
		t.Fatalf("dry run: %v %v", dry, err)
	}
	if live, _ := f.Clusters()[0].Get(configMaps, "default", "settings"); live.Object["data"].(map[string]any)["key"] != "one" {
		t.Error("a dry run changed the object")
	}
	forced, err := cms.Apply(ctx, "settings", applied("settings", "two"), metav1.ApplyOptions{FieldManager: "other", Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := forced.GetManagedFields(); len(got) != 1 || got[0].Manager != "other" {
		t.Errorf("after a forced apply, managedFields %+v, want other alone", got)
	}

	// Updates are recorded too.
	forced.Object["data"].(map[string]any)["extra"] = "x"
	updated, err := cms.Update(ctx, forced, metav1.UpdateOptions{FieldManager: "editor"})
	if err != nil {
		t.Fatal(err)
	}
	var managers []string
	for _, e := range updated.GetManagedFields() {
		managers = append(managers, e.Manager+"/"+string(e.Operation))
	}
	if strings.Join(managers, ",") != "other/Apply,editor/Update" {
		t.Errorf("managers after an update: %v", managers)
	}
}
