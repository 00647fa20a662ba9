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

package template

import (
	"bytes"
	"encoding/json"
	"strings"
	"text/template"

	"github.com/BurntSushi/toml"
	"github.com/Masterminds/sprig/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// withheld are sprig functions a template does not get: they would read the controller's
// environment or query DNS from the controller, and put the answer in what is deployed.
var withheld = []string{"env", "expandenv", "getHostByName"}

// funcMap is sprig's functions, Sveltos' conversions, and the functions reading the
// management-cluster objects of the data data points to when they are called. Those work on
// copies, so that one call never changes what another sees; Sveltos' own functions, like these,
// swallow errors and return empty values.
func funcMap(data *Data) template.FuncMap {
	fm := sprig.TxtFuncMap()
	for _, name := range withheld {
		delete(fm, name)
	}
	for name, fn := range conversions {
		fm[name] = fn
	}
	object := func(id string) (map[string]any, bool) {
		u, ok := data.MgmtResources[id]
		if !ok || u == nil {
			return nil, false
		}
		return resetFields(runtime.DeepCopyJSON(u)), true
	}
	fm["getResource"] = func(id string) map[string]any {
		u, _ := object(id)
		return u
	}
	fm["copy"] = func(id string) string {
		u, ok := object(id)
		if !ok {
			return ""
		}
		return toYAML(u)
	}
	fm["getField"] = func(id, fields string) any {
		u, ok := object(id)
		if !ok {
			return ""
		}
		v, found, err := unstructured.NestedFieldNoCopy(u, strings.Split(fields, ".")...)
		if err != nil || !found {
			return ""
		}
		return v
	}
	fm["removeField"] = func(id, fields string) string {
		u, ok := object(id)
		if !ok {
			return ""
		}
		unstructured.RemoveNestedField(u, strings.Split(fields, ".")...)
		return toYAML(u)
	}
	fm["setField"] = func(id, fields string, value any) string {
		u, ok := object(id)
		if !ok {
			return ""
		}
		if err := unstructured.SetNestedField(u, jsonValue(value), strings.Split(fields, ".")...); err != nil {
			return ""
		}
		return toYAML(u)
	}
	fm["chainRemoveField"] = func(u map[string]any, fields string) map[string]any {
		unstructured.RemoveNestedField(u, strings.Split(fields, ".")...)
		return u
	}
	fm["chainSetField"] = func(u map[string]any, fields string, value any) map[string]any {
		if err := unstructured.SetNestedField(u, jsonValue(value), strings.Split(fields, ".")...); err != nil {
			return nil
		}
		return u
	}
	return fm
}

// resetFields drops what the API server keeps for itself, as Sveltos does before handing an
// object to a template.
func resetFields(u map[string]any) map[string]any {
	obj := unstructured.Unstructured{Object: u}
	obj.SetManagedFields(nil)
	obj.SetResourceVersion("")
	obj.SetUID("")
	return obj.Object
}

// jsonValue turns a template's value (an int, a slice of strings...) into the JSON-like value
// unstructured objects hold, so that setting it cannot panic on a deep copy later.
func jsonValue(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		return v
	}
	return normalize(out)
}

// normalize makes JSON numbers that are whole int64, as the API machinery reads them.
func normalize(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = normalize(e)
		}
	case []any:
		for i, e := range t {
			t[i] = normalize(e)
		}
	case float64:
		if t == float64(int64(t)) {
			return int64(t)
		}
	}
	return v
}

// conversions are Sveltos' functions between text and values.
var conversions = template.FuncMap{
	"toToml":        toTOML,
	"fromToml":      fromTOML,
	"toYaml":        toYAML,
	"fromYaml":      fromYAML,
	"fromYamlArray": fromYAMLArray,
	"toJson":        toJSON,
	"fromJson":      fromJSON,
	"fromJsonArray": fromJSONArray,
}

func toYAML(v any) string {
	data, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}

func fromYAML(s string) map[string]any {
	m := map[string]any{}
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromYAMLArray(s string) []any {
	a := []any{}
	if err := yaml.Unmarshal([]byte(s), &a); err != nil {
		a = []any{err.Error()}
	}
	return a
}

func toTOML(v any) string {
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(v); err != nil {
		return err.Error()
	}
	return b.String()
}

func fromTOML(s string) map[string]any {
	m := map[string]any{}
	if err := toml.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func toJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(data)
}

func fromJSON(s string) map[string]any {
	m := map[string]any{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromJSONArray(s string) []any {
	a := []any{}
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		a = []any{err.Error()}
	}
	return a
}
