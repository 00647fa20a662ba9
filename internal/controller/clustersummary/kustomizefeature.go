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

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
	"github.com/stagecoach-dev/stagecoach/internal/kustomize"
	"github.com/stagecoach-dev/stagecoach/internal/render"
)

// kustomize deploys the output of the kustomizationRefs, as resources deploys the policyRefs,
// under an owner of its own.
func (d *deployment) kustomize(ctx context.Context) {
	st, spec := &d.cs.Status, d.spec()
	if len(spec.KustomizationRefs) == 0 {
		if hasFeature(st, libv1beta1.FeatureKustomize) {
			d.removeObjects(ctx, libv1beta1.FeatureKustomize)
		}
		return
	}
	f := feature(st, libv1beta1.FeatureKustomize)
	ks, err := render.Kustomizations(ctx, d.r.client, d.cs)
	for _, k := range ks {
		d.secretValues = d.secretValues.With(k.ValuesFrom...)
	}
	patches, perr := d.patches(ctx)
	var values []map[string]string
	if err == nil {
		values, err = render.KustomizeValues(ks, d.instantiate(ctx))
	}
	hash := hashOf(withPatches(patches, withMetadata(spec, spec.KustomizationRefs, spec.Tier, spec.ContinueOnConflict, spec.SyncMode,
		spec.DriftExclusions, spec.ValidateHealths, spec.PreDeployChecks, ks, values))...)
	if spec.Reloader {
		hash = hashOf(hash, "reloader") // turning reloader on records what the workloads read
	}
	if err = cmp.Or(err, perr); err != nil {
		d.fail(f, hash, err)
		return
	}
	d.deployObjects(ctx, f, hash, func() (manifests.Request, manifests.Request, error) {
		return render.KustomizeRequests(d.cs, ks, patches, d.instantiate(ctx))
	})
}

// patches reads the profile's patches once per pass; every feature applies them.
func (d *deployment) patches(ctx context.Context) ([]kustomize.Patch, error) {
	if !d.patchesRead {
		d.patchList, d.patchErr = render.Patches(ctx, d.r.client, d.cs, d.instantiate(ctx))
		d.patchesRead = true
	}
	return d.patchList, d.patchErr
}

// instantiate turns the profile's templates into this cluster's content.
func (d *deployment) instantiate(ctx context.Context) render.Instantiate {
	return render.SummaryInstantiate(ctx, d.r.client, d.cs)
}

// withPatches adds the patches to the parts of a feature's hash when there are any, so that
// the hash of a profile without them stays what it was.
func withPatches(patches []kustomize.Patch, parts []any) []any {
	if len(patches) == 0 {
		return parts
	}
	return append(parts, patches)
}
