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

package override

import (
	"errors"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// Cluster is what overrides read of a member cluster.
type Cluster struct {
	Name   string
	Labels map[string]string
}

// Matches reports whether a rule applies to the cluster, as Kubefleet decides it: a rule without
// clusterSelector applies to no cluster, one whose selector has no terms to every cluster, and
// otherwise to the clusters whose labels match any term.
func Matches(rule placementv1beta1.OverrideRule, c Cluster) (bool, error) {
	if rule.ClusterSelector == nil {
		return false, nil
	}
	if len(rule.ClusterSelector.ClusterSelectorTerms) == 0 {
		return true, nil
	}
	for _, term := range rule.ClusterSelector.ClusterSelectorTerms {
		sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
		if err != nil {
			return false, fmt.Errorf("invalid cluster label selector %v: %w", term.LabelSelector, err)
		}
		if sel.Matches(labels.Set(c.Labels)) {
			return true, nil
		}
	}
	return false, nil
}

// matchesAny reports whether any rule of the policy applies to the cluster.
func matchesAny(policy *placementv1beta1.OverridePolicy, c Cluster) (bool, error) {
	if policy == nil {
		return false, errors.New("policy is nil")
	}
	for _, rule := range policy.OverrideRules {
		if ok, err := Matches(rule, c); err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

// Validate checks the rules Kubefleet's admission webhook enforces on an override's policy,
// which the schema cannot express. Stagecoach has no webhook: a policy failing them fails the
// bindings it is applied to instead.
func Validate(policy *placementv1beta1.OverridePolicy) error {
	if policy == nil {
		return errors.New("policy is nil")
	}
	var errs []error
	for _, rule := range policy.OverrideRules {
		if rule.ClusterSelector != nil {
			for _, term := range rule.ClusterSelector.ClusterSelectorTerms {
				switch {
				case term.PropertySelector != nil || term.PropertySorter != nil:
					errs = append(errs, fmt.Errorf("invalid clusterSelector %+v: only labelSelector is supported", term))
				case term.LabelSelector == nil:
					errs = append(errs, fmt.Errorf("invalid clusterSelector %+v: labelSelector is required", term))
				default:
					if _, err := metav1.LabelSelectorAsSelector(term.LabelSelector); err != nil {
						errs = append(errs, fmt.Errorf("invalid cluster selector %v: %w", term.LabelSelector, err))
					}
				}
			}
		}
		switch rule.OverrideType {
		case placementv1beta1.DeleteOverrideType:
			if len(rule.JSONPatchOverrides) != 0 {
				return errors.New("invalid JSONPatchOverrides: JSONPatchOverrides cannot be set when the override type is Delete")
			}
		default:
			errs = append(errs, validatePatches(rule.JSONPatchOverrides)...)
		}
	}
	return utilerrors.NewAggregate(errs)
}

func validatePatches(patches []placementv1beta1.JSONPatchOverride) []error {
	if len(patches) == 0 {
		return []error{errors.New("invalid JSONPatchOverrides: JSONPatchOverrides cannot be empty")}
	}
	var errs []error
	for _, p := range patches {
		if err := validatePath(p.Path); err != nil {
			errs = append(errs, fmt.Errorf("invalid JSONPatchOverride %s: %w", describePatch(p), err))
		}
		if p.Operator == placementv1beta1.JSONPatchOverrideOpRemove && len(p.Value.Raw) != 0 {
			errs = append(errs, fmt.Errorf("invalid JSONPatchOverride %s: remove operation cannot have value", describePatch(p)))
		}
	}
	return errs
}

func describePatch(p placementv1beta1.JSONPatchOverride) string {
	return fmt.Sprintf("{op:%s path:%s value:%s}", p.Operator, p.Path, p.Value.Raw)
}

// validatePath refuses what Kubefleet refuses: type meta, status, and metadata other than labels
// and annotations, which would change which object is placed rather than how.
func validatePath(path string) error {
	if path == "" {
		return errors.New("path cannot be empty")
	}
	if !strings.HasPrefix(path, "/") {
		return errors.New("path must start with /")
	}
	parts := strings.Split(path, "/")[1:]
	switch parts[0] {
	case "kind", "apiVersion":
		return errors.New("cannot override typeMeta fields")
	case "metadata":
		if len(parts) == 1 {
			return errors.New("cannot override field metadata")
		}
		if parts[1] != "annotations" && parts[1] != "labels" {
			return errors.New("cannot override metadata fields except annotations and labels")
		}
	case "status":
		return errors.New("cannot override status fields")
	}
	for _, p := range parts {
		if strings.TrimSpace(p) == "" {
			return errors.New("path cannot contain empty string")
		}
	}
	return nil
}

// ValidateClusterSelectors checks what Kubefleet's webhook checks of a ClusterResourceOverride's
// selectors: each names one object, and none twice.
func ValidateClusterSelectors(sel []placementv1beta1.ResourceSelectorTerm) error {
	var errs []error
	seen := map[placementv1beta1.ResourceIdentifier]bool{}
	for _, t := range sel {
		switch {
		case t.LabelSelector != nil:
			errs = append(errs, fmt.Errorf("label selector is not supported for resource selection %+v", describeTerm(t)))
			continue
		case t.Name == "":
			errs = append(errs, fmt.Errorf("resource name is required for resource selection %+v", describeTerm(t)))
			continue
		}
		key := placementv1beta1.ResourceIdentifier{Group: t.Group, Version: t.Version, Kind: t.Kind, Name: t.Name}
		if seen[key] {
			errs = append(errs, fmt.Errorf("resource selector %+v already exists, and must be unique", describeTerm(t)))
		}
		seen[key] = true
	}
	return utilerrors.NewAggregate(errs)
}

func describeTerm(t placementv1beta1.ResourceSelectorTerm) string {
	return fmt.Sprintf("{group:%q version:%q kind:%q name:%q}", t.Group, t.Version, t.Kind, t.Name)
}
