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
	"errors"

	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/helm"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

// SummaryChanges is what deploying a summary's spec to its cluster would change there.
type SummaryChanges struct {
	// Objects are the objects of the policyRefs, then of the kustomizationRefs, that would be
	// created, updated or deleted.
	Objects []manifests.Diff
	// Releases are the helmCharts' plans, in order.
	Releases []helm.Plan
}

// DryRunSummary works out what deploying cs's spec to its cluster would change, as a DryRun
// profile does, and writes nothing anywhere: no report, no status, nothing on the cluster. cs
// needs only its name and namespace (they name the owner the cluster's inventory is keyed by) and
// its spec; it need not exist. c reads the content the spec refers to on the management cluster;
// remote is the cluster. deploymentType Local content is not previewed.
func DryRunSummary(ctx context.Context, c client.Client, charts *helm.Deployer, remote *fleet.Remote, cs *configv1beta1.ClusterSummary) (SummaryChanges, error) {
	cs = cs.DeepCopy()
	cs.Spec.ClusterProfileSpec.SyncMode = configv1beta1.SyncModeDryRun
	var out SummaryChanges
	// The one who previews reads with their own rights, whoever the profile's tenant is.
	rd := tenancy.Admin(c)
	inst := SummaryInstantiate(ctx, rd, cs)
	patches, err := Patches(ctx, rd, cs, inst)
	if err != nil {
		return out, err
	}
	sources, err := PolicySources(ctx, rd, cs)
	if err != nil {
		return out, err
	}
	req, _, err := Requests(cs, sources, patches)
	if err != nil {
		return out, err
	}
	ks, err := Kustomizations(ctx, rd, cs)
	if err != nil {
		return out, err
	}
	kreq, _, err := KustomizeRequests(cs, ks, patches, inst)
	if err != nil {
		return out, err
	}
	// Even without policyRefs or kustomizationRefs: what the cluster has from this summary would
	// be pruned.
	for _, r := range []manifests.Request{req, kreq} {
		res, err := manifests.Apply(ctx, remote, r)
		if err != nil {
			return out, err
		}
		out.Objects = append(out.Objects, res.Diffs...)
	}
	inputs, err := Charts(ctx, rd, cs)
	if err != nil {
		return out, err
	}
	if len(inputs) > 0 && charts == nil {
		return out, errors.New("helm charts are not previewed here")
	}
	for _, in := range inputs {
		plan, err := charts.DryRun(ctx, remote, SummaryOwner(cs, libv1beta1.FeatureHelm), in.Chart, in.Values,
			ChartPatches(patches), ChartMetadata(&cs.Spec.ClusterProfileSpec))
		if err != nil {
			return out, err
		}
		out.Releases = append(out.Releases, plan)
	}
	return out, nil
}

// DryRunBinding works out what applying a placement's resource snapshot group, whose first
// snapshot is named snapshot, to a member cluster would change there, with the placement's apply
// strategy, as one of its bindings would apply it. Nothing is written anywhere. c reads the
// snapshots on the management cluster; remote is the member cluster.
func DryRunBinding(ctx context.Context, c client.Client, family placementv1beta1.Family, remote *fleet.Remote,
	namespace, placement, snapshot string, strategy *placementv1beta1.ApplyStrategy) ([]manifests.Diff, error) {
	b := family.NewBinding()
	b.SetNamespace(namespace)
	b.SetLabels(map[string]string{placementv1beta1.PlacementTrackingLabel: placement})
	b.BindingSpec().ResourceSnapshotName = snapshot

	req := manifests.Request{DryRun: true}
	if err := WithStrategy(&req, strategy); err != nil {
		return nil, err
	}
	owner, objs, err := BindingObjects(ctx, c, family, b, remote.Mapper)
	if err != nil {
		return nil, err
	}
	req.Owner, req.Objects = owner, objs
	res, err := manifests.Apply(ctx, remote, req)
	return res.Diffs, err
}
