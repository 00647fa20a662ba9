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

package fleetsim

import (
	"bytes"
	"fmt"
	"io"
	"mime"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

// maxBody bounds request bodies, as an API server does (its limit is 3 MiB plus overhead).
const maxBody = 4 << 20

const protobufContentType = "application/vnd.kubernetes.protobuf"

// body reads the request body and its media type.
func (q *request) body() ([]byte, string, error) {
	mediaType := "application/json"
	if ct := q.r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil {
			return nil, "", errUnsupportedMediaType(ct)
		}
		mediaType = mt
	}
	data, err := io.ReadAll(io.LimitReader(q.r.Body, maxBody+1))
	if err != nil {
		return nil, "", errBadRequest("reading the request body: %v", err)
	}
	if len(data) > maxBody {
		return nil, "", errBadRequest("the request body is larger than %d bytes", maxBody)
	}
	return data, mediaType, nil
}

// decodeObject reads the body of a create or update as an object of the request's kind.
// Built-in kinds go through their Go types, as in an API server: fields they do not have are
// dropped (or refused with fieldValidation=Strict) and values get their canonical form.
func (q *request) decodeObject() (*unstructured.Unstructured, error) {
	data, mediaType, err := q.body()
	if err != nil {
		return nil, err
	}
	var u *unstructured.Unstructured
	switch mediaType {
	case "application/json", "application/yaml":
		u, err = parseObject(data)
	case protobufContentType:
		u, err = decodeProtobuf(data)
	default:
		return nil, errUnsupportedMediaType(mediaType)
	}
	if err != nil {
		return nil, err
	}
	if err := q.checkKind(u); err != nil {
		return nil, err
	}
	return u, normalize(q.rt, u, q.query.Get("fieldValidation") == metav1.FieldValidationStrict)
}

// parseObject parses JSON or YAML into an object; numbers become int64 where they are whole.
func parseObject(data []byte) (*unstructured.Unstructured, error) {
	// Clients send JSON, even as an apply patch (YAML by its media type); parsing it as YAML
	// would cost several times more.
	if trimmed := bytes.TrimLeft(data, " \t\r\n"); len(trimmed) == 0 || trimmed[0] != '{' {
		var err error
		if data, err = yaml.YAMLToJSON(data); err != nil {
			return nil, errBadRequest("the request body is not JSON or YAML: %v", err)
		}
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(data, &obj); err != nil || obj == nil {
		return nil, errBadRequest("the request body is not a JSON object: %v", err)
	}
	return &unstructured.Unstructured{Object: obj}, nil
}

func decodeProtobuf(data []byte) (*unstructured.Unstructured, error) {
	typed, gvk, err := typedDecoder.Decode(data, nil, nil)
	if err != nil {
		return nil, errBadRequest("decoding the protobuf body: %v", err)
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return nil, errBadRequest("decoding the protobuf body: %v", err)
	}
	u := &unstructured.Unstructured{Object: obj}
	u.SetGroupVersionKind(*gvk)
	return u, nil
}

// checkKind fills in apiVersion and kind when the body leaves them out and refuses a body of
// another kind.
func (q *request) checkKind(u *unstructured.Unstructured) error {
	want := q.rt.groupVersionKind(q.version)
	if u.GetAPIVersion() == "" {
		u.SetAPIVersion(q.apiVersion())
	}
	if u.GetKind() == "" {
		u.SetKind(want.Kind)
	}
	if got := u.GroupVersionKind(); got != want {
		return errBadRequest("the object is a %s %s, but %s serves %s %s", got.GroupVersion(), got.Kind,
			q.r.URL.Path, want.GroupVersion(), want.Kind)
	}
	return nil
}

// normalize passes an object of a built-in kind through its Go type.
func normalize(rt *resourceType, u *unstructured.Unstructured, strict bool) error {
	gvk := u.GroupVersionKind()
	if !rt.builtin || !typedScheme.Recognizes(gvk) {
		return nil
	}
	typed, err := typedScheme.New(gvk)
	if err != nil {
		return fmt.Errorf("making a %s: %w", gvk, err)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.Object, typed, strict); err != nil {
		return errBadRequest("%s %q: %v", gvk.Kind, u.GetName(), err)
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return fmt.Errorf("encoding a %s: %w", gvk, err)
	}
	if meta, ok := obj["metadata"].(map[string]any); ok && meta["creationTimestamp"] == nil {
		delete(meta, "creationTimestamp")
	}
	u.Object = obj
	u.SetGroupVersionKind(gvk)
	return nil
}
