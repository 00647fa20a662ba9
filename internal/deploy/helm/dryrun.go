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

package helm

import (
	"context"
	"fmt"

	"helm.sh/helm/v4/pkg/action"
	release "helm.sh/helm/v4/pkg/release/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

// PlanAction is what Deploy (or Uninstall) would do.
type PlanAction string

// The possible plans.
const (
	PlanInstall   PlanAction = "Install"
	PlanUpgrade   PlanAction = "Upgrade"
	PlanNoChange  PlanAction = "NoChange"
	PlanUninstall PlanAction = "Uninstall"
)

// Plan is the outcome of DryRun.
type Plan struct {
	Action    PlanAction
	Release   string
	Namespace string
	// FromVersion is the chart version deployed now ("" when none); ToVersion the one Deploy
	// would deploy ("" for an uninstall).
	FromVersion, ToVersion string
	// Diff compares the rendered manifests object by object, as a unified diff; empty when
	// nothing would change.
	Diff string
}

// DryRun says what Deploy (or Uninstall, for a chart whose action is Uninstall) would do with
// the same arguments, and how the rendered manifests would change. Nothing changes on the
// cluster: Helm renders against it and asks the API server to validate, but stores nothing.
func (d *Deployer) DryRun(ctx context.Context, remote *fleet.Remote, owner string, hc configv1beta1.HelmChart,
	values map[string]any, opts ...DeployOption) (Plan, error) {
	var call deployCall
	for _, o := range opts {
		o(&call)
	}
	plan := Plan{Release: hc.ReleaseName, Namespace: hc.ReleaseNamespace, Action: PlanNoChange}
	if err := checkRequest(owner, hc); err != nil {
		return plan, err
	}
	values, err := copyValues(values)
	if err != nil {
		return plan, err
	}
	log := d.log.WithValues("cluster", remote.Ref.String(), "release", hc.ReleaseNamespace+"/"+hc.ReleaseName, "dryRun", true)
	cfg, err := actionConfig(remote, hc.ReleaseNamespace, log)
	if err != nil {
		return plan, err
	}
	last, err := lastRelease(cfg, hc.ReleaseName)
	if err != nil {
		return plan, err
	}
	o := resolveOptions(hc)
	if last != nil {
		adopt := o.InstallOptions.TakeOwnership || o.UpgradeOptions.TakeOwnership
		if err := checkOwner(last, owner, adopt, false); err != nil {
			return plan, err
		}
		if last.Chart != nil && last.Chart.Metadata != nil && last.Info.Status.String() != "uninstalled" {
			plan.FromVersion = last.Chart.Metadata.Version
		}
	}
	if hc.HelmChartAction == configv1beta1.HelmChartActionUninstall {
		if plan.FromVersion != "" {
			plan.Action, plan.Diff = PlanUninstall, manifestDiff(last.Manifest, "")
		}
		return plan, nil
	}
	return d.planDeploy(ctx, cfg, remote, hc, owner, values, o, last, &call, plan)
}

func (d *Deployer) planDeploy(ctx context.Context, cfg *action.Configuration, remote *fleet.Remote, hc configv1beta1.HelmChart,
	owner string, values map[string]any, o options, last *release.Release, call *deployCall, plan Plan) (Plan, error) {
	creds, err := d.credentials(ctx, hc, call)
	if err != nil {
		return plan, err
	}
	ch, err := d.fetch(ctx, hc, creds, call)
	if err != nil {
		return plan, err
	}
	plan.ToVersion = ch.Metadata.Version
	want := specHash(ch, values, hc.Options, call.hashInput())
	metadata := call.renderer()
	if last != nil && upToDate(last, owner, ch, values, want, o) {
		return plan, nil
	}
	if err := d.preflight(ctx, cfg, remote, hc, creds, values, o); err != nil {
		return plan, err
	}
	var res any
	oldManifest := ""
	if plan.FromVersion == "" {
		plan.Action = PlanInstall
		in := o.newInstall(cfg, hc, owner)
		in.DryRunStrategy = action.DryRunServer
		if metadata != nil {
			in.PostRenderer = metadata
		}
		res, err = in.RunWithContext(ctx, ch, values)
	} else {
		plan.Action, oldManifest = PlanUpgrade, last.Manifest
		up := o.newUpgrade(cfg, hc, owner, last)
		up.DryRunStrategy = action.DryRunServer
		if metadata != nil {
			up.PostRenderer = metadata
		}
		res, err = up.RunWithContext(ctx, hc.ReleaseName, ch, values)
	}
	if err != nil {
		return plan, classifyActionError(fmt.Errorf("dry run of helm release %s/%s: %w", hc.ReleaseNamespace, hc.ReleaseName, err))
	}
	rel, ok := res.(*release.Release)
	if !ok {
		return plan, fmt.Errorf("dry run of helm release %s/%s returned %T", hc.ReleaseNamespace, hc.ReleaseName, res)
	}
	plan.Diff = manifestDiff(oldManifest, rel.Manifest)
	return plan, nil
}
