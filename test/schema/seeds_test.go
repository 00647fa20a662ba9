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

package schema_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// TestSeedManifestsAccepted applies every manifest of the seed documents as written and checks
// that the server kept every field (nothing pruned by the schema).
func TestSeedManifestsAccepted(t *testing.T) {
	ctx := t.Context()
	var manifests []fixture
	for _, f := range readFixtures(t, "*.yaml") {
		if !isStatusFixture(f) {
			manifests = append(manifests, f)
		}
	}
	for _, f := range applyOrder(manifests) {
		got, err := apply(ctx, t, f.obj)
		if err != nil {
			t.Errorf("%s rejected: %v", describe(f), err)
			continue
		}
		want := f.obj.DeepCopy().Object
		delete(want, "status")
		if diff := missing(want, got.Object, ""); len(diff) > 0 {
			t.Errorf("%s: the server dropped or changed %s", describe(f), strings.Join(diff, ", "))
		}
	}
}

// TestSeedStatusesRoundTrip writes each status the seeds show through the status subresource and
// checks it reads back unchanged: the status schema holds every field the documents display.
func TestSeedStatusesRoundTrip(t *testing.T) {
	ctx := t.Context()
	cs := kubernetes.NewForConfigOrDie(mgmt)
	for _, f := range readFixtures(t, "*-status-*.yaml") {
		if ns := f.obj.GetNamespace(); ns != "" {
			_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
			if err != nil && !apierrors.IsAlreadyExists(err) {
				t.Fatal(err)
			}
		}
		stored, err := apply(ctx, t, f.obj)
		if err != nil {
			t.Errorf("%s rejected: %v", describe(f), err)
			continue
		}
		stored.Object["status"] = f.obj.Object["status"]
		got, err := resourceFor(t, stored).UpdateStatus(ctx, stored, metav1.UpdateOptions{})
		if err != nil {
			t.Errorf("%s: status rejected: %v", describe(f), err)
			continue
		}
		if diff := missing(f.obj.Object["status"], got.Object["status"], "status"); len(diff) > 0 {
			t.Errorf("%s: the server dropped or changed %s", describe(f), strings.Join(diff, ", "))
		}
	}
}

// TestApprovalStatusPatches approves the seed's approval requests exactly as the walkthrough does:
// a merge patch of the status subresource, with and without observedGeneration.
func TestApprovalStatusPatches(t *testing.T) {
	ctx := t.Context()
	for _, f := range applyOrder(readFixtures(t, "004-*approvalrequest-*.yaml")) {
		if _, err := apply(ctx, t, f.obj); err != nil {
			t.Fatalf("%s rejected: %v", describe(f), err)
		}
		patchFile := filepath.Join(seedDir, "004-approval-patch-"+strings.ToLower(f.obj.GetKind())+"-"+f.obj.GetName()+".json")
		patch, err := os.ReadFile(patchFile)
		if err != nil {
			t.Fatal(err)
		}
		got, err := resourceFor(t, f.obj).Patch(ctx, f.obj.GetName(), types.MergePatchType, patch, metav1.PatchOptions{}, "status")
		if err != nil {
			t.Errorf("%s: approval patch rejected: %v", describe(f), err)
			continue
		}
		var want map[string]any
		if err := json.Unmarshal(patch, &want); err != nil {
			t.Fatal(err)
		}
		if diff := missing(want["status"], got.Object["status"], "status"); len(diff) > 0 {
			t.Errorf("%s: the server dropped or changed %s", describe(f), strings.Join(diff, ", "))
		}
	}
}

// TestPrinterColumns checks the columns `kubectl get` prints against the tables in seed 004.
func TestPrinterColumns(t *testing.T) {
	const fleet = "placement.kubernetes-fleet.io/v1beta1"
	for _, tc := range []struct {
		path    string
		columns string
	}{
		{"/apis/" + fleet + "/clusterresourceplacements", "NAME GEN SCHEDULED SCHEDULED-GEN AVAILABLE AVAILABLE-GEN AGE"},
		{"/apis/" + fleet + "/namespaces/default/resourceplacements", "NAME GEN SCHEDULED SCHEDULED-GEN AVAILABLE AVAILABLE-GEN AGE"},
		{"/apis/" + fleet + "/clusterresourcesnapshots", "NAME GEN AGE"},
		{"/apis/" + fleet + "/namespaces/default/resourcesnapshots", "NAME GEN AGE"},
		{"/apis/" + fleet + "/clusterstagedupdateruns", "NAME PLACEMENT RESOURCE-SNAPSHOT POLICY-SNAPSHOT INITIALIZED SUCCEEDED AGE"},
		{"/apis/" + fleet + "/namespaces/default/stagedupdateruns", "NAME PLACEMENT RESOURCE-SNAPSHOT POLICY-SNAPSHOT INITIALIZED SUCCEEDED AGE"},
		{"/apis/" + fleet + "/clusterapprovalrequests", "NAME UPDATE-RUN STAGE APPROVED APPROVALACCEPTED AGE"},
		{"/apis/" + fleet + "/namespaces/default/approvalrequests", "NAME UPDATE-RUN STAGE APPROVED APPROVALACCEPTED AGE"},
	} {
		table := getTable(t, tc.path)
		var names []string
		for _, c := range table.ColumnDefinitions {
			if c.Priority == 0 {
				names = append(names, strings.ToUpper(c.Name))
			}
		}
		if got := strings.Join(names, " "); got != tc.columns {
			t.Errorf("%s: columns %q, want %q", tc.path, got, tc.columns)
		}
	}

	// The seed's final `kubectl get csur example-run` line, from the status written above.
	want := "example-run-2 example-placement 0 0 True True"
	for _, row := range getTable(t, "/apis/"+fleet+"/clusterstagedupdateruns").Rows {
		if row.Cells[0] != "example-run-2" {
			continue
		}
		var cells []string
		for _, c := range row.Cells[:6] {
			cells = append(cells, fmt.Sprint(c))
		}
		if got := strings.Join(cells, " "); got != want {
			t.Errorf("kubectl get csur shows %q, want %q", got, want)
		}
		return
	}
	t.Error("example-run-2 is not listed")
}

// getTable reads a list as kubectl does, as a Table. The REST client retries the 429s a freshly
// established CRD may answer with while its watch cache initialises.
func getTable(t *testing.T, path string) *metav1.Table {
	t.Helper()
	body, err := kubernetes.NewForConfigOrDie(mgmt).Discovery().RESTClient().Get().AbsPath(path).
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").DoRaw(t.Context())
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	table := &metav1.Table{}
	if err := json.Unmarshal(body, table); err != nil {
		t.Fatal(err)
	}
	return table
}
