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

package clustersummary

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/helm"
	"github.com/stagecoach-dev/stagecoach/internal/freeze"
	"github.com/stagecoach-dev/stagecoach/internal/metrics"
)

// chartInput is one chart of the spec with its final values.
type chartInput struct {
	chart  configv1beta1.HelmChart
	values map[string]any
}

// helm deploys the helmCharts in order and uninstalls releases the spec no longer lists.
func (d *deployment) helm(ctx context.Context) {
	st, spec := &d.cs.Status, d.spec()
	if len(spec.HelmCharts) == 0 && len(st.HelmReleaseSummaries) == 0 {
		dropFeature(st, libv1beta1.FeatureHelm)
		return
	}
	f := feature(st, libv1beta1.FeatureHelm)
	inputs, err := d.chartInputs(ctx)
	values := make([]map[string]any, 0, len(inputs))
	for _, in := range inputs {
		values = append(values, in.values)
	}
	hash := hashOf(withMetadata(spec, spec.HelmCharts, spec.Tier, spec.ContinueOnConflict, spec.SyncMode, spec.ValidateHealths,
		spec.PreDeployChecks, values)...)
	if err != nil {
		d.fail(f, hash, err)
		return
	}
	if upToDate(f, hash) {
		d.recheck(ctx, f, hash)
		return
	}
	if d.dryRun() {
		d.planHelm(ctx, f, hash, inputs)
		return
	}
	if err := d.preDeploy(ctx, libv1beta1.FeatureHelm); err != nil {
		d.fail(f, hash, err)
		return
	}
	summaries, gvks, err := d.deployCharts(ctx, inputs)
	st.HelmReleaseSummaries = summaries
	if err == nil {
		err = d.uninstallUnlisted(ctx, inputs)
	}
	if err != nil {
		d.fail(f, hash, err)
		return
	}
	if len(spec.HelmCharts) == 0 {
		dropFeature(st, libv1beta1.FeatureHelm)
		return
	}
	setDeployedGVKs(st, libv1beta1.FeatureHelm, gvks)
	if err := d.validate(ctx, libv1beta1.FeatureHelm); err != nil {
		d.fail(f, hash, err)
		return
	}
	markProvisioned(f, hash)
}

// extraMetadata adds the profile's extraLabels and extraAnnotations to every object of a release.
func (d *deployment) extraMetadata() helm.DeployOption {
	return helm.WithMetadata(d.spec().ExtraLabels, d.spec().ExtraAnnotations)
}

// chartInputs reads each chart's values and valuesFrom. Values in valuesFrom are merged over
// the inline values, in list order, each key of a ConfigMap or Secret being a YAML document.
func (d *deployment) chartInputs(ctx context.Context) ([]chartInput, error) {
	var out []chartInput
	for _, hc := range d.spec().HelmCharts {
		values, err := helm.ParseValues(hc.Values)
		if err != nil {
			return nil, permanent(fmt.Errorf("chart %s values: %w", hc.ReleaseName, err))
		}
		in := chartInput{chart: hc, values: values}
		for _, vf := range hc.ValuesFrom {
			src, err := readSource(ctx, d.r, vf.Kind, vf.Namespace, vf.Name, vf.Optional, false, d.cs.Spec.ClusterNamespace, freeze.Decode(d.cs.Spec.FrozenContent))
			if err != nil {
				return nil, err
			}
			for _, k := range src.sortedKeys() {
				var more map[string]any
				if err := yaml.Unmarshal(src.Data[k], &more); err != nil {
					return nil, permanent(fmt.Errorf("chart %s valuesFrom %s key %q is not YAML: %w", hc.ReleaseName, src, k, err))
				}
				in.values = mergeValues(in.values, more)
			}
		}
		out = append(out, in)
	}
	return out, nil
}

// deployCharts installs or upgrades every chart in order. A conflicting release is reported and,
// with continueOnConflict, skipped; a failing one stops the rest unless continueOnError.
func (d *deployment) deployCharts(ctx context.Context, inputs []chartInput) ([]configv1beta1.HelmChartSummary, []string, error) {
	var summaries []configv1beta1.HelmChartSummary
	var gvks []string
	var failures []error
	for _, in := range inputs {
		hc := in.chart
		summary := configv1beta1.HelmChartSummary{
			ReleaseName: hc.ReleaseName, ReleaseNamespace: hc.ReleaseNamespace, Status: configv1beta1.HelmChartStatusManaging,
			ChartName: hc.ChartName, RepositoryName: hc.RepositoryName, RepoURL: hc.RepositoryURL, ChartVersion: hc.ChartVersion,
		}
		start := time.Now()
		rel, err := d.r.Helm.Deploy(ctx, d.remote, d.owner(libv1beta1.FeatureHelm), hc, in.values, d.extraMetadata())
		metrics.ObserveDeploy(string(libv1beta1.FeatureHelm), start, err)
		var conflict *helm.ConflictError
		switch {
		case errors.As(err, &conflict):
			summary.Status = configv1beta1.HelmChartStatusConflict
			summary.ConflictMessage = err.Error()
			summaries = append(summaries, summary)
			if !d.spec().ContinueOnConflict {
				return summaries, gvks, err
			}
			continue
		case err != nil:
			msg := err.Error()
			summary.FailureMessage = &msg
			summaries = append(summaries, summary)
			if !d.spec().ContinueOnError {
				return summaries, gvks, err
			}
			// continueOnError: deploy the remaining charts, and still report the feature failed.
			failures = append(failures, err)
			continue
		}
		if hc.HelmChartAction == configv1beta1.HelmChartActionUninstall {
			continue
		}
		summary.ValuesHash, summary.ChartVersion = rel.ValuesHash, rel.ChartVersion
		summaries = append(summaries, summary)
		gvks = append(gvks, rel.GVKs...)
		if rel.Action != helm.ActionUnchanged {
			d.r.Recorder.Eventf(d.cs, nil, corev1.EventTypeNormal, "Helm"+string(rel.Action), "Deploy", "%s %s/%s %s-%s on %s",
				rel.Action, rel.Namespace, rel.Name, rel.Chart, rel.ChartVersion, d.remote.Ref)
		}
	}
	return summaries, gvks, errors.Join(failures...)
}

// uninstallUnlisted uninstalls releases this summary managed that the spec no longer lists.
func (d *deployment) uninstallUnlisted(ctx context.Context, inputs []chartInput) error {
	listed := func(rs configv1beta1.HelmChartSummary) bool {
		return slices.ContainsFunc(inputs, func(in chartInput) bool {
			return in.chart.ReleaseName == rs.ReleaseName && in.chart.ReleaseNamespace == rs.ReleaseNamespace
		})
	}
	var errs []error
	for _, rs := range d.previous {
		if rs.Status == configv1beta1.HelmChartStatusManaging && !listed(rs) {
			errs = append(errs, d.r.Helm.Uninstall(ctx, d.remote, d.owner(libv1beta1.FeatureHelm), chartOf(rs)))
		}
	}
	return errors.Join(errs...)
}

// planHelm, in DryRun mode, works out what each chart would do without touching the cluster.
func (d *deployment) planHelm(ctx context.Context, f *configv1beta1.FeatureSummary, hash []byte, inputs []chartInput) {
	var plans []helm.Plan
	for _, in := range inputs {
		plan, err := d.r.Helm.DryRun(ctx, d.remote, d.owner(libv1beta1.FeatureHelm), in.chart, in.values, d.extraMetadata())
		if err != nil {
			d.fail(f, hash, err)
			return
		}
		plans = append(plans, plan)
	}
	d.reportHelmDryRun(ctx, f, hash, plans)
}

// chartOf rebuilds the part of a HelmChart that uninstalling needs from a release summary.
func chartOf(rs configv1beta1.HelmChartSummary) configv1beta1.HelmChart {
	return configv1beta1.HelmChart{
		RepositoryURL: rs.RepoURL, RepositoryName: rs.RepositoryName, ChartName: rs.ChartName, ChartVersion: rs.ChartVersion,
		ReleaseName: rs.ReleaseName, ReleaseNamespace: rs.ReleaseNamespace, HelmChartAction: configv1beta1.HelmChartActionUninstall,
	}
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
