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

package render

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/helm"
	"github.com/stagecoach-dev/stagecoach/internal/kustomize"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

// Instantiate turns text that may be a Go template into what one cluster gets. A nil
// Instantiate uses texts as they are.
type Instantiate func(text string) (string, error)

func (inst Instantiate) apply(what, text string) (string, error) {
	if inst == nil {
		return text, nil
	}
	out, err := inst(text)
	if err != nil {
		return "", permanent(fmt.Errorf("%s: %w", what, err))
	}
	return out, nil
}

// applyMarked instantiates the content of a source annotated as a template.
func (inst Instantiate) applyMarked(what, text string) (string, error) {
	if inst == nil {
		return "", permanent(fmt.Errorf("%s is annotated %s: templates are not supported by Stagecoach yet",
			what, libv1beta1.PolicyTemplateAnnotation))
	}
	return inst.apply(what, text)
}

// isTemplate reports whether a source's content is a template, as Sveltos marks it.
func (s Source) isTemplate() bool {
	_, ok := s.Annotations[libv1beta1.PolicyTemplateAnnotation]
	return ok
}

// Patches gathers the summary's patches, then those of its patchesFrom in list order, each
// ConfigMap or Secret giving one patch per key in key order. Each key holds a patch as Sveltos
// writes it: a "patch" and an optional "target". The patches of spec.patches, and those of
// sources annotated projectsveltos.io/template, are instantiated first. Every patch is parsed
// here, so that a bad one fails the features before anything is rendered.
func Patches(ctx context.Context, rd tenancy.Readers, cs *configv1beta1.ClusterSummary, inst Instantiate) ([]kustomize.Patch, error) {
	spec := &cs.Spec.ClusterProfileSpec
	var out []kustomize.Patch
	for i, p := range spec.Patches {
		what := fmt.Sprintf("patches[%d]", i)
		text, err := inst.apply(what, p.Patch)
		if err != nil {
			return nil, err
		}
		out = append(out, kustomize.Patch{Text: text, Target: p.Target, Source: what})
	}
	for _, vf := range spec.PatchesFrom {
		src, err := readSource(ctx, vf.Kind, vf.Namespace, vf.Name, vf.Optional, false, newInstantiator(ctx, rd, cs))
		if err != nil {
			return nil, err
		}
		if err := src.luaRefused(); err != nil {
			return nil, err
		}
		for _, k := range src.sortedKeys() {
			what := fmt.Sprintf("patchesFrom %s key %q", src, k)
			text := string(src.Data[k])
			if src.isTemplate() {
				if text, err = inst.applyMarked(what, text); err != nil {
					return nil, err
				}
			}
			var p libv1beta1.Patch
			if err := yaml.UnmarshalStrict([]byte(text), &p); err != nil {
				return nil, permanent(fmt.Errorf("%s is not a patch (a \"patch\" and an optional \"target\"): %w", what, err))
			}
			out = append(out, kustomize.Patch{Text: p.Patch, Target: p.Target, Source: what})
		}
	}
	if err := kustomize.Check(out); err != nil {
		return nil, permanent(err)
	}
	return out, nil
}

// PatchesHash identifies patches (a release's status reports it); nil without patches.
func PatchesHash(patches []kustomize.Patch) []byte {
	if len(patches) == 0 {
		return nil
	}
	data, _ := json.Marshal(patches) // strings and selectors: cannot fail
	sum := sha256.Sum256(data)
	return sum[:]
}

// ChartPatches applies the profile's patches to a chart's manifests, as a Helm post-renderer.
// Without patches it changes nothing, and nor does the release's spec hash.
func ChartPatches(patches []kustomize.Patch) helm.DeployOption {
	if len(patches) == 0 {
		return helm.WithPatches(nil, "")
	}
	return helm.WithPatches(kustomize.PostRenderer{Patches: patches}, hex.EncodeToString(PatchesHash(patches)))
}

// applyPatches patches the objects of one source; patch errors are the user's to fix.
func applyPatches(src string, objs []*unstructured.Unstructured, patches []kustomize.Patch) ([]*unstructured.Unstructured, error) {
	out, err := kustomize.Apply(objs, patches)
	if err != nil {
		return nil, permanent(fmt.Errorf("patching %s: %w", src, err))
	}
	return out, nil
}
