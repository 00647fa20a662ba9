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
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/helm"
	"github.com/stagecoach-dev/stagecoach/internal/metrics"
	"github.com/stagecoach-dev/stagecoach/internal/render"
)

// helm deploys the helmCharts in order and uninstalls releases the spec no longer lists.
func (d *deployment) helm(ctx context.Context) {
	st, spec := &d.cs.Status, d.spec()
	if len(spec.HelmCharts) == 0 && len(st.HelmReleaseSummaries) == 0 {
		dropFeature(st, libv1beta1.FeatureHelm)
		return
	}
	f := feature(st, libv1beta1.FeatureHelm)
	inputs, err := render.Charts(ctx, d.rd, d.cs)
	for _, in := range inputs {
		d.secretValues = d.secretValues.Join(in.Secrets)
	}
	values := make([]map[string]any, 0, len(inputs))
	charts := make([]configv1beta1.HelmChart, 0, len(inputs))
	for _, in := range inputs {
		values = append(values, in.Values)
		charts = append(charts, in.Chart)
	}
	patches, perr := d.patches(ctx)
	parts := withPatches(patches, withMetadata(spec, spec.HelmCharts, spec.Tier, spec.ContinueOnConflict, spec.SyncMode, spec.ValidateHealths,
		spec.PreDeployChecks, values))
	if err == nil && !equality.Semantic.DeepEqual(charts, spec.HelmCharts) {
		// Templated chart fields: the hash follows what they name for this cluster. (Left out
		// otherwise, so that the hash of a chart without them stays what it was.)
		parts = append(parts, charts)
	}
	hash := hashOf(parts...)
	if spec.Reloader {
		hash = hashOf(hash, "reloader") // turning reloader on records what the workloads read
	}
	if err = cmp.Or(err, perr); err != nil {
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
	if !d.begin(ctx, f, hash) {
		return
	}
	summaries, gvks, err := d.deployCharts(ctx, inputs, f.ConsecutiveFailures)
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
	if err := d.reload(ctx, libv1beta1.FeatureHelm, releaseObjects(d.released)); err != nil {
		d.fail(f, hash, err)
		return
	}
	setDeployedGVKs(st, libv1beta1.FeatureHelm, gvks)
	if err := d.validate(ctx, libv1beta1.FeatureHelm); err != nil {
		d.fail(f, hash, err)
		return
	}
	markProvisioned(f, hash)
}

// deployCharts installs or upgrades every chart in order. A conflicting release is reported and,
// with continueOnConflict, skipped; a failing one stops the rest unless continueOnError.
// failedBefore is how many times in a row the feature failed before, for
// recoverAfterConsecutiveFailures.
func (d *deployment) deployCharts(ctx context.Context, inputs []render.Chart, failedBefore uint) ([]configv1beta1.HelmChartSummary, []string, error) {
	var summaries []configv1beta1.HelmChartSummary
	var gvks []string
	var failures []error
	for _, in := range inputs {
		hc := in.Chart
		summary := configv1beta1.HelmChartSummary{
			ReleaseName: hc.ReleaseName, ReleaseNamespace: hc.ReleaseNamespace, Status: configv1beta1.HelmChartStatusManaging,
			ChartName: hc.ChartName, RepositoryName: hc.RepositoryName, RepoURL: hc.RepositoryURL, ChartVersion: hc.ChartVersion,
		}
		start := time.Now()
		rel, err := d.r.helm.Deploy(ctx, d.remote, d.owner(libv1beta1.FeatureHelm), hc, in.Values, render.ChartPatches(d.patchList),
			render.ChartMetadata(d.spec()), helm.ConsecutiveFailures(failedBefore), d.chartSecrets())
		err = d.secretValues.Hide(err)
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
		summary.PatchesHash = render.PatchesHash(d.patchList)
		summaries = append(summaries, summary)
		d.released = append(d.released, rel)
		gvks = append(gvks, rel.GVKs...)
		if rel.Action != helm.ActionUnchanged {
			d.r.recorder.Eventf(d.cs, nil, corev1.EventTypeNormal, "Helm"+string(rel.Action), "Deploy", "%s %s/%s %s-%s on %s",
				rel.Action, rel.Namespace, rel.Name, rel.Chart, rel.ChartVersion, d.remote.Ref)
		}
	}
	return summaries, gvks, errors.Join(failures...)
}

// uninstallUnlisted uninstalls releases this summary managed that the spec no longer lists.
func (d *deployment) uninstallUnlisted(ctx context.Context, inputs []render.Chart) error {
	listed := func(rs configv1beta1.HelmChartSummary) bool {
		return slices.ContainsFunc(inputs, func(in render.Chart) bool {
			return in.Chart.ReleaseName == rs.ReleaseName && in.Chart.ReleaseNamespace == rs.ReleaseNamespace
		})
	}
	var errs []error
	for _, rs := range d.previous {
		if rs.Status == configv1beta1.HelmChartStatusManaging && !listed(rs) {
			errs = append(errs, d.r.helm.Uninstall(ctx, d.remote, d.owner(libv1beta1.FeatureHelm), chartOf(rs)))
		}
	}
	return errors.Join(errs...)
}

// planHelm, in DryRun mode, works out what each chart would do without touching the cluster.
func (d *deployment) planHelm(ctx context.Context, f *configv1beta1.FeatureSummary, hash []byte, inputs []render.Chart) {
	var plans []helm.Plan
	for _, in := range inputs {
		plan, err := d.r.helm.DryRun(ctx, d.remote, d.owner(libv1beta1.FeatureHelm), in.Chart, in.Values, render.ChartPatches(d.patchList),
			render.ChartMetadata(d.spec()), d.chartSecrets())
		if err != nil {
			d.fail(f, hash, err)
			return
		}
		plans = append(plans, plan)
	}
	d.reportHelmDryRun(ctx, f, hash, plans)
}

// chartSecrets reads the Secrets a chart names (registry credentials, keys) as the profile's
// tenant.
func (d *deployment) chartSecrets() helm.DeployOption {
	return helm.SecretsFrom(d.rd.Referenced(), d.rd.As())
}

// chartOf rebuilds the part of a HelmChart that uninstalling needs from a release summary.
func chartOf(rs configv1beta1.HelmChartSummary) configv1beta1.HelmChart {
	return configv1beta1.HelmChart{
		RepositoryURL: rs.RepoURL, RepositoryName: rs.RepositoryName, ChartName: rs.ChartName, ChartVersion: rs.ChartVersion,
		ReleaseName: rs.ReleaseName, ReleaseNamespace: rs.ReleaseNamespace, HelmChartAction: configv1beta1.HelmChartActionUninstall,
	}
}
