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

package manifests

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/json"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// ParseError is a manifest a user wrote that cannot be deployed. It names where the manifest is:
//
//	ConfigMap default/app key "deploy.yaml" document 2: yaml: line 4: mapping values are not allowed in this context
//
// Documents count from 1 and skip empty ones (a leading `---`, comment-only documents); line
// numbers in YAML errors count from the start of the document. Item counts from 1 inside a
// JSON list or a `kind: List`.
type ParseError struct {
	Source   string
	Key      string
	Document int
	Item     int
	Err      error
}

func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString(e.Source)
	if e.Key != "" {
		fmt.Fprintf(&b, " key %q", e.Key)
	}
	if e.Document > 0 {
		fmt.Fprintf(&b, " document %d", e.Document)
	}
	if e.Item > 0 {
		fmt.Fprintf(&b, " item %d", e.Item)
	}
	return b.String() + ": " + e.Err.Error()
}

func (e *ParseError) Unwrap() error { return e.Err }

// ParseConfigMap returns the objects in a ConfigMap's data and binaryData.
func ParseConfigMap(cm *corev1.ConfigMap) ([]*unstructured.Unstructured, error) {
	data := make(map[string][]byte, len(cm.Data)+len(cm.BinaryData))
	for k, v := range cm.Data {
		data[k] = []byte(v)
	}
	for k, v := range cm.BinaryData {
		data[k] = v
	}
	return Parse("ConfigMap "+cm.Namespace+"/"+cm.Name, data)
}

// ParseSecret returns the objects in a Secret's data (already base64-decoded by the typed
// client). stringData is only a write-time convenience and is never read back from a server.
func ParseSecret(s *corev1.Secret) ([]*unstructured.Unstructured, error) {
	return Parse("Secret "+s.Namespace+"/"+s.Name, s.Data)
}

// Parse returns the objects in data, key by key in sorted order so that the result does not
// depend on map order. Each value is YAML (several documents separated by `---`) or JSON; a
// document may be one object, a list of objects, or a `kind: List` (or any `…List` with
// items). source names the holder of data in errors, e.g. `ConfigMap default/app`.
func Parse(source string, data map[string][]byte) ([]*unstructured.Unstructured, error) {
	var objs []*unstructured.Unstructured
	for _, key := range slices.Sorted(maps.Keys(data)) {
		parsed, err := parseValue(data[key])
		if err != nil {
			err.Source, err.Key = source, key
			return nil, err
		}
		objs = append(objs, parsed...)
	}
	return objs, nil
}

// parseValue parses one key's value. Errors come back without Source and Key.
func parseValue(value []byte) ([]*unstructured.Unstructured, *ParseError) {
	reader := k8syaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(value)))
	var objs []*unstructured.Unstructured
	for doc := 1; ; {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, &ParseError{Document: doc, Err: err}
		}
		if isBlank(raw) {
			continue
		}
		parsed, perr := parseDocument(raw)
		if perr != nil {
			perr.Document = doc
			return nil, perr
		}
		objs = append(objs, parsed...)
		doc++
	}
}

// isBlank reports a document with nothing but blank lines and comments.
func isBlank(doc []byte) bool {
	for line := range bytes.SplitSeq(doc, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) > 0 && line[0] != '#' {
			return false
		}
	}
	return true
}

func parseDocument(raw []byte) ([]*unstructured.Unstructured, *ParseError) {
	// Strict: a key written twice is a mistake whose outcome YAML leaves undefined.
	js, err := yaml.YAMLToJSONStrict(raw)
	if err != nil {
		return nil, &ParseError{Err: err}
	}
	var content any
	if err := json.Unmarshal(js, &content); err != nil {
		return nil, &ParseError{Err: err}
	}
	switch c := content.(type) {
	case nil:
		return nil, nil
	case []any:
		return objectsOfList(c)
	case map[string]any:
		u := &unstructured.Unstructured{Object: c}
		if items, ok := c["items"].([]any); ok && strings.HasSuffix(u.GetKind(), "List") {
			return objectsOfList(items)
		}
		if err := validateObject(u); err != nil {
			return nil, &ParseError{Err: err}
		}
		return []*unstructured.Unstructured{u}, nil
	default:
		return nil, &ParseError{Err: fmt.Errorf("a %T is not a Kubernetes object", content)}
	}
}

func objectsOfList(items []any) ([]*unstructured.Unstructured, *ParseError) {
	objs := make([]*unstructured.Unstructured, 0, len(items))
	for i, item := range items {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, &ParseError{Item: i + 1, Err: fmt.Errorf("a %T is not a Kubernetes object", item)}
		}
		u := &unstructured.Unstructured{Object: m}
		if err := validateObject(u); err != nil {
			return nil, &ParseError{Item: i + 1, Err: err}
		}
		objs = append(objs, u)
	}
	return objs, nil
}

// validateObject checks what server-side apply needs to address an object.
func validateObject(u *unstructured.Unstructured) error {
	var missing []string
	if u.GetAPIVersion() == "" {
		missing = append(missing, "apiVersion")
	}
	if u.GetKind() == "" {
		missing = append(missing, "kind")
	}
	if u.GetName() == "" {
		missing = append(missing, "metadata.name")
	}
	if len(missing) == 0 {
		return nil
	}
	what := "the object"
	if u.GetKind() != "" {
		what = "the " + u.GetKind()
	}
	msg := fmt.Sprintf("%s has no %s", what, strings.Join(missing, ", "))
	if u.GetName() == "" && u.GetGenerateName() != "" {
		msg += " (generateName cannot be used: an applied object needs a fixed name)"
	}
	return errors.New(msg)
}

// DefaultNamespace puts a namespaced object without a namespace in `default`, and takes the
// namespace off a cluster-scoped object. The API server does not default namespaces itself:
// clients do (kubectl uses its context's namespace, `default` unless set). Sveltos leaves it to
// the server, which would reject the request; `default` is what the same manifest gets from
// `kubectl apply -f` with a fresh kubeconfig, and writing it explicitly keeps inventories,
// prunes and conflict checks exact.
func DefaultNamespace(u *unstructured.Unstructured, namespaced bool) {
	switch {
	case namespaced && u.GetNamespace() == "":
		u.SetNamespace(corev1.NamespaceDefault)
	case !namespaced && u.GetNamespace() != "":
		u.SetNamespace("")
	}
}
