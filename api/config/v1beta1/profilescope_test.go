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

package v1beta1

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/randfill"
)

// notManagementRefs are the Spec fields whose namespaces name objects on the managed clusters
// (or select them), not objects a Profile reads from the management cluster.
var notManagementRefs = []string{"ClusterSelector", "PreDeployChecks", "ValidateHealths", "PreDeleteChecks",
	"PostDeleteChecks", "Patches", "DriftExclusions"}

// TestScopeToNamespaceReachesEveryReference fills every field of a Spec and checks that every
// field named Namespace that names a management-cluster object is the Profile's afterwards, so
// that a reference added to Spec cannot escape a Profile's namespace unnoticed.
func TestScopeToNamespaceReachesEveryReference(t *testing.T) {
	f := randfill.NewWithSeed(7).NilChance(0).NumElements(1, 2)
	for range 20 {
		var spec Spec
		f.Fill(&spec)
		spec.ScopeToNamespace("tenant")
		var walk func(v reflect.Value, path string)
		walk = func(v reflect.Value, path string) {
			switch v.Kind() {
			case reflect.Pointer:
				if !v.IsNil() {
					walk(v.Elem(), path)
				}
			case reflect.Slice:
				for i := range v.Len() {
					walk(v.Index(i), path+"[]")
				}
			case reflect.Struct:
				for i := range v.NumField() {
					name := v.Type().Field(i).Name
					field := path + "." + name
					if path == "" && slices.Contains(notManagementRefs, name) {
						continue
					}
					if name == "Namespace" && v.Field(i).Kind() == reflect.String {
						got := v.Field(i).String()
						if got != "tenant" && (got != "" || !strings.HasPrefix(field, ".TemplateResourceRefs")) {
							t.Errorf("%s is %q after ScopeToNamespace(tenant)", field, got)
						}
						continue
					}
					walk(v.Field(i), field)
				}
			}
		}
		walk(reflect.ValueOf(spec), "")
	}
}

func TestScopeToNamespaceReportsOtherNamespaces(t *testing.T) {
	spec := Spec{
		ClusterRefs: []corev1.ObjectReference{{Namespace: "b", Name: "c1"}, {Name: "c2"}},
		PolicyRefs:  []PolicyRef{{Kind: "ConfigMap", Namespace: "b", Name: "x"}, {Kind: "ConfigMap", Namespace: "a", Name: "y"}, {Kind: "Secret", Name: "z"}},
		HelmCharts:  []HelmChart{{ValuesFrom: []ValueFrom{{Kind: "ConfigMap", Namespace: "b", Name: "v"}}}},
		TemplateResourceRefs: []TemplateResourceRef{
			{Identifier: "ns", Resource: corev1.ObjectReference{Kind: "Namespace", Name: "x"}},
		},
	}
	ignored := spec.ScopeToNamespace("a")
	want := []string{`spec.clusterRefs[0].namespace "b"`, `spec.policyRefs[0].namespace "b"`, `spec.helmCharts[0].valuesFrom[0].namespace "b"`}
	if !reflect.DeepEqual(ignored, want) {
		t.Errorf("ignored = %q, want %q", ignored, want)
	}
	for _, r := range spec.PolicyRefs {
		if r.Namespace != "a" {
			t.Errorf("policyRef %s kept namespace %q", r.Name, r.Namespace)
		}
	}
	if spec.ClusterRefs[1].Namespace != "a" || spec.HelmCharts[0].ValuesFrom[0].Namespace != "a" {
		t.Errorf("references not scoped: %+v", spec)
	}
	if spec.TemplateResourceRefs[0].Resource.Namespace != "" {
		t.Errorf("a templateResourceRef without a namespace got %q", spec.TemplateResourceRefs[0].Resource.Namespace)
	}
}

func TestProfileFamilyNames(t *testing.T) {
	if got := Profiles.SummaryName("kyverno", "prod"); got != "p--kyverno-sveltos-prod" {
		t.Errorf("Profile summary name %q", got)
	}
	if got := ClusterProfiles.SummaryName("kyverno", "prod"); got != "kyverno-sveltos-prod" {
		t.Errorf("ClusterProfile summary name %q", got)
	}
	cs := &ClusterSummary{}
	cs.Labels = map[string]string{ProfileNameLabel: "p"}
	if f, n, ok := SummaryProfile(cs); !ok || f != Profiles || n != "p" {
		t.Errorf("SummaryProfile = %v %q %v", f, n, ok)
	}
	// The controller owner decides over a label the profile's own labels may have brought.
	yes := true
	cs.OwnerReferences = []metav1.OwnerReference{{APIVersion: GroupVersion.String(), Kind: ClusterProfileKind, Name: "cp", Controller: &yes}}
	if f, n, ok := SummaryProfile(cs); !ok || f != ClusterProfiles || n != "cp" {
		t.Errorf("SummaryProfile of an owned summary = %v %q %v", f, n, ok)
	}
}
