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
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

// A Profile as Sveltos documents them: namespaced, a selector, a chart, a Lua health check and a
// dependency.
const profileManifest = `apiVersion: config.projectsveltos.io/v1beta1
kind: Profile
metadata:
  name: kyverno
  namespace: eng
spec:
  stopMatchingBehavior: WithdrawPolicies
  clusterSelector:
    matchLabels:
      env: prod
  dependsOn:
  - cert-manager
  maxUpdate: 30%
  helmCharts:
  - repositoryURL: https://kyverno.github.io/kyverno/
    repositoryName: kyverno
    chartName: kyverno/kyverno
    chartVersion: v3.3.3
    releaseName: kyverno-latest
    releaseNamespace: kyverno
    helmChartAction: Install
  validateHealths:
  - name: deployment-health
    featureID: Helm
    group: apps
    version: v1
    kind: Deployment
    namespace: kyverno
    script: |
      function evaluate(obj)
        return {healthy = true}
      end
status:
  matchingClusters:
  - apiVersion: lib.projectsveltos.io/v1beta1
    kind: SveltosCluster
    namespace: eng
    name: prod-1
  updatingClusters:
    clusters:
    - apiVersion: lib.projectsveltos.io/v1beta1
      kind: SveltosCluster
      namespace: eng
      name: prod-1
  conditions:
  - type: Ready
    status: "False"
    reason: RollingOut
    message: 0 of 1 matching clusters run the current spec
    lastTransitionTime: "2026-01-01T00:00:00Z"
`

// TestProfileAccepted: a Profile is namespaced, keeps every field of its spec, and its status
// survives the status subresource.
func TestProfileAccepted(t *testing.T) {
	ctx := t.Context()
	_, err := kubernetes.NewForConfigOrDie(mgmt).CoreV1().Namespaces().Create(ctx,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "eng"}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(profileManifest), &obj.Object); err != nil {
		t.Fatal(err)
	}
	stored, err := apply(ctx, t, obj)
	if err != nil {
		t.Fatalf("Profile rejected: %v", err)
	}
	if stored.GetNamespace() != "eng" {
		t.Errorf("Profile stored in namespace %q", stored.GetNamespace())
	}
	want := obj.DeepCopy().Object
	delete(want, "status")
	if diff := missing(want, stored.Object, ""); len(diff) > 0 {
		t.Errorf("the server dropped or changed %s", strings.Join(diff, ", "))
	}
	stored.Object["status"] = obj.Object["status"]
	got, err := resourceFor(t, stored).UpdateStatus(ctx, stored, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("status rejected: %v", err)
	}
	if diff := missing(obj.Object["status"], got.Object["status"], ".status"); len(diff) > 0 {
		t.Errorf("the status lost %s", strings.Join(diff, ", "))
	}
}
