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
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	kjson "sigs.k8s.io/json"
)

// PolicyRefSet is a list of policy references written in either of two shapes. The list
// shape is Sveltos's, a list of PolicyRef:
//
//	preHealthCheckDeployment:
//	- kind: ConfigMap
//	  namespace: default
//	  name: smoke-test-job
//
// The object shape lists ConfigMaps and Secrets, each by name and optional namespace:
//
//	preHealthCheckDeployment:
//	  configMapRefs:
//	  - name: validation-job-staging
//	    namespace: projectsveltos
//	  secretRefs: []
//
// Both read as the same list of PolicyRef (ConfigMaps first, then Secrets, each in the order
// written, with the defaults deploymentType Remote and tier 100). Use Refs to read it. It is
// always written back as a list.
//
// Schema: the API server cannot describe "a list or an object" with a type, so this node has
// no type and keeps unknown fields. Both shapes are still validated: list items against
// PolicyRef's schema, the object's configMapRefs and secretRefs against ObjectRef's. CEL rules
// cannot be attached to an untyped node, so two rules are checked in Go by UnmarshalJSON
// instead (each list item needs exactly one of kind and remoteURL; the object has no other
// keys), as is a scalar value. Decoding never fails because of them, so one bad object cannot
// stop a controller from reading every other object; the problem is kept and reported by Err.
//
// +kubebuilder:validation:Type=""
// +kubebuilder:pruning:PreserveUnknownFields
type PolicyRefSet struct {
	// List holds references written in the list shape, and every reference once decoded.
	// +kubebuilder:validation:Type=""
	List []PolicyRef `json:",inline"`

	// ConfigMapRefs are ConfigMaps to deploy, written in the object shape. UnmarshalJSON folds
	// them into List.
	// +optional
	ConfigMapRefs []ObjectRef `json:"configMapRefs,omitempty"`

	// SecretRefs are Secrets to deploy, written in the object shape. UnmarshalJSON folds them
	// into List.
	// +optional
	SecretRefs []ObjectRef `json:"secretRefs,omitempty"`

	// problem explains why the stored value could not be read completely; empty when it could.
	problem string `json:"-"`
}

// ObjectRef names a ConfigMap or Secret in the management cluster.
type ObjectRef struct {
	// Name of the object.
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`

	// Namespace of the object. Empty means the namespace of the cluster being deployed to.
	// +optional
	Namespace string `json:"namespace,omitempty"`
}

// NewPolicyRefSet returns a set holding refs.
func NewPolicyRefSet(refs ...PolicyRef) *PolicyRefSet {
	return &PolicyRefSet{List: refs}
}

// Refs returns every reference in the set, whichever shape it was written in. It returns nil
// for a nil or empty set.
func (s *PolicyRefSet) Refs() []PolicyRef {
	if s == nil || len(s.List)+len(s.ConfigMapRefs)+len(s.SecretRefs) == 0 {
		return nil
	}
	refs := make([]PolicyRef, 0, len(s.List)+len(s.ConfigMapRefs)+len(s.SecretRefs))
	refs = append(refs, s.List...)
	for _, r := range s.ConfigMapRefs {
		refs = append(refs, r.policyRef("ConfigMap"))
	}
	for _, r := range s.SecretRefs {
		refs = append(refs, r.policyRef("Secret"))
	}
	return refs
}

// Err reports why the stored value could not be read completely, in words that say what to
// fix, or nil when it was read in full.
func (s *PolicyRefSet) Err() error {
	if s == nil || s.problem == "" {
		return nil
	}
	return errors.New(s.problem)
}

func (r ObjectRef) policyRef(kind string) PolicyRef {
	return PolicyRef{
		Kind:           kind,
		Namespace:      r.Namespace,
		Name:           r.Name,
		DeploymentType: DeploymentTypeRemote,
		Tier:           100,
	}
}

// MarshalJSON writes the set as a list of PolicyRef.
func (s PolicyRefSet) MarshalJSON() ([]byte, error) {
	refs := s.Refs()
	if refs == nil {
		refs = []PolicyRef{}
	}
	return json.Marshal(refs)
}

// UnmarshalJSON reads either shape and folds it into List. It returns an error only for
// malformed JSON; a value of the wrong shape is kept as a problem reported by Err.
func (s *PolicyRefSet) UnmarshalJSON(data []byte) error {
	*s = PolicyRefSet{}
	data = bytes.TrimSpace(data)
	if len(data) == 0 || bytes.Equal(data, []byte("null")) {
		return nil
	}
	if !json.Valid(data) {
		return fmt.Errorf("preHealthCheckDeployment: invalid JSON")
	}
	var problems []string
	switch data[0] {
	case '[':
		var refs []PolicyRef
		problems = append(problems, decodeStrict(data, &refs)...)
		for i := range refs {
			if (refs[i].Kind == "") == (refs[i].RemoteURL == nil) {
				problems = append(problems, fmt.Sprintf(
					"item %d: set exactly one of kind (with name) or remoteURL", i))
			}
		}
		s.List = refs
	case '{':
		var obj struct {
			ConfigMapRefs []ObjectRef `json:"configMapRefs"`
			SecretRefs    []ObjectRef `json:"secretRefs"`
		}
		for _, p := range decodeStrict(data, &obj) {
			if strings.HasPrefix(p, "unknown field") {
				p += " (the object shape accepts configMapRefs and secretRefs, each a list of {name, namespace})"
			}
			problems = append(problems, p)
		}
		s.List = (&PolicyRefSet{ConfigMapRefs: obj.ConfigMapRefs, SecretRefs: obj.SecretRefs}).Refs()
	default:
		problems = append(problems, "expected a list of policy references or an object with "+
			"configMapRefs and/or secretRefs, found "+jsonKind(data[0]))
	}
	if len(problems) > 0 {
		s.problem = "preHealthCheckDeployment: " + strings.Join(problems, "; ")
	}
	return nil
}

// decodeStrict decodes data into v, case-sensitively, and returns what it could not decode
// (unknown or duplicate fields, values of the wrong type) as messages.
func decodeStrict(data []byte, v any) []string {
	strictErrs, err := kjson.UnmarshalStrict(data, v)
	var problems []string
	if err != nil {
		problems = append(problems, err.Error())
	}
	for _, e := range strictErrs {
		problems = append(problems, e.Error())
	}
	return problems
}

func jsonKind(first byte) string {
	switch first {
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	default:
		return "a number"
	}
}
