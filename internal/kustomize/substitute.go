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

package kustomize

import (
	"bytes"
	"fmt"
	"maps"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// SubstituteError is an object of a kustomization's output whose values cannot be
// substituted: a template error, or a value it names that is not given.
type SubstituteError struct {
	Object string
	Err    error
}

func (e *SubstituteError) Error() string {
	return fmt.Sprintf("substituting values in %s: %v", e.Object, e.Err)
}
func (e *SubstituteError) Unwrap() error { return e.Err }

// Substitute treats each object as a Go template over values, as Sveltos substitutes a
// kustomizationRef's values into its output: "{{ .Key }}" is the value of Key, a key that is not
// given is an error, and sprig's functions (with funcs over them) are available. Without values
// objects are returned as they are.
func Substitute(objs []*unstructured.Unstructured, values map[string]string, funcs template.FuncMap) ([]*unstructured.Unstructured, error) {
	if len(values) == 0 {
		return objs, nil
	}
	fm := sprig.TxtFuncMap()
	maps.Copy(fm, funcs)
	out := make([]*unstructured.Unstructured, 0, len(objs))
	for _, o := range objs {
		what := fmt.Sprintf("%s %s", o.GetKind(), name(o.GetNamespace(), o.GetName()))
		data, err := yaml.Marshal(o.Object)
		if err != nil {
			return nil, err
		}
		tmpl, err := template.New(what).Option("missingkey=error").Funcs(fm).Parse(string(data))
		if err != nil {
			return nil, &SubstituteError{Object: what, Err: err}
		}
		var b bytes.Buffer
		if err := tmpl.Execute(&b, values); err != nil {
			return nil, &SubstituteError{Object: what, Err: err}
		}
		u := &unstructured.Unstructured{}
		asJSON, err := yaml.YAMLToJSON(b.Bytes())
		if err == nil {
			err = u.UnmarshalJSON(asJSON)
		}
		if err != nil {
			return nil, &SubstituteError{Object: what, Err: fmt.Errorf("the result is not YAML: %w", err)}
		}
		out = append(out, u)
	}
	return out, nil
}
