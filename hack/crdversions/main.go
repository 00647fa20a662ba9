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

// Command crdversions makes every Kubefleet CRD that controller-gen wrote serve the versions
// Kubefleet serves for its kind, each with the v1beta1 schema, v1beta1 stored. `make generate`
// runs it right after controller-gen:
//
//	go run ./hack/crdversions config/crd
//
// Kubefleet's older versions (v1alpha1, and v1 for the kinds added before v1beta1 grew) have
// schemas that are field-subsets of v1beta1's, and its CRDs convert with strategy None. Serving
// v1beta1's schema under every name keeps None lossless: an object written in any version reads
// back in any other with nothing pruned. One Go type per kind (api/*/v1beta1) is all there is.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"sigs.k8s.io/yaml"
)

// storageVersion is the version controller-gen writes from api/*/v1beta1, and the one stored.
const storageVersion = "v1beta1"

// fleetGroups are the Kubefleet API groups; every CRD of theirs needs a row in extraVersions.
var fleetGroups = []string{"placement.kubernetes-fleet.io", "cluster.kubernetes-fleet.io"}

// extraVersions lists, for each Kubefleet kind, the versions served besides v1beta1: those of
// kubefleet-dev/kubefleet's config/crd/bases. A row whose CRD does not exist is skipped.
var extraVersions = map[string][]string{
	// placement.kubernetes-fleet.io
	"ClusterResourcePlacement":        {"v1"},
	"ResourcePlacement":               {"v1"},
	"ClusterResourcePlacementStatus":  {"v1"},
	"ClusterResourceBinding":          {"v1"},
	"ResourceBinding":                 nil,
	"ClusterResourceSnapshot":         {"v1"},
	"ClusterSchedulingPolicySnapshot": {"v1"},
	"SchedulingPolicySnapshot":        nil,
	// Kubefleet serves ResourceSnapshot at v1beta1 only; Stagecoach has served v1 as well since
	// before this table, and kubectl shows snapshots at the group's newest version.
	"ResourceSnapshot":                         {"v1"},
	"ClusterResourceOverride":                  {"v1", "v1alpha1"},
	"ResourceOverride":                         {"v1", "v1alpha1"},
	"ClusterResourceOverrideSnapshot":          {"v1", "v1alpha1"},
	"ResourceOverrideSnapshot":                 {"v1", "v1alpha1"},
	"ClusterStagedUpdateStrategy":              {"v1", "v1alpha1"},
	"ClusterStagedUpdateRun":                   {"v1", "v1alpha1"},
	"ClusterApprovalRequest":                   {"v1", "v1alpha1"},
	"StagedUpdateStrategy":                     {"v1"},
	"StagedUpdateRun":                          {"v1"},
	"ApprovalRequest":                          {"v1"},
	"ClusterResourcePlacementEviction":         {"v1alpha1"},
	"ClusterResourcePlacementDisruptionBudget": {"v1alpha1"},
	"ClusterResourceEnvelope":                  nil,
	"ResourceEnvelope":                         nil,
	"Work":                                     {"v1"},
	"AppliedWork":                              {"v1"},
	// cluster.kubernetes-fleet.io
	"MemberCluster":         {"v1"},
	"InternalMemberCluster": {"v1"},
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: crdversions DIR (the directory controller-gen wrote the CRDs to)")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "crdversions:", err)
		os.Exit(1)
	}
}

// run rewrites every Kubefleet CRD in dir, and leaves the others as they are.
func run(dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return err
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		out, err := rewrite(data)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if out != nil && string(out) != string(data) {
			if err := os.WriteFile(f, out, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// rewrite returns the CRD with its versions as the table says, or nil when it is not Kubefleet's.
func rewrite(data []byte) ([]byte, error) {
	var crd struct {
		Spec struct {
			Group string `json:"group"`
			Names struct {
				Kind string `json:"kind"`
			} `json:"names"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &crd); err != nil {
		return nil, err
	}
	if !slices.Contains(fleetGroups, crd.Spec.Group) {
		return nil, nil
	}
	kind := crd.Spec.Names.Kind
	extra, ok := extraVersions[kind]
	if !ok {
		return nil, fmt.Errorf("%s of %s has no row in hack/crdversions: add the versions Kubefleet serves for it", kind, crd.Spec.Group)
	}
	var obj map[string]any
	if err := yaml.Unmarshal(data, &obj); err != nil {
		return nil, err
	}
	spec := obj["spec"].(map[string]any)
	versions, err := servedVersions(kind, spec["versions"], extra)
	if err != nil {
		return nil, err
	}
	spec["versions"] = versions
	out, err := yaml.Marshal(obj)
	if err != nil {
		return nil, err
	}
	return append([]byte("---\n"), out...), nil
}

// servedVersions returns one copy of the stored version's entry for each version the kind
// serves, in controller-gen's order (by name), only the stored one marked storage.
func servedVersions(kind string, current any, extra []string) ([]any, error) {
	list, _ := current.([]any)
	var base map[string]any
	for _, v := range list {
		entry, _ := v.(map[string]any)
		name, _ := entry["name"].(string)
		switch {
		case name == storageVersion:
			base = entry
		case !slices.Contains(extra, name):
			// A version with Go types of its own would be overwritten here; serve it through the
			// table instead, with v1beta1's schema.
			return nil, fmt.Errorf("%s: version %s is not in the table of hack/crdversions", kind, name)
		}
	}
	if base == nil || base["storage"] != true {
		return nil, fmt.Errorf("%s: no stored version %s", kind, storageVersion)
	}
	names := append([]string{storageVersion}, extra...)
	slices.Sort(names)
	out := make([]any, 0, len(names))
	for _, name := range names {
		entry, err := deepCopy(base)
		if err != nil {
			return nil, err
		}
		entry["name"] = name
		entry["storage"] = name == storageVersion
		out = append(out, entry)
	}
	return out, nil
}

func deepCopy(m map[string]any) (map[string]any, error) {
	data, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	return out, json.Unmarshal(data, &out)
}
