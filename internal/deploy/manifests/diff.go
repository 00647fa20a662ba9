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
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// volatileMetadata changes on every write without the configuration changing.
var volatileMetadata = []string{"managedFields", "resourceVersion", "generation", "creationTimestamp", "uid"}

// stripped returns a copy of u's content fit for comparison: without volatile metadata and
// without the excluded paths.
func stripped(u *unstructured.Unstructured, excluded []pointer) map[string]any {
	obj := runtime.DeepCopyJSON(u.Object)
	if meta, ok := obj["metadata"].(map[string]any); ok {
		for _, f := range volatileMetadata {
			delete(meta, f)
		}
	}
	for _, p := range excluded {
		p.remove(obj)
	}
	// No labels and empty labels are the same; removing excluded ones can leave the latter.
	if meta, ok := obj["metadata"].(map[string]any); ok {
		for _, f := range []string{"labels", "annotations"} {
			if m, ok := meta[f].(map[string]any); ok && len(m) == 0 {
				delete(meta, f)
			}
		}
	}
	return obj
}

// comparable is stripped for a full comparison: it also leaves out what no manifest sets, as
// Kubefleet does: status, system metadata (finalizers, owner references, deletion), and labels
// and annotations of the Kubernetes, Kubefleet and Stagecoach domains.
func comparable(u *unstructured.Unstructured, excluded []pointer) map[string]any {
	obj := stripped(u, excluded)
	delete(obj, "status")
	meta, ok := obj["metadata"].(map[string]any)
	if !ok {
		return obj
	}
	for _, f := range []string{"finalizers", "ownerReferences", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink", "generateName"} {
		delete(meta, f)
	}
	for _, f := range []string{"labels", "annotations"} {
		m, ok := meta[f].(map[string]any)
		if !ok {
			continue
		}
		for k := range m {
			if reservedKey(k) {
				delete(m, k)
			}
		}
		if len(m) == 0 {
			delete(meta, f)
		}
	}
	return obj
}

// reservedKey: a label or annotation of a domain users do not write to themselves.
func reservedKey(k string) bool {
	for _, d := range []string{"kubernetes.io", "k8s.io", "kubernetes-fleet.io", "stagecoach.dev"} {
		if strings.Contains(k, d) {
			return true
		}
	}
	return false
}

func isSecret(u *unstructured.Unstructured) bool {
	return u.GetAPIVersion() == "v1" && u.GetKind() == "Secret"
}

// fieldChanges lists the differences between two objects field by field, one line each,
// starting with + for a field added, - for one removed and ~ for one changed:
// `~ spec.replicas: 2 -> 3`, `+ metadata.labels["app.kubernetes.io/name"]: "web"`.
// With secret set, the values of data, stringData and the last-applied annotation are
// redacted: status messages and logs must not leak them.
func fieldChanges(from, to map[string]any, secret bool) []string {
	return texts(fieldDiffs(from, to, secret))
}

// fieldDiffs is fieldChanges with each field's path and values apart as well.
func fieldDiffs(from, to map[string]any, secret bool) []FieldChange {
	d := differ{secret: secret}
	d.walk(nil, from, to)
	return d.changes
}

// texts returns the Text of each change.
func texts(changes []FieldChange) []string {
	out := make([]string, 0, len(changes))
	for _, c := range changes {
		out = append(out, c.Text)
	}
	return out
}

type differ struct {
	secret  bool
	changes []FieldChange
}

// walk compares two values at path; a path element is a string (map key) or an int (index).
func (d *differ) walk(path []any, from, to any) {
	switch f := from.(type) {
	case map[string]any:
		if t, ok := to.(map[string]any); ok {
			keys := slices.Collect(maps.Keys(f))
			for k := range t {
				if _, ok := f[k]; !ok {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				fv, inFrom := f[k]
				tv, inTo := t[k]
				p := append(slices.Clip(path), k)
				switch {
				case !inFrom:
					d.add("+", p, nil, tv)
				case !inTo:
					d.add("-", p, fv, nil)
				default:
					d.walk(p, fv, tv)
				}
			}
			return
		}
	case []any:
		if t, ok := to.([]any); ok {
			for i := range max(len(f), len(t)) {
				p := append(slices.Clip(path), i)
				switch {
				case i >= len(f):
					d.add("+", p, nil, t[i])
				case i >= len(t):
					d.add("-", p, f[i], nil)
				default:
					d.walk(p, f[i], t[i])
				}
			}
			return
		}
	}
	if !reflect.DeepEqual(from, to) {
		d.add("~", path, from, to)
	}
}

// add records a field added (+, from is nil), removed (-, to is nil) or changed (~).
func (d *differ) add(op string, path []any, from, to any) {
	c := FieldChange{Path: jsonPointer(path)}
	switch op {
	case "+":
		c.Desired = d.value(path, to)
		c.Text = "+ " + renderPath(path) + ": " + c.Desired
	case "-":
		c.Live = d.value(path, from)
		c.Text = "- " + renderPath(path) + ": " + c.Live
	default:
		c.Live, c.Desired = d.value(path, from), d.value(path, to)
		c.Text = "~ " + renderPath(path) + ": " + c.Live + " -> " + c.Desired
	}
	d.changes = append(d.changes, c)
}

// jsonPointer writes a path as an RFC 6901 JSON pointer: /spec/containers/0/image.
func jsonPointer(path []any) string {
	var b strings.Builder
	for _, el := range path {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(fmt.Sprint(el), "~", "~0"), "/", "~1"))
	}
	return b.String()
}

const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// value renders a value briefly, or hides it if it may be secret.
func (d *differ) value(path []any, v any) string {
	if d.secret && len(path) > 0 && (path[0] == "data" || path[0] == "stringData" ||
		(len(path) > 2 && path[0] == "metadata" && path[2] == lastApplied)) {
		return "(redacted)"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	const limit = 80
	if s := string(b); len(s) > limit {
		return s[:limit] + "…"
	}
	return string(b)
}

var plainKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// renderPath writes a path as people read it: spec.containers[0].image, metadata.labels["app.kubernetes.io/name"].
func renderPath(path []any) string {
	var b strings.Builder
	for _, el := range path {
		switch e := el.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", e)
		case string:
			if !plainKey.MatchString(e) {
				fmt.Fprintf(&b, "[%q]", e)
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(e)
		}
	}
	return b.String()
}
