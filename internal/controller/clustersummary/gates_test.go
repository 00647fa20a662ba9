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

package clustersummary

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

func provisionedSummary(name, label, profile string) *configv1beta1.ClusterSummary {
	cs := &configv1beta1.ClusterSummary{ObjectMeta: metav1.ObjectMeta{Namespace: "eng", Name: name, Generation: 1,
		Labels: map[string]string{label: profile}}}
	cs.Spec.ClusterNamespace, cs.Spec.ClusterName = "eng", "c1"
	cs.Spec.ClusterProfileSpec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: "ConfigMap", Name: "x"}}
	cs.Status.ObservedGeneration = 1
	cs.Status.FeatureSummaries = []configv1beta1.FeatureSummary{{FeatureID: libv1beta1.FeatureResources, Status: libv1beta1.FeatureStatusProvisioned}}
	return cs
}

// TestProfileDependsOnProfiles: a Profile's summary waits for the summary of the Profile it
// depends on, on the same cluster; a ClusterProfile of that name does not count.
func TestProfileDependsOnProfiles(t *testing.T) {
	app := provisionedSummary("p--app-sveltos-c1", configv1beta1.ProfileNameLabel, "app")
	app.Spec.ClusterProfileSpec.DependsOn = []string{"base"}
	clusterBase := provisionedSummary("base-sveltos-c1", configv1beta1.ClusterProfileNameLabel, "base")

	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(app, clusterBase).Build()
	ok, msg, err := checkDependencies(context.Background(), c, app)
	if err != nil || ok || msg != "Profile base is a dependency and it is not fully deployed yet" {
		t.Errorf("with only ClusterProfile base deployed: %v %q %v", ok, msg, err)
	}

	base := provisionedSummary("p--base-sveltos-c1", configv1beta1.ProfileNameLabel, "base")
	c = fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(app, base).Build()
	if ok, msg, err := checkDependencies(context.Background(), c, app); err != nil || !ok {
		t.Errorf("with Profile base deployed: %v %q %v", ok, msg, err)
	}
}
