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

package view

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

// TestNamespacedProfile: a Profile is read from its namespace, and its summary, which carries
// the spec scoped to that namespace, counts as running the current spec.
func TestNamespacedProfile(t *testing.T) {
	p := &configv1beta1.Profile{ObjectMeta: metav1.ObjectMeta{Namespace: "eng", Name: "web", Generation: 1}}
	p.Spec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: "ConfigMap", Name: "content"}}
	p.Status.MatchingClusterRefs = []corev1.ObjectReference{{Namespace: "eng", Name: "c1"}}
	cs := &configv1beta1.ClusterSummary{ObjectMeta: metav1.ObjectMeta{Namespace: "eng", Name: "p--web-sveltos-c1", Generation: 1,
		Labels: map[string]string{configv1beta1.ProfileNameLabel: "web"}}}
	cs.Spec.ClusterNamespace, cs.Spec.ClusterName = "eng", "c1"
	cs.Spec.ClusterProfileSpec = *configv1beta1.DeployedSpec(p)
	cs.Status.ObservedGeneration = 1
	cs.Status.FeatureSummaries = []configv1beta1.FeatureSummary{{FeatureID: libv1beta1.FeatureResources, Status: libv1beta1.FeatureStatusProvisioned}}
	// A ClusterProfile of the same name, elsewhere, is not this Profile's.
	other := cs.DeepCopy()
	other.Namespace, other.Name, other.Labels = "ops", "web-sveltos-c2", map[string]string{configv1beta1.ClusterProfileNameLabel: "web"}
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(p, cs, other).Build()

	r, err := Profile(context.Background(), c, "eng", "web", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Kind != "Profile" || r.Namespace != "eng" || len(r.Stages) != 1 || len(r.Stages[0].Clusters) != 1 {
		t.Fatalf("rollout %+v", r)
	}
	if cl := r.Stages[0].Clusters[0]; cl.Name != "eng/c1" || cl.State != Succeeded {
		t.Errorf("cluster %+v, want eng/c1 succeeded", cl)
	}
	if _, err := Profile(context.Background(), c, "", "web", Options{}); err == nil {
		t.Error("a ClusterProfile web was found")
	}
}
