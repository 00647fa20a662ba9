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

// Package chartrender renders Stagecoach's Helm chart as `helm template` does, for the release
// manifest (dist/install.yaml) and the chart's tests.
package chartrender

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"strings"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	releasev1 "helm.sh/helm/v4/pkg/release/v1"
)

// Options name the release and what to include.
type Options struct {
	Release, Namespace string
	Values             map[string]any
	// CRDs puts the chart's CRDs first, as `kubectl apply -f` of one file needs.
	CRDs bool
	// KubeMinor is the minor version of Kubernetes 1.x rendered for; zero means 36.
	KubeMinor int
}

// Render renders the chart in dir without a cluster (Kubernetes 1.36 capabilities unless
// o.KubeMinor says otherwise).
func Render(ctx context.Context, dir string, o Options) (string, error) {
	ch, err := loader.Load(dir)
	if err != nil {
		return "", err
	}
	install := action.NewInstall(action.NewConfiguration())
	install.DryRunStrategy = action.DryRunClient
	install.Replace = true // no release name check against a cluster
	install.ReleaseName, install.Namespace = o.Release, o.Namespace
	minor := cmp.Or(o.KubeMinor, 36)
	install.KubeVersion = &common.KubeVersion{Version: fmt.Sprintf("v1.%d.0", minor), Major: "1", Minor: strconv.Itoa(minor)}
	rel, err := install.RunWithContext(ctx, ch, o.Values)
	if err != nil {
		return "", fmt.Errorf("rendering %s: %w", dir, err)
	}
	manifest := rel.(*releasev1.Release).Manifest
	if !o.CRDs {
		return manifest, nil
	}
	var b strings.Builder
	for _, crd := range ch.CRDObjects() {
		b.WriteString("---\n# Source: " + crd.Filename + "\n")
		b.Write(crd.File.Data)
		if !strings.HasSuffix(string(crd.File.Data), "\n") {
			b.WriteString("\n")
		}
	}
	return b.String() + manifest, nil
}
