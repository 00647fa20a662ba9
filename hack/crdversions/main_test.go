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

package main

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// upstream is every version kubefleet-dev/kubefleet serves per kind, v1beta1 included, as its
// config/crd/bases at commit e160c1c says (docs/kubefleet.md, "API versions").
var upstream = map[string][]string{
	"ClusterResourcePlacement":                 {"v1", "v1beta1"},
	"ResourcePlacement":                        {"v1", "v1beta1"},
	"ClusterResourcePlacementStatus":           {"v1", "v1beta1"},
	"ClusterResourceBinding":                   {"v1", "v1beta1"},
	"ClusterResourceSnapshot":                  {"v1", "v1beta1"},
	"ClusterSchedulingPolicySnapshot":          {"v1", "v1beta1"},
	"ResourceBinding":                          {"v1beta1"},
	"ResourceSnapshot":                         {"v1beta1"},
	"SchedulingPolicySnapshot":                 {"v1beta1"},
	"MemberCluster":                            {"v1", "v1beta1"},
	"InternalMemberCluster":                    {"v1", "v1beta1"},
	"ClusterResourceOverride":                  {"v1", "v1alpha1", "v1beta1"},
	"ResourceOverride":                         {"v1", "v1alpha1", "v1beta1"},
	"ClusterResourceOverrideSnapshot":          {"v1", "v1alpha1", "v1beta1"},
	"ResourceOverrideSnapshot":                 {"v1", "v1alpha1", "v1beta1"},
	"ClusterStagedUpdateStrategy":              {"v1", "v1alpha1", "v1beta1"},
	"ClusterStagedUpdateRun":                   {"v1", "v1alpha1", "v1beta1"},
	"ClusterApprovalRequest":                   {"v1", "v1alpha1", "v1beta1"},
	"StagedUpdateStrategy":                     {"v1", "v1beta1"},
	"StagedUpdateRun":                          {"v1", "v1beta1"},
	"ApprovalRequest":                          {"v1", "v1beta1"},
	"ClusterResourcePlacementEviction":         {"v1alpha1", "v1beta1"},
	"ClusterResourcePlacementDisruptionBudget": {"v1alpha1", "v1beta1"},
	"ClusterResourceEnvelope":                  {"v1beta1"},
	"ResourceEnvelope":                         {"v1beta1"},
	"Work":                                     {"v1", "v1beta1"},
	"AppliedWork":                              {"v1", "v1beta1"},
}

// beyondUpstream are versions Stagecoach serves and Kubefleet does not.
var beyondUpstream = map[string][]string{"ResourceSnapshot": {"v1"}}

func TestTableIsUpstreams(t *testing.T) {
	for kind, want := range upstream {
		got, ok := extraVersions[kind]
		if !ok {
			t.Errorf("%s: no row", kind)
			continue
		}
		got = append(slices.Clone(got), storageVersion)
		for _, v := range beyondUpstream[kind] {
			want = append(slices.Clone(want), v)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s serves %v, want %v", kind, got, want)
		}
	}
	for kind := range extraVersions {
		if _, ok := upstream[kind]; !ok {
			t.Errorf("%s: a row for a kind Kubefleet does not have", kind)
		}
	}
}

// TestGeneratedCRDs reads config/crd as `make generate` left it: every Kubefleet CRD serves its
// row's versions, each with exactly the stored version's schema, columns and subresources.
func TestGeneratedCRDs(t *testing.T) {
	files, err := filepath.Glob("../../config/crd/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(data, crd); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(fleetGroups, crd.Spec.Group) {
			continue
		}
		seen++
		kind := crd.Spec.Names.Kind
		if crd.Spec.Conversion != nil && crd.Spec.Conversion.Strategy != apiextensionsv1.NoneConverter {
			t.Errorf("%s: conversion %s", kind, crd.Spec.Conversion.Strategy)
		}
		var names []string
		var stored *apiextensionsv1.CustomResourceDefinitionVersion
		for i, v := range crd.Spec.Versions {
			names = append(names, v.Name)
			if v.Storage {
				stored = &crd.Spec.Versions[i]
			}
		}
		want := append(slices.Clone(extraVersions[kind]), storageVersion)
		slices.Sort(want)
		if !slices.Equal(names, want) {
			t.Errorf("%s serves %v, want %v", kind, names, want)
		}
		if stored == nil || stored.Name != storageVersion {
			t.Fatalf("%s: stored version is not %s", kind, storageVersion)
		}
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				t.Errorf("%s %s: not served", kind, v.Name)
			}
			v.Name, v.Storage = stored.Name, stored.Storage
			if !reflect.DeepEqual(v, *stored) {
				t.Errorf("%s: version differs from %s beyond its name", kind, storageVersion)
			}
		}
	}
	if seen == 0 {
		t.Fatal("no Kubefleet CRDs in config/crd")
	}
}

func TestRewriteRefuses(t *testing.T) {
	crd := func(kind string, versions ...string) []byte {
		var b strings.Builder
		b.WriteString("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: placement.kubernetes-fleet.io\n")
		b.WriteString("  names:\n    kind: " + kind + "\n  versions:\n")
		for _, v := range versions {
			b.WriteString("  - name: " + v + "\n    served: true\n    storage: " + map[bool]string{true: "true", false: "false"}[v == storageVersion] + "\n")
		}
		return []byte(b.String())
	}
	for name, tc := range map[string]struct {
		data []byte
		err  string
	}{
		"a kind with no row":          {crd("NewKind", "v1beta1"), "NewKind of placement.kubernetes-fleet.io has no row"},
		"a version with its own type": {crd("ResourceBinding", "v1", "v1beta1"), "version v1 is not in the table"},
		"no v1beta1":                  {crd("ResourcePlacement", "v1"), "no stored version v1beta1"},
	} {
		if _, err := rewrite(tc.data); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: error %v, want %q", name, err, tc.err)
		}
	}
	other := []byte("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: config.projectsveltos.io\n")
	if out, err := rewrite(other); out != nil || err != nil {
		t.Errorf("a Sveltos CRD: %q, %v; want it left alone", out, err)
	}
	out, err := rewrite(crd("ClusterStagedUpdateRun", "v1beta1"))
	if err != nil {
		t.Fatal(err)
	}
	again, err := rewrite(out)
	if err != nil || string(again) != string(out) {
		t.Errorf("rewriting again changed the CRD (%v):\n%s\n---\n%s", err, out, again)
	}
	if !strings.Contains(string(out), "name: v1alpha1") {
		t.Errorf("no v1alpha1 in\n%s", out)
	}
}
