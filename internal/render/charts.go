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
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/helm"
)

// Chart is one chart of a summary's spec with its final values.
type Chart struct {
	Chart  configv1beta1.HelmChart
	Values map[string]any
	// Secrets are the values taken from valuesFrom Secrets, for reports to cut.
	Secrets SecretValues
}

// ChartMetadata adds the profile's extraLabels and extraAnnotations to every object of a release.
func ChartMetadata(spec *configv1beta1.Spec) helm.DeployOption {
	return helm.WithMetadata(spec.ExtraLabels, spec.ExtraAnnotations)
}

// Charts reads the values and valuesFrom of each of the summary's helmCharts, in order. The
// chart's repository, name, version and release may be templates, as in Sveltos; the
// inline values are a template, instantiated for the cluster; so is the content of valuesFrom
// ConfigMaps and Secrets annotated projectsveltos.io/template. As in Sveltos, the valuesFrom
// that are not templates are merged over the inline values first, in list order, then those
// that are, each key of a ConfigMap or Secret being a YAML document.
func Charts(ctx context.Context, c client.Reader, cs *configv1beta1.ClusterSummary) ([]Chart, error) {
	var out []Chart
	in := newInstantiator(ctx, c, cs)
	for _, hc := range cs.Spec.ClusterProfileSpec.HelmCharts {
		if err := instantiateChart(in, &hc); err != nil {
			return nil, err
		}
		text, err := in.instantiate(fmt.Sprintf("chart %s values", hc.ReleaseName), hc.Values)
		if err != nil {
			return nil, err
		}
		values, err := helm.ParseValues(text)
		if err != nil {
			return nil, permanent(fmt.Errorf("chart %s values: %w", hc.ReleaseName, err))
		}
		chart := Chart{Chart: hc, Values: values}
		var templates []Source
		merge := func(src Source) error {
			for _, k := range src.sortedKeys() {
				var more map[string]any
				if err := yaml.Unmarshal(src.Data[k], &more); err != nil {
					return permanent(fmt.Errorf("chart %s valuesFrom %s key %q is not YAML: %s", hc.ReleaseName, src, k, contentError(src, err)))
				}
				chart.Values = mergeValues(chart.Values, more)
			}
			return nil
		}
		for _, vf := range hc.ValuesFrom {
			src, err := readSource(ctx, c, vf.Kind, vf.Namespace, vf.Name, vf.Optional, false, in)
			if err != nil {
				return nil, err
			}
			if src.Template || src.Lua {
				templates = append(templates, src)
				continue
			}
			chart.Secrets = chart.Secrets.With(src)
			if err := merge(src); err != nil {
				return nil, err
			}
		}
		for _, src := range templates {
			if err := instantiateSource(in, &src); err != nil {
				return nil, err
			}
			chart.Secrets = chart.Secrets.With(src)
			if err := merge(src); err != nil {
				return nil, err
			}
		}
		out = append(out, chart)
	}
	return out, nil
}

// instantiateChart instantiates the fields of a chart that name what is deployed where; the
// Chart that Charts returns carries them instantiated.
func instantiateChart(in *instantiator, hc *configv1beta1.HelmChart) error {
	for _, f := range []struct {
		name  string
		field *string
	}{
		{"repositoryURL", &hc.RepositoryURL}, {"repositoryName", &hc.RepositoryName}, {"chartName", &hc.ChartName},
		{"chartVersion", &hc.ChartVersion}, {"releaseName", &hc.ReleaseName}, {"releaseNamespace", &hc.ReleaseNamespace},
	} {
		out, err := in.instantiate(fmt.Sprintf("chart %s %s", hc.ReleaseName, f.name), *f.field)
		if err != nil {
			return err
		}
		*f.field = out
	}
	return nil
}

// mergeValues merges src over dst, recursing into maps, as Helm merges values files.
func mergeValues(dst, src map[string]any) map[string]any {
	if dst == nil {
		dst = map[string]any{}
	}
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				dst[k] = mergeValues(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
	return dst
}
