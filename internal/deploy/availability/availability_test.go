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

package availability

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

func obj(t *testing.T, manifest string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(manifest), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestOf(t *testing.T) {
	for _, tc := range []struct {
		name     string
		manifest string
		want     State
		// message, when set, must be contained in the result's message.
		message string
	}{
		{
			name: "deployment available",
			manifest: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, generation: 3}, spec: {replicas: 2},
				status: {observedGeneration: 3, replicas: 2, updatedReplicas: 2, availableReplicas: 2}}`,
			want: Available,
		},
		{
			name: "deployment with default replicas available",
			manifest: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, generation: 1}, spec: {},
				status: {observedGeneration: 1, replicas: 1, updatedReplicas: 1, availableReplicas: 1}}`,
			want: Available,
		},
		{
			name: "deployment whose status describes an older generation",
			manifest: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, generation: 4}, spec: {replicas: 2},
				status: {observedGeneration: 3, replicas: 2, updatedReplicas: 2, availableReplicas: 2}}`,
			want:    NotYetAvailable,
			message: "has not observed generation 4",
		},
		{
			name: "deployment with replicas not available yet",
			manifest: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, generation: 1}, spec: {replicas: 2},
				status: {observedGeneration: 1, replicas: 2, updatedReplicas: 2, availableReplicas: 1}}`,
			want:    NotYetAvailable,
			message: "2 of 2 replicas updated, 1 available",
		},
		{
			name: "deployment rolling out, old replicas still running",
			manifest: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, generation: 2}, spec: {replicas: 2},
				status: {observedGeneration: 2, replicas: 3, updatedReplicas: 2, availableReplicas: 2}}`,
			want:    NotYetAvailable,
			message: "3 in total",
		},
		{
			name:     "deployment without status",
			manifest: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, generation: 1}, spec: {replicas: 1}}`,
			want:     NotYetAvailable,
		},
		{
			name: "statefulset available",
			manifest: `{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: s, generation: 2}, spec: {replicas: 3},
				status: {observedGeneration: 2, availableReplicas: 3, currentReplicas: 3, updatedReplicas: 3, currentRevision: s-1, updateRevision: s-1}}`,
			want: Available,
		},
		{
			name: "statefulset updating",
			manifest: `{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: s, generation: 2}, spec: {replicas: 3},
				status: {observedGeneration: 2, availableReplicas: 3, currentReplicas: 2, updatedReplicas: 1, currentRevision: s-1, updateRevision: s-2}}`,
			want:    NotYetAvailable,
			message: "revision s-2",
		},
		{
			name: "statefulset short of replicas",
			manifest: `{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: s, generation: 1}, spec: {replicas: 3},
				status: {observedGeneration: 1, availableReplicas: 2, currentReplicas: 3, updatedReplicas: 3, currentRevision: s-1, updateRevision: s-1}}`,
			want:    NotYetAvailable,
			message: "2 of 3 replicas available",
		},
		{
			name: "daemonset available",
			manifest: `{apiVersion: apps/v1, kind: DaemonSet, metadata: {name: ds, generation: 1},
				status: {observedGeneration: 1, desiredNumberScheduled: 2, numberAvailable: 2, currentNumberScheduled: 2, updatedNumberScheduled: 2}}`,
			want: Available,
		},
		{
			name: "daemonset not available everywhere",
			manifest: `{apiVersion: apps/v1, kind: DaemonSet, metadata: {name: ds, generation: 1},
				status: {observedGeneration: 1, desiredNumberScheduled: 2, numberAvailable: 1, currentNumberScheduled: 2, updatedNumberScheduled: 2}}`,
			want:    NotYetAvailable,
			message: "1 of 2 pods available",
		},
		{
			name: "daemonset updating",
			manifest: `{apiVersion: apps/v1, kind: DaemonSet, metadata: {name: ds, generation: 2},
				status: {observedGeneration: 2, desiredNumberScheduled: 2, numberAvailable: 2, currentNumberScheduled: 2, updatedNumberScheduled: 1}}`,
			want: NotYetAvailable,
		},
		{
			name:     "ClusterIP service with an IP",
			manifest: `{apiVersion: v1, kind: Service, metadata: {name: s}, spec: {clusterIP: 10.0.0.1, clusterIPs: [10.0.0.1]}}`,
			want:     Available,
		},
		{
			name:     "headless service",
			manifest: `{apiVersion: v1, kind: Service, metadata: {name: s}, spec: {type: ClusterIP, clusterIPs: ["None"]}}`,
			want:     Available,
		},
		{
			name:     "NodePort service without an IP",
			manifest: `{apiVersion: v1, kind: Service, metadata: {name: s}, spec: {type: NodePort}}`,
			want:     NotYetAvailable,
			message:  "no cluster IP",
		},
		{
			name: "LoadBalancer service with an ingress hostname",
			manifest: `{apiVersion: v1, kind: Service, metadata: {name: s}, spec: {type: LoadBalancer, clusterIPs: [10.0.0.1]},
				status: {loadBalancer: {ingress: [{hostname: lb.example.com}]}}}`,
			want: Available,
		},
		{
			name:     "LoadBalancer service waiting for its load balancer",
			manifest: `{apiVersion: v1, kind: Service, metadata: {name: s}, spec: {type: LoadBalancer, clusterIPs: [10.0.0.1]}}`,
			want:     NotYetAvailable,
			message:  "load balancer",
		},
		{
			name:     "ExternalName service",
			manifest: `{apiVersion: v1, kind: Service, metadata: {name: s}, spec: {type: ExternalName, externalName: example.com}}`,
			want:     NotTrackable,
		},
		{
			name: "CRD established",
			manifest: `{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: widgets.example.com},
				status: {conditions: [{type: NamesAccepted, status: "True"}, {type: Established, status: "True"}]}}`,
			want: Available,
		},
		{
			name: "CRD not established yet",
			manifest: `{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: widgets.example.com},
				status: {conditions: [{type: NamesAccepted, status: "True"}, {type: Established, status: "False"}]}}`,
			want:    NotYetAvailable,
			message: "Established",
		},
		{
			name: "PDB with sufficient pods",
			manifest: `{apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: p, generation: 1},
				status: {observedGeneration: 1, disruptionsAllowed: 1, conditions: [{type: DisruptionAllowed, status: "True", reason: SufficientPods, lastTransitionTime: "2026-01-01T00:00:00Z", message: ""}]}}`,
			want: Available,
		},
		{
			name: "PDB with insufficient pods, computed",
			manifest: `{apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: p, generation: 1},
				status: {observedGeneration: 1, disruptionsAllowed: 0, conditions: [{type: DisruptionAllowed, status: "False", reason: InsufficientPods, lastTransitionTime: "2026-01-01T00:00:00Z", message: ""}]}}`,
			want: Available,
		},
		{
			name: "PDB status from an older generation",
			manifest: `{apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: p, generation: 2},
				status: {observedGeneration: 1, disruptionsAllowed: 1, conditions: [{type: DisruptionAllowed, status: "True", reason: SufficientPods, lastTransitionTime: "2026-01-01T00:00:00Z", message: ""}]}}`,
			want: NotYetAvailable,
		},
		{
			name:     "PDB without status",
			manifest: `{apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: p, generation: 1}}`,
			want:     NotYetAvailable,
		},
		{
			name:     "job complete",
			manifest: `{apiVersion: batch/v1, kind: Job, metadata: {name: j}, status: {succeeded: 1, conditions: [{type: SuccessCriteriaMet, status: "True"}, {type: Complete, status: "True"}]}}`,
			want:     Available,
		},
		{
			name:     "job running",
			manifest: `{apiVersion: batch/v1, kind: Job, metadata: {name: j}, spec: {completions: 3}, status: {succeeded: 1, active: 1}}`,
			want:     NotYetAvailable,
			message:  "1 of 3 completions succeeded",
		},
		{
			name:     "job failed",
			manifest: `{apiVersion: batch/v1, kind: Job, metadata: {name: j}, status: {failed: 7, conditions: [{type: Failed, status: "True", reason: BackoffLimitExceeded, message: "Job has reached the specified backoff limit"}]}}`,
			want:     NotYetAvailable,
			message:  "the job failed (BackoffLimitExceeded)",
		},
		{
			name:     "configmap",
			manifest: `{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}`,
			want:     Available,
		},
		{
			name:     "namespace",
			manifest: `{apiVersion: v1, kind: Namespace, metadata: {name: n}}`,
			want:     Available,
		},
		{
			name:     "cluster role binding",
			manifest: `{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRoleBinding, metadata: {name: b}}`,
			want:     Available,
		},
		{
			name:     "ingress is not trackable",
			manifest: `{apiVersion: networking.k8s.io/v1, kind: Ingress, metadata: {name: i}}`,
			want:     NotTrackable,
			message:  "Ingress.networking.k8s.io",
		},
		{
			name:     "custom resource is not trackable",
			manifest: `{apiVersion: example.com/v1, kind: Widget, metadata: {name: w}}`,
			want:     NotTrackable,
		},
		{
			name:     "a kind of the same name in another group is not trackable",
			manifest: `{apiVersion: example.com/v1, kind: Deployment, metadata: {name: d}}`,
			want:     NotTrackable,
		},
		{
			name:     "a workload whose status has the wrong shape",
			manifest: `{apiVersion: apps/v1, kind: Deployment, metadata: {name: d}, status: {replicas: "two"}}`,
			want:     NotYetAvailable,
			message:  "its status cannot be read",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Of(obj(t, tc.manifest))
			if got.State != tc.want {
				t.Fatalf("state %s (%q), want %s", got.State, got.Message, tc.want)
			}
			if !strings.Contains(got.Message, tc.message) {
				t.Errorf("message %q does not contain %q", got.Message, tc.message)
			}
			if got.OK() != (tc.want != NotYetAvailable) {
				t.Errorf("OK() = %v", got.OK())
			}
		})
	}
}

func TestForKind(t *testing.T) {
	for _, tc := range []struct {
		gk      schema.GroupKind
		decided bool
		want    State
	}{
		{schema.GroupKind{Kind: "ConfigMap"}, true, Available},
		{schema.GroupKind{Group: "rbac.authorization.k8s.io", Kind: "Role"}, true, Available},
		{schema.GroupKind{Group: "example.com", Kind: "Widget"}, true, NotTrackable},
		{schema.GroupKind{Group: "apps", Kind: "Deployment"}, false, ""},
		{schema.GroupKind{Kind: "Service"}, false, ""},
		{schema.GroupKind{Group: "batch", Kind: "Job"}, false, ""},
	} {
		got, decided := ForKind(tc.gk)
		if decided != tc.decided || got.State != tc.want {
			t.Errorf("ForKind(%s) = %v, %v; want %v, %v", tc.gk, got.State, decided, tc.want, tc.decided)
		}
	}
}
