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

package render

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
)

// TestProfileDeploysLocallyInItsNamespaceOnly: a Profile's deploymentType Local content stays in
// its namespace; a ClusterProfile's may go anywhere its ServiceAccount may.
func TestProfileDeploysLocallyInItsNamespaceOnly(t *testing.T) {
	doc := func(ns string) Source {
		return Source{Kind: "ConfigMap", Namespace: "tenant", Name: "src", Data: map[string][]byte{
			"cm.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: " + ns + "\n"),
		}}
	}
	summary := func(label string) *configv1beta1.ClusterSummary {
		cs := &configv1beta1.ClusterSummary{ObjectMeta: metav1.ObjectMeta{Namespace: "tenant", Name: "s",
			Labels: map[string]string{label: "p"}}}
		cs.Spec.ClusterProfileSpec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: "ConfigMap", Name: "src", DeploymentType: configv1beta1.DeploymentTypeLocal}}
		return cs
	}
	if _, local, err := Requests(summary(configv1beta1.ProfileNameLabel), []Source{doc("tenant")}, nil); err != nil || len(local.Objects) != 1 {
		t.Errorf("Profile, own namespace: %d objects, %v", len(local.Objects), err)
	}
	_, _, err := Requests(summary(configv1beta1.ProfileNameLabel), []Source{doc("kube-system")}, nil)
	if err == nil || !IsPermanent(err) || !strings.Contains(err.Error(), `outside namespace "tenant"`) {
		t.Errorf("Profile, other namespace: %v", err)
	}
	if _, local, err := Requests(summary(configv1beta1.ClusterProfileNameLabel), []Source{doc("kube-system")}, nil); err != nil || len(local.Objects) != 1 {
		t.Errorf("ClusterProfile, other namespace: %d objects, %v", len(local.Objects), err)
	}
}
