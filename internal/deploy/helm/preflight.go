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
	"bytes"
	"context"
	"fmt"
	"strings"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	"helm.sh/helm/v4/pkg/engine"
	"helm.sh/helm/v4/pkg/kube"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

// preflight renders the chart with the values before Helm is asked to change anything. Helm
// reports a schema violation or a failing template as a plain error, like a network failure;
// checking first lets those be told apart (they are permanent: the spec must change) and
// guarantees that bad values never create a revision, so the deployed release stays as it was.
// It works on its own copy of the chart, since rendering processes dependencies in place.
func (d *Deployer) preflight(ctx context.Context, cfg *action.Configuration, remote *fleet.Remote,
	hc configv1beta1.HelmChart, creds *Credentials, values map[string]any, o options) error {
	ch, err := d.cache.Fetch(ctx, hc, creds)
	if err != nil {
		return err
	}
	caps, err := capabilities(cfg)
	if err != nil {
		return err
	}
	return renderCheck(ch, hc, values, o, caps, remote)
}

func renderCheck(ch *chart.Chart, hc configv1beta1.HelmChart, values map[string]any, o options,
	caps *common.Capabilities, remote *fleet.Remote) error {
	name := ch.Metadata.Name + " " + ch.Metadata.Version
	if err := chartutil.ProcessDependencies(ch, values); err != nil {
		return permanent(fmt.Errorf("%w: chart %s: dependencies: %w", ErrInvalidValues, name, err))
	}
	relOpts := common.ReleaseOptions{Name: hc.ReleaseName, Namespace: hc.ReleaseNamespace, Revision: 1, IsInstall: true}
	top, err := util.ToRenderValuesWithSchemaValidation(ch, values, relOpts, caps, o.SkipSchemaValidation)
	if err != nil {
		return permanent(fmt.Errorf("%w for chart %s: %s", ErrInvalidValues, name, schemaMessage(err, ch.Metadata.Name)))
	}
	if _, err := engine.RenderWithClient(ch, top, remote.Config); err != nil {
		return permanent(fmt.Errorf("%w for chart %s: the templates fail with them: %s", ErrInvalidValues, name, oneLine(err)))
	}
	return nil
}

// capabilities reads the cluster's version and API groups from the (cached) discovery client,
// without the invalidation Helm does before each action.
func capabilities(cfg *action.Configuration) (*common.Capabilities, error) {
	dc, err := cfg.RESTClientGetter.ToDiscoveryClient()
	if err != nil {
		return nil, err
	}
	v, err := dc.ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("kubernetes cluster unreachable: %w", err)
	}
	apis, err := action.GetVersionSet(dc)
	if err != nil {
		return nil, fmt.Errorf("kubernetes cluster unreachable: reading API versions: %w", err)
	}
	return &common.Capabilities{
		KubeVersion: common.KubeVersion{Version: v.GitVersion, Major: v.Major, Minor: v.Minor},
		APIVersions: apis,
		HelmVersion: common.DefaultCapabilities.HelmVersion,
	}, nil
}

// upgradeCRDs applies the chart's crds/ directory, which Helm installs once and never upgrades.
func upgradeCRDs(_ context.Context, cfg *action.Configuration, ch *chart.Chart) error {
	for _, crd := range ch.CRDObjects() {
		res, err := cfg.KubeClient.Build(bytes.NewReader(crd.File.Data), false)
		if err != nil {
			return permanent(fmt.Errorf("%w: chart %s: CRD file %s: %w", ErrBadChart, ch.Metadata.Name, crd.Filename, err))
		}
		if _, err := cfg.KubeClient.Create(res, kube.ClientCreateOptionServerSideApply(true, true)); err != nil {
			return fmt.Errorf("upgrading CRDs of chart %s (%s): %w", ch.Metadata.Name, crd.Filename, err)
		}
	}
	return nil
}

// schemaMessage shortens Helm's schema report ("values don't meet the specifications of the
// schema(s) in the following chart(s):\nkyverno:\n- at '/admissionController/replicas': got
// boolean, want integer") to its findings: "at '/admissionController/replicas': got boolean,
// want integer". Findings in subcharts keep their chart's name.
func schemaMessage(err error, chartName string) string {
	msg := oneLine(err)
	msg = strings.TrimPrefix(msg, "values don't meet the specifications of the schema(s) in the following chart(s): ")
	return strings.TrimPrefix(msg, chartName+": - ")
}

// oneLine folds Helm's multi-line validation errors into one status-friendly line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
