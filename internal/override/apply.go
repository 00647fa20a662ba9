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
	"encoding/json"
	"fmt"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// Snapshots are the override snapshots applied to one cluster, in the order a binding names
// them.
type Snapshots struct {
	Cluster    []*placementv1beta1.ClusterResourceOverrideSnapshot
	Namespaced []*placementv1beta1.ResourceOverrideSnapshot
}

// Empty reports whether there is no snapshot.
func (s Snapshots) Empty() bool { return len(s.Cluster) == 0 && len(s.Namespaced) == 0 }

// Error is an override that cannot be applied on a cluster: a user error, which only a change
// of the override, the placement or the cluster's labels fixes.
type Error struct{ msg string }

func (e *Error) Error() string { return e.msg }

// Apply returns the objects as the cluster is to receive them: each changed by the rules of
// the snapshots that select it and apply to the cluster, and without those a Delete rule keeps
// off it. As in Kubefleet, a ClusterResourceOverride selects a cluster-scoped object by its
// name, and a namespaced object through its Namespace; a ResourceOverride selects objects of its
// own namespace by name. ClusterResourceOverrides are applied first. The objects given are not
// modified; an object no override changes is returned as it is.
func Apply(s Snapshots, c Cluster, objs []*unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	if s.Empty() {
		return objs, nil
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	out := make([]*unstructured.Unstructured, 0, len(objs))
	for _, o := range objs {
		changed, err := ApplyOne(s, c, o)
		if err != nil {
			return nil, err
		}
		if changed != nil {
			out = append(out, changed)
		}
	}
	return out, nil
}

// Validate checks every snapshot's policy (see the package function Validate).
func (s Snapshots) Validate() error {
	for _, snap := range s.Cluster {
		if err := ValidateClusterSelectors(snap.Spec.OverrideSpec.ClusterResourceSelectors); err != nil {
			return &Error{fmt.Sprintf("ClusterResourceOverrideSnapshot %q is invalid: %v", snap.Name, err)}
		}
		if err := Validate(snap.Spec.OverrideSpec.Policy); err != nil {
			return &Error{fmt.Sprintf("ClusterResourceOverrideSnapshot %q is invalid: %v", snap.Name, err)}
		}
	}
	for _, snap := range s.Namespaced {
		if err := Validate(snap.Spec.OverrideSpec.Policy); err != nil {
			return &Error{fmt.Sprintf("ResourceOverrideSnapshot %q in namespace %q is invalid: %v", snap.Name, snap.Namespace, err)}
		}
	}
	return nil
}

// ApplyOne returns the object after the overrides selecting it, or nil when one deletes it; the
// object given is not modified. The snapshots must be valid (Snapshots.Validate).
func ApplyOne(s Snapshots, c Cluster, o *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	gvk := o.GroupVersionKind()
	var raw []byte
	run := func(kind, name string, rules []placementv1beta1.OverrideRule) (deleted bool, err error) {
		if raw == nil {
			if raw, err = o.MarshalJSON(); err != nil {
				return false, err
			}
		}
		deleted, err = applyRules(&raw, c, rules)
		if err != nil {
			return false, &Error{fmt.Sprintf("%s %q failed to apply on %s: %s", kind, name, describe(o), err)}
		}
		return deleted, nil
	}
	key := placementv1beta1.ResourceIdentifier{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Name: o.GetName()}
	if o.GetNamespace() != "" {
		key = placementv1beta1.ResourceIdentifier{Version: "v1", Kind: "Namespace", Name: o.GetNamespace()}
	}
	for _, snap := range s.Cluster {
		if !selectsCluster(snap.Spec.OverrideSpec.ClusterResourceSelectors, key) {
			continue
		}
		if deleted, err := run(placementv1beta1.ClusterResourceOverrideSnapshotKind, snap.Name, snap.Spec.OverrideSpec.Policy.OverrideRules); err != nil || deleted {
			return nil, err
		}
	}
	if o.GetNamespace() != "" {
		key = placementv1beta1.ResourceIdentifier{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Namespace: o.GetNamespace(), Name: o.GetName()}
		for _, snap := range s.Namespaced {
			if !selectsNamespaced(snap.Spec.OverrideSpec.ResourceSelectors, snap.Namespace, key) {
				continue
			}
			if deleted, err := run(placementv1beta1.ResourceOverrideSnapshotKind, snap.Name, snap.Spec.OverrideSpec.Policy.OverrideRules); err != nil || deleted {
				return nil, err
			}
		}
	}
	if raw == nil {
		return o, nil
	}
	out := &unstructured.Unstructured{}
	if err := out.UnmarshalJSON(raw); err != nil {
		return nil, &Error{fmt.Sprintf("the overrides of %s leave no valid object: %v", describe(o), err)}
	}
	return out, nil
}

func selectsCluster(sel []placementv1beta1.ResourceSelectorTerm, key placementv1beta1.ResourceIdentifier) bool {
	for _, t := range sel {
		if t.Group == key.Group && t.Version == key.Version && t.Kind == key.Kind && t.Name == key.Name {
			return true
		}
	}
	return false
}

func selectsNamespaced(sel []placementv1beta1.ResourceSelector, ns string, key placementv1beta1.ResourceIdentifier) bool {
	for _, t := range sel {
		if t.Group == key.Group && t.Version == key.Version && t.Kind == key.Kind && t.Name == key.Name && ns == key.Namespace {
			return true
		}
	}
	return false
}

// describe names an object as Kubefleet's messages do.
func describe(o *unstructured.Unstructured) string {
	kind := o.GetKind()
	if kind == "" {
		kind = "Unknown"
	}
	if ns := o.GetNamespace(); ns != "" {
		return fmt.Sprintf("%s %q in namespace %q", kind, o.GetName(), ns)
	}
	return fmt.Sprintf("%s %q", kind, o.GetName())
}

// applyRules applies the rules that match the cluster to the object's JSON, in order, and
// reports whether a Delete rule matched.
func applyRules(raw *[]byte, c Cluster, rules []placementv1beta1.OverrideRule) (bool, error) {
	for _, rule := range rules {
		ok, err := Matches(rule, c)
		if err != nil {
			return false, err
		}
		if !ok {
			continue
		}
		if rule.OverrideType == placementv1beta1.DeleteOverrideType {
			return true, nil
		}
		if err := applyPatch(raw, c, rule.JSONPatchOverrides); err != nil {
			return false, err
		}
	}
	return false, nil
}

// op is one RFC 6902 operation as the patch library reads it.
type op struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value,omitempty"`
}

func applyPatch(raw *[]byte, c Cluster, patches []placementv1beta1.JSONPatchOverride) error {
	if len(patches) == 0 {
		return nil
	}
	ops := make([]op, 0, len(patches))
	for _, p := range patches {
		value := strings.ReplaceAll(string(p.Value.Raw), placementv1beta1.OverrideClusterNameVariable, c.Name)
		value, err := replaceLabelVariables(value, c)
		if err != nil {
			return err
		}
		o := op{Op: string(p.Operator), Path: p.Path}
		if value != "" {
			o.Value = json.RawMessage(value)
		}
		ops = append(ops, o)
	}
	doc, err := json.Marshal(ops)
	if err != nil {
		return err
	}
	patch, err := jsonpatch.DecodePatch(doc)
	if err != nil {
		return err
	}
	out, err := patch.Apply(*raw)
	if err != nil {
		return err
	}
	*raw = out
	return nil
}

// replaceLabelVariables replaces each ${MEMBER-CLUSTER-LABEL-KEY-<key>} with the value of the
// cluster's label <key>.
func replaceLabelVariables(in string, c Cluster) (string, error) {
	prefix := placementv1beta1.OverrideClusterLabelKeyVariablePrefix
	out := in
	for {
		start := strings.Index(out, prefix)
		if start < 0 {
			return out, nil
		}
		end := strings.Index(out[start+len(prefix):], "}")
		if end < 0 {
			return "", fmt.Errorf("input %s is missing the closing bracket `}`", in)
		}
		end += start + len(prefix)
		key := out[start+len(prefix) : end]
		value, ok := c.Labels[key]
		if !ok {
			return "", fmt.Errorf("label key %s not found on cluster %s", key, c.Name)
		}
		out = out[:start] + value + out[end+1:]
	}
}
