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
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

func object(t *testing.T, y string) *unstructured.Unstructured {
	t.Helper()
	o := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(y), &o.Object); err != nil {
		t.Fatal(err)
	}
	return o
}

func TestNormalize(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{
			name: "a Namespace keeps its labels and spec.finalizers, as in seed 004",
			in: `apiVersion: v1
kind: Namespace
metadata:
  name: test-namespace
  uid: 0b5f
  resourceVersion: "42"
  creationTimestamp: "2026-11-01T00:00:00Z"
  labels: {kubernetes.io/metadata.name: test-namespace}
  managedFields: [{manager: kubectl}]
spec: {finalizers: [kubernetes]}
status: {phase: Active}`,
			want: `apiVersion: v1
kind: Namespace
metadata:
  name: test-namespace
  labels: {kubernetes.io/metadata.name: test-namespace}
spec: {finalizers: [kubernetes]}`,
		},
		{
			name: "hub bookkeeping goes; user annotations and finalizers stay",
			in: `apiVersion: v1
kind: ConfigMap
metadata:
  name: test-cm
  namespace: test-namespace
  generation: 3
  selfLink: /x
  ownerReferences: [{apiVersion: v1, kind: Foo, name: f, uid: u}]
  finalizers: [example.com/keep]
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: "{}"
    team: platform
data: {key: value1}`,
			want: `apiVersion: v1
kind: ConfigMap
metadata:
  name: test-cm
  namespace: test-namespace
  finalizers: [example.com/keep]
  annotations: {team: platform}
data: {key: value1}`,
		},
		{
			name: "only bookkeeping annotations: the annotations go entirely",
			in: `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: app
  annotations: {deployment.kubernetes.io/revision: "2"}
spec: {replicas: 1}`,
			want: `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: app}
spec: {replicas: 1}`,
		},
		{
			name: "a Service loses its allocated IPs and node ports",
			in: `apiVersion: v1
kind: Service
metadata: {name: web, namespace: app}
spec:
  type: NodePort
  clusterIP: 10.0.0.7
  clusterIPs: [10.0.0.7]
  healthCheckNodePort: 30001
  ports: [{port: 80, nodePort: 30080}]`,
			want: `apiVersion: v1
kind: Service
metadata: {name: web, namespace: app}
spec:
  type: NodePort
  ports: [{port: 80}]`,
		},
		{
			name: "a headless Service keeps clusterIP None",
			in: `apiVersion: v1
kind: Service
metadata: {name: db, namespace: app}
spec: {clusterIP: None, clusterIPs: [None]}`,
			want: `apiVersion: v1
kind: Service
metadata: {name: db, namespace: app}
spec: {clusterIP: None, clusterIPs: [None]}`,
		},
		{
			name: "a Job loses the selector its controller generated",
			in: `apiVersion: batch/v1
kind: Job
metadata: {name: migrate, namespace: app}
spec:
  selector: {matchLabels: {batch.kubernetes.io/controller-uid: abc}}
  template:
    metadata:
      labels: {batch.kubernetes.io/controller-uid: abc, controller-uid: abc, job-name: migrate, batch.kubernetes.io/job-name: migrate, app: migrate}
    spec: {restartPolicy: Never}`,
			want: `apiVersion: batch/v1
kind: Job
metadata: {name: migrate, namespace: app}
spec:
  template:
    metadata:
      labels: {app: migrate}
    spec: {restartPolicy: Never}`,
		},
		{
			name: "a Job with a manual selector keeps it",
			in: `apiVersion: batch/v1
kind: Job
metadata: {name: migrate, namespace: app}
spec:
  manualSelector: true
  selector: {matchLabels: {app: migrate}}
  template: {metadata: {labels: {app: migrate}}}`,
			want: `apiVersion: batch/v1
kind: Job
metadata: {name: migrate, namespace: app}
spec:
  manualSelector: true
  selector: {matchLabels: {app: migrate}}
  template: {metadata: {labels: {app: migrate}}}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := object(t, tc.in)
			kept := in.DeepCopy()
			got := normalize(in)
			if want := object(t, tc.want); !reflect.DeepEqual(got.Object, want.Object) {
				gotY, _ := yaml.Marshal(got.Object)
				t.Errorf("normalize gave\n%s", gotY)
			}
			if !reflect.DeepEqual(in.Object, kept.Object) {
				t.Error("normalize changed its input")
			}
		})
	}
}

func TestSortObjects(t *testing.T) {
	mk := func(apiVersion, kind, ns, name string) *unstructured.Unstructured {
		o := &unstructured.Unstructured{}
		o.SetAPIVersion(apiVersion)
		o.SetKind(kind)
		o.SetNamespace(ns)
		o.SetName(name)
		return o
	}
	objs := []*unstructured.Unstructured{
		mk("example.com/v1", "Widget", "a", "w"),
		mk("apps/v1", "Deployment", "a", "web"),
		mk("v1", "ConfigMap", "b", "cm"),
		mk("v1", "Service", "a", "web"),
		mk("v1", "ConfigMap", "a", "cm2"),
		mk("v1", "ConfigMap", "a", "cm1"),
		mk("v1", "Namespace", "", "b"),
		mk("v1", "Namespace", "", "a"),
		mk("example.com/v1", "Gadget", "a", "g"),
	}
	sortObjects(objs)
	var got []string
	for _, o := range objs {
		got = append(got, o.GetKind()+"/"+o.GetNamespace()+"/"+o.GetName())
	}
	want := []string{
		"Namespace//a", "Namespace//b", "ConfigMap/a/cm1", "ConfigMap/a/cm2", "ConfigMap/b/cm",
		"Service/a/web", "Deployment/a/web", "Gadget/a/g", "Widget/a/w",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("order %v\nwant  %v", got, want)
	}
}

func contents(raws ...string) []placementv1beta1.ResourceContent {
	out := []placementv1beta1.ResourceContent{}
	for _, r := range raws {
		out = append(out, placementv1beta1.ResourceContent{RawExtension: runtime.RawExtension{Raw: []byte(r)}})
	}
	return out
}

func TestHashContents(t *testing.T) {
	a := contents(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}}`)
	b := contents(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"b"}}`)
	hashA, err := hashContents(a)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := hashContents(contents(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}}`)); again != hashA {
		t.Error("equal contents hash differently")
	}
	if hashB, _ := hashContents(b); hashB == hashA {
		t.Error("different contents hash alike")
	}
	if len(hashA) != 64 || strings.Trim(hashA, "0123456789abcdef") != "" {
		t.Errorf("hash %q is not hex SHA-256", hashA)
	}
	// The hash covers the whole spec, as Kubefleet's resource-hash annotation.
	spec, _ := json.Marshal(placementv1beta1.ResourceSnapshotSpec{SelectedResources: a})
	if string(spec) != `{"selectedResources":[{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}}]}` {
		t.Errorf("spec JSON %s", spec)
	}
	empty, _ := hashContents(nil)
	if alsoEmpty, _ := hashContents(contents()); empty != alsoEmpty {
		t.Error("no contents hash differently as nil and empty")
	}
}

func TestSplitContents(t *testing.T) {
	sized := func(sizes ...int) []placementv1beta1.ResourceContent {
		out := []placementv1beta1.ResourceContent{}
		for _, n := range sizes {
			out = append(out, placementv1beta1.ResourceContent{RawExtension: runtime.RawExtension{Raw: make([]byte, n)}})
		}
		return out
	}
	shape := func(chunks [][]placementv1beta1.ResourceContent) [][]int {
		var out [][]int
		for _, c := range chunks {
			sizes := []int{}
			for _, r := range c {
				sizes = append(sizes, len(r.Raw))
			}
			out = append(out, sizes)
		}
		return out
	}
	for _, tc := range []struct {
		sizes []int
		want  [][]int
	}{
		{nil, [][]int{{}}},
		{[]int{3, 3, 4}, [][]int{{3, 3, 4}}},
		{[]int{6, 5}, [][]int{{6}, {5}}},
		{[]int{4, 6, 1, 9}, [][]int{{4, 6}, {1, 9}}},
		{[]int{25, 2}, [][]int{{25}, {2}}}, // one too large gets a snapshot of its own
	} {
		if got := shape(splitContents(sized(tc.sizes...), 10)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("split %v: %v, want %v", tc.sizes, got, tc.want)
		}
	}
}

func snap(name, index string, master, latest bool) placementv1beta1.ResourceSnapshotObj {
	s := &placementv1beta1.ClusterResourceSnapshot{ObjectMeta: metav1.ObjectMeta{Name: name,
		Labels: map[string]string{placementv1beta1.ResourceIndexLabel: index}}}
	if master {
		s.Annotations = map[string]string{placementv1beta1.ResourceGroupHashAnnotation: "h"}
		s.Labels[placementv1beta1.IsLatestSnapshotLabel] = "false"
		if latest {
			s.Labels[placementv1beta1.IsLatestSnapshotLabel] = "true"
		}
	}
	return s
}

func TestSnapshotGroups(t *testing.T) {
	groups := groupSnapshots([]placementv1beta1.ResourceSnapshotObj{
		snap("p-2-0", "2", false, false),
		snap("p-1-snapshot", "1", true, true),
		snap("p-0-snapshot", "0", true, false),
		snap("p-2-snapshot", "2", true, false),
		snap("stray", "x", true, true),
		snap("p-3-0", "3", false, false),
	})
	var indices []int
	for _, g := range groups {
		indices = append(indices, g.index)
	}
	if !reflect.DeepEqual(indices, []int{0, 1, 2, 3}) || len(groups[2].all) != 2 || groups[3].master != nil {
		t.Fatalf("groups %+v", groups)
	}
	if l := latestGroup(groups); l == nil || l.index != 1 {
		t.Errorf("latest group %+v, want the one marked latest", l)
	}
	groups[1].master.GetLabels()[placementv1beta1.IsLatestSnapshotLabel] = "false"
	if l := latestGroup(groups); l == nil || l.index != 2 {
		t.Errorf("latest group %+v, want the newest with a master", l)
	}
	for limit, want := range map[int][]int{1: {0, 1, 2, 3}, 2: {0, 1, 2}, 4: {0}, 5: nil, 10: nil} {
		var got []int
		for _, g := range expiredGroups(groups, limit) {
			got = append(got, g.index)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("limit %d expires %v, want %v", limit, got, want)
		}
	}
}

func TestSnapshotIndex(t *testing.T) {
	listed := []placementv1beta1.ResourceSnapshotObj{snap("web-0-snapshot", "7", true, true)}
	for name, want := range map[string]int{"web-0-snapshot": 7, "web-12-snapshot": 12, "web-x-snapshot": -1, "web-3-0": -1, "": -1, "other-1-snapshot": -1} {
		got, ok := snapshotIndex(listed, "web", name)
		if !ok {
			got = -1
		}
		if got != want {
			t.Errorf("snapshotIndex(%q) = %d, want %d", name, got, want)
		}
	}
}

func TestBindingName(t *testing.T) {
	if got := bindingName("example-placement", "member1", false); got != "example-placement-member1" {
		t.Errorf("plain name %q", got)
	}
	long := bindingName(strings.Repeat("p", 50), strings.Repeat("c", 30), false)
	if len(long) > 63 || !strings.HasPrefix(long, strings.Repeat("p", 50)+"-cc") {
		t.Errorf("long name %q (%d)", long, len(long))
	}
	if long == bindingName(strings.Repeat("p", 50), strings.Repeat("c", 31), false) {
		t.Error("shortened names collide")
	}
	alt := bindingName("a-b", "c", true)
	if alt == "a-b-c" || alt == bindingName("a", "b-c", true) || !strings.HasPrefix(alt, "a-b-c-") {
		t.Errorf("alternative names %q / %q", alt, bindingName("a", "b-c", true))
	}
}
