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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/kustomize/api/filters/patchjson6902"
	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/resid"
	"sigs.k8s.io/yaml"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// Patch is one patch to apply, with where it came from for messages.
type Patch struct {
	// Text is a strategic-merge patch (a partial object, or several) or a JSON 6902 patch (a
	// list of operations), in YAML or JSON.
	Text string
	// Target selects the objects to patch, as kustomize's selectors do: group, version, kind,
	// name and namespace are anchored regular expressions; label and annotation selectors are
	// label-selector expressions. Without it, a strategic-merge patch applies to the object
	// whose kind, name and namespace it carries; a JSON 6902 patch needs one.
	Target *libv1beta1.PatchSelector
	// Source names the patch in messages, e.g. "patches[0]".
	Source string
}

// PatchError is a patch that cannot be parsed or applied.
type PatchError struct {
	Source string
	Err    error
}

func (e *PatchError) Error() string { return e.Source + ": " + e.Err.Error() }
func (e *PatchError) Unwrap() error { return e.Err }

// parsedPatch is a patch split into what kustomize applies.
type parsedPatch struct {
	Patch
	sm   []*resource.Resource // strategic-merge patches
	json []map[string]any     // JSON 6902 operations
}

var factory = provider.NewDefaultDepProvider().GetResourceFactory()

// Check parses every patch, so that a malformed one is reported before anything is rendered.
func Check(patches []Patch) error {
	buildMu.Lock()
	defer buildMu.Unlock()
	_, err := parseAll(patches)
	return err
}

func parseAll(patches []Patch) ([]parsedPatch, error) {
	out := make([]parsedPatch, 0, len(patches))
	for _, p := range patches {
		pp, err := parse(p)
		if err != nil {
			return nil, &PatchError{Source: p.Source, Err: err}
		}
		out = append(out, pp)
	}
	return out, nil
}

func parse(p Patch) (parsedPatch, error) {
	pp := parsedPatch{Patch: p}
	text := strings.TrimSpace(p.Text)
	if text == "" {
		return pp, errors.New("the patch is empty")
	}
	if p.Target != nil {
		if _, err := types.NewSelectorRegex(selector(p.Target)); err != nil {
			return pp, fmt.Errorf("target: %w", err)
		}
	}
	asJSON, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		return pp, fmt.Errorf("neither a strategic-merge nor a JSON 6902 patch: %w", err)
	}
	if bytes.HasPrefix(bytes.TrimSpace(asJSON), []byte("[")) {
		if err := json.Unmarshal(asJSON, &pp.json); err != nil {
			return pp, fmt.Errorf("a JSON 6902 patch must be a list of operations: %w", err)
		}
		for i, op := range pp.json {
			if _, ok := op["op"].(string); !ok {
				return pp, fmt.Errorf("JSON 6902 operation %d has no op", i)
			}
			if _, ok := op["path"].(string); !ok {
				return pp, fmt.Errorf("JSON 6902 operation %d has no path", i)
			}
		}
		if p.Target == nil {
			return pp, errors.New("a JSON 6902 patch needs a target")
		}
		return pp, nil
	}
	pp.sm, err = factory.SliceFromBytes([]byte(text))
	if err != nil {
		return pp, fmt.Errorf("not a valid strategic-merge patch: %w", err)
	}
	if len(pp.sm) == 0 {
		return pp, errors.New("the patch is empty")
	}
	if p.Target != nil && len(pp.sm) > 1 {
		return pp, errors.New("a patch with a target must hold a single strategic-merge patch")
	}
	for _, r := range pp.sm {
		if r.GetKind() == "" {
			return pp, errors.New("a strategic-merge patch needs apiVersion and kind")
		}
		if p.Target == nil && r.GetName() == "" {
			return pp, fmt.Errorf("a strategic-merge patch of %s without a target needs metadata.name", r.GetKind())
		}
	}
	return pp, nil
}

// selector converts Sveltos' selector into kustomize's; they have the same fields.
func selector(s *libv1beta1.PatchSelector) *types.Selector {
	return &types.Selector{
		ResId: resid.ResId{
			Gvk:       resid.Gvk{Group: s.Group, Version: s.Version, Kind: s.Kind},
			Name:      s.Name,
			Namespace: s.Namespace,
		},
		AnnotationSelector: s.AnnotationSelector,
		LabelSelector:      s.LabelSelector,
	}
}

// Apply applies patches, in order, to objs and returns the patched objects in their order.
// objs are not changed. Patches apply to whatever of objs they select: a patch that selects
// nothing here does nothing, since a profile's patches apply to all of its content at once. As
// in Sveltos, a JSON 6902 "remove" of a path an object does not have is left out for that object
// rather than failing.
func Apply(objs []*unstructured.Unstructured, patches []Patch) ([]*unstructured.Unstructured, error) {
	if len(patches) == 0 || len(objs) == 0 {
		return objs, nil
	}
	// Strategic merges read kustomize's shared OpenAPI schema, which is not safe for
	// concurrent use either (see buildMu).
	buildMu.Lock()
	defer buildMu.Unlock()
	parsed, err := parseAll(patches)
	if err != nil {
		return nil, err
	}
	m := resmap.New()
	for _, o := range objs {
		data, err := o.MarshalJSON()
		if err != nil {
			return nil, err
		}
		res, err := factory.FromBytes(data)
		if err != nil {
			return nil, fmt.Errorf("%s %s/%s: %w", o.GetKind(), o.GetNamespace(), o.GetName(), err)
		}
		if err := m.Append(res); err != nil {
			return nil, fmt.Errorf("patching: %w", err)
		}
	}
	for _, p := range parsed {
		if err := applyOne(m, p); err != nil {
			return nil, &PatchError{Source: p.Source, Err: err}
		}
	}
	m.RemoveBuildAnnotations()
	return toUnstructured(m)
}

func applyOne(m resmap.ResMap, p parsedPatch) error {
	if p.json != nil {
		return applyJSON(m, p)
	}
	if p.Target != nil {
		selected, err := m.Select(*selector(p.Target))
		if err != nil {
			return err
		}
		return m.ApplySmPatch(resource.MakeIdSet(selected), p.sm[0])
	}
	for _, sm := range p.sm {
		target, err := m.GetById(sm.OrgId())
		if err != nil {
			continue // the object it names is not in this content
		}
		// ApplySmPatch changes the patch it is given; each object gets a copy.
		if err := m.ApplySmPatch(resource.MakeIdSet([]*resource.Resource{target}), sm.DeepCopy()); err != nil {
			return err
		}
	}
	return nil
}

func applyJSON(m resmap.ResMap, p parsedPatch) error {
	selected, err := m.Select(*selector(p.Target))
	if err != nil {
		return err
	}
	for _, res := range selected {
		obj, err := res.Map()
		if err != nil {
			return err
		}
		ops := make([]map[string]any, 0, len(p.json))
		for _, op := range p.json {
			if op["op"] == "remove" && !pathExists(obj, op["path"].(string)) {
				continue
			}
			ops = append(ops, op)
		}
		if len(ops) == 0 {
			continue
		}
		text, err := json.Marshal(ops)
		if err != nil {
			return err
		}
		what := res.GetKind() + " " + name(res.GetNamespace(), res.GetName())
		if err := res.ApplyFilter(patchjson6902.Filter{Patch: string(text)}); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	return nil
}

func name(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// pathExists reports whether a JSON pointer names something in obj.
func pathExists(obj map[string]any, pointer string) bool {
	var cur any = obj
	for _, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[tok]
			if !ok {
				return false
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v) {
				return false
			}
			cur = v[i]
		default:
			return false
		}
	}
	return true
}

func toUnstructured(m resmap.ResMap) ([]*unstructured.Unstructured, error) {
	out := make([]*unstructured.Unstructured, 0, m.Size())
	for _, res := range m.Resources() {
		data, err := res.MarshalJSON()
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(data); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

// PostRenderer applies patches to Helm's rendered manifests; it is a Helm post-renderer.
type PostRenderer struct{ Patches []Patch }

// Run parses the rendered manifests, patches them and writes them back as YAML documents.
func (r PostRenderer) Run(rendered *bytes.Buffer) (*bytes.Buffer, error) {
	var objs []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(rendered, 4096)
	for {
		obj := map[string]any{}
		if err := dec.Decode(&obj); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading the chart's manifests: %w", err)
		}
		if len(obj) > 0 {
			objs = append(objs, &unstructured.Unstructured{Object: obj})
		}
	}
	objs, err := Apply(objs, r.Patches)
	if err != nil {
		return nil, err
	}
	out := &bytes.Buffer{}
	for _, o := range objs {
		data, err := yaml.Marshal(o.Object)
		if err != nil {
			return nil, err
		}
		out.WriteString("---\n")
		out.Write(data)
	}
	return out, nil
}
