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
	"fmt"
	"testing"
	"time"

	kstatus "github.com/fluxcd/cli-utils/pkg/kstatus/status"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

func deployment(name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	}
}

// available says why a Deployment is not (yet) available at its current generation.
func available(d *appsv1.Deployment) error {
	if d.Status.ObservedGeneration != d.Generation || d.Status.AvailableReplicas != *d.Spec.Replicas {
		return fmt.Errorf("generation %d observed %d, %d/%d available", d.Generation, d.Status.ObservedGeneration,
			d.Status.AvailableReplicas, *d.Spec.Replicas)
	}
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable && c.Status == corev1.ConditionTrue {
			return nil
		}
	}
	return fmt.Errorf("no Available condition: %v", d.Status.Conditions)
}

func TestDeploymentBecomesAvailable(t *testing.T) {
	const after = 300 * time.Millisecond
	f := startFleet(t, Options{Clusters: 1, AvailableAfter: after})
	deps := clientset(t, f.Clusters()[0]).AppsV1().Deployments("default")
	start := time.Now()
	created, err := deps.Create(t.Context(), deployment("web", 3), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if available(created) == nil {
		t.Fatal("available as soon as created")
	}
	var live *appsv1.Deployment
	eventually(t, 5*time.Second, func() error {
		live, err = deps.Get(t.Context(), "web", metav1.GetOptions{})
		if err != nil {
			return err
		}
		return available(live)
	})
	if waited := time.Since(start); waited < after {
		t.Errorf("available after %s, before AvailableAfter (%s)", waited, after)
	}

	live.Spec.Replicas = ptr.To[int32](5)
	updated, err := deps.Update(t.Context(), live, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if updated.Generation != live.Generation+1 || available(updated) == nil {
		t.Fatalf("after a spec change: generation %d -> %d, available %v", live.Generation, updated.Generation, available(updated))
	}
	eventually(t, 5*time.Second, func() error {
		d, err := deps.Get(t.Context(), "web", metav1.GetOptions{})
		if err != nil {
			return err
		}
		return available(d)
	})
}

func TestInvalidWorkload(t *testing.T) {
	f := startFleet(t, Options{Clusters: 1})
	bad := deployment("bad", 1)
	bad.Spec.Selector = nil
	_, err := clientset(t, f.Clusters()[0]).AppsV1().Deployments("default").Create(t.Context(), bad, metav1.CreateOptions{})
	if want := `Deployment.apps "bad" is invalid: spec.selector: Required value`; err == nil || err.Error() != want {
		t.Errorf("a Deployment without selector: %v, want %q", err, want)
	}
}

// TestWorkloadsBecomeReady: every simulated controller writes a status that fits the kind's
// schema (the field manager records it) and that kstatus takes for ready.
func TestWorkloadsBecomeReady(t *testing.T) {
	f := startFleet(t, Options{Clusters: 1})
	c := f.Clusters()[0]
	dc := dynamicClient(t, c)
	template := `{"metadata": {"labels": {"app": "x"}}, "spec": {"restartPolicy": %q, "containers": [{"name": "c", "image": "i"}]}}`
	cases := []struct {
		gvr     schema.GroupVersionResource
		kind    string
		spec    string
		isReady func(status map[string]any) bool
	}{
		{deployments, "Deployment", `{"selector": {"matchLabels": {"app": "x"}}, "template": ` + fmt.Sprintf(template, "Always") + `}`,
			func(s map[string]any) bool { return s["availableReplicas"] == int64(1) }},
		{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}, "StatefulSet",
			`{"replicas": 2, "selector": {"matchLabels": {"app": "x"}}, "template": ` + fmt.Sprintf(template, "Always") + `}`,
			func(s map[string]any) bool {
				return s["readyReplicas"] == int64(2) && s["currentRevision"] == s["updateRevision"]
			}},
		{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}, "DaemonSet",
			`{"selector": {"matchLabels": {"app": "x"}}, "template": ` + fmt.Sprintf(template, "Always") + `}`,
			func(s map[string]any) bool { return s["numberReady"] == int64(1) }},
		{schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}, "Job",
			`{"template": ` + fmt.Sprintf(template, "Never") + `}`,
			func(s map[string]any) bool { return s["succeeded"] == int64(1) }},
		{schema.GroupVersionResource{Version: "v1", Resource: "pods"}, "Pod", `{"containers": [{"name": "c", "image": "i"}]}`,
			func(s map[string]any) bool { return s["phase"] == "Running" }},
	}
	for _, tc := range cases {
		t.Run(tc.kind, func(t *testing.T) {
			obj, err := parseObject([]byte(fmt.Sprintf(`{"apiVersion": %q, "kind": %q, "metadata": {"name": "x"}, "spec": %s}`,
				tc.gvr.GroupVersion().String(), tc.kind, tc.spec)))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := dc.Resource(tc.gvr).Namespace("default").Create(t.Context(), obj, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			eventually(t, 5*time.Second, func() error {
				live, ok := c.Get(tc.gvr, "default", "x")
				status, _ := live.Object["status"].(map[string]any)
				if !ok || !tc.isReady(status) {
					return fmt.Errorf("status %v", status)
				}
				// kstatus is what Helm's wait uses.
				if res, err := kstatus.Compute(live); err != nil || res.Status != kstatus.CurrentStatus {
					return fmt.Errorf("kstatus says %v (%v)", res, err)
				}
				for _, e := range live.GetManagedFields() {
					if e.Manager == controllerManager && e.Subresource == "status" {
						return nil
					}
				}
				return fmt.Errorf("no managedFields entry for the status: %+v", live.GetManagedFields())
			})
		})
	}
}
