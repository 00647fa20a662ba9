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
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var errUnauthorized = apierrors.NewUnauthorized("Unauthorized")

// errNoResource is what a real API server says about a path it does not serve.
func errNoResource(verb string, gr schema.GroupResource) error {
	return apierrors.NewGenericServerResponse(http.StatusNotFound, verb, gr, "", "", 0, false)
}

func errBadRequest(format string, args ...any) error {
	return apierrors.NewBadRequest(fmt.Sprintf(format, args...))
}

func errUnsupportedMediaType(contentType string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusUnsupportedMediaType,
		Reason:  metav1.StatusReasonUnsupportedMediaType,
		Message: fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf (got %q)", contentType),
	}}
}

// writeError answers with err as a metav1.Status, which clients decode back into the error.
// Errors that are not API errors become internal errors.
func writeError(w http.ResponseWriter, err error) {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		status = apierrors.NewInternalError(err)
	}
	s := status.Status()
	s.Kind, s.APIVersion = "Status", "v1"
	if s.Status == "" {
		s.Status = metav1.StatusFailure
	}
	code := int(s.Code)
	if code == 0 {
		code = http.StatusInternalServerError
	}
	writeJSON(w, code, &s)
}

// writeJSON answers with v encoded as JSON.
func writeJSON(w http.ResponseWriter, code int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		writeError(w, fmt.Errorf("encoding the answer: %w", err))
		return
	}
	writeRaw(w, code, "application/json", data)
}

func writeRaw(w http.ResponseWriter, code int, contentType string, data []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", "no-cache, private")
	h.Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(code)
	_, _ = w.Write(data)
}

// writeObject answers with one object as apiVersion presents it.
func writeObject(w http.ResponseWriter, code int, obj *unstructured.Unstructured, apiVersion string) {
	writeJSON(w, code, asVersion(obj, apiVersion).Object)
}

// writeList answers with a list of objects without building the list as one object first.
func writeList(w http.ResponseWriter, rt *resourceType, version string, rv uint64, items []*unstructured.Unstructured) {
	apiVersion := rt.apiVersion(version)
	var buf bytes.Buffer
	buf.WriteString(`{"kind":`)
	writeString(&buf, rt.listKind)
	buf.WriteString(`,"apiVersion":`)
	writeString(&buf, apiVersion)
	buf.WriteString(`,"metadata":{"resourceVersion":"`)
	buf.WriteString(strconv.FormatUint(rv, 10))
	buf.WriteString(`"},"items":[`)
	for i, item := range items {
		if i > 0 {
			buf.WriteByte(',')
		}
		data, err := json.Marshal(asVersion(item, apiVersion).Object)
		if err != nil {
			writeError(w, fmt.Errorf("encoding %s: %w", item.GetName(), err))
			return
		}
		buf.Write(data)
	}
	buf.WriteString("]}")
	writeRaw(w, http.StatusOK, "application/json", buf.Bytes())
}

func writeString(buf *bytes.Buffer, s string) {
	data, _ := json.Marshal(s) // a string always encodes
	buf.Write(data)
}
