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
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
)

// pointer is a parsed JSON pointer (RFC 6901), the path syntax of driftExclusions.
type pointer []string

func parsePointer(s string) (pointer, error) {
	if s == "" {
		return pointer{}, nil
	}
	if !strings.HasPrefix(s, "/") {
		return nil, fmt.Errorf("path %q is not a JSON pointer: it must start with /", s)
	}
	tokens := strings.Split(s[1:], "/")
	for i, t := range tokens {
		tokens[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return tokens, nil
}

// get returns the value at p in doc.
func (p pointer) get(doc any) (any, bool) {
	cur := doc
	for _, tok := range p {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// parent walks to the container holding p's last token, creating maps on the way when create
// is set. It returns nil when the path cannot exist in doc.
func (p pointer) parent(doc map[string]any, create bool) any {
	var cur any = doc
	for _, tok := range p[:len(p)-1] {
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				if !create {
					return nil
				}
				next = map[string]any{}
				c[tok] = next
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	return cur
}

// set puts a copy of value at p in doc; a list element must already exist.
func (p pointer) set(doc map[string]any, value any) {
	if len(p) == 0 {
		return
	}
	last := p[len(p)-1]
	switch c := p.parent(doc, true).(type) {
	case map[string]any:
		c[last] = runtime.DeepCopyJSONValue(value)
	case []any:
		if i, err := strconv.Atoi(last); err == nil && i >= 0 && i < len(c) {
			c[i] = runtime.DeepCopyJSONValue(value)
		}
	}
}

// remove deletes the value at p from doc, if there is one. A list element is not removed (the
// indexes of the others would shift): it is left as it is.
func (p pointer) remove(doc map[string]any) {
	if len(p) == 0 {
		return
	}
	if c, ok := p.parent(doc, false).(map[string]any); ok {
		delete(c, p[len(p)-1])
	}
}
