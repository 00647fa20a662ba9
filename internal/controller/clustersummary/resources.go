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
	"bytes"
	"cmp"
	"context"
	"errors"
	"time"

	corev1 "k8s.io/api/core/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/helm"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/kustomize"
	"github.com/stagecoach-dev/stagecoach/internal/metrics"
	"github.com/stagecoach-dev/stagecoach/internal/render"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

// deployment is one pass of deploying a summary's features to its cluster.
type deployment struct {
	r      *Reconciler
	cs     *configv1beta1.ClusterSummary
	remote *fleet.Remote
	// rd reads the content the summary references, as its tenant (see readers).
	rd tenancy.Readers
	// previous are the releases the status listed before this pass.
	previous []configv1beta1.HelmChartSummary
	// released are the releases this pass installed, upgraded or found up to date.
	released []helm.Release
	// secretValues are the values the features took from Secrets, cut from dry-run reports.
	secretValues render.SecretValues

	// The profile's patches, read once per pass (see patches).
	patchList   []kustomize.Patch
	patchErr    error
	patchesRead bool

	// flush writes the status at once (see begin); flushErr is the error that stopped the pass.
	flush    func(context.Context) error
	flushErr error

	// unanswered says a health check run again found the cluster not answering (see recheck).
	unanswered bool
}

func (d *deployment) spec() *configv1beta1.Spec { return &d.cs.Spec.ClusterProfileSpec }

// owner identifies this summary's content of one feature on a cluster; deployers key their
// inventories and ownership marks by it.
func (d *deployment) owner(id libv1beta1.FeatureID) string {
	return render.SummaryOwner(d.cs, id)
}

func (d *deployment) dryRun() bool { return d.spec().SyncMode == configv1beta1.SyncModeDryRun }

func (d *deployment) driftMode() bool {
	return d.spec().SyncMode == configv1beta1.SyncModeContinuousWithDriftDetection
}

// resources deploys the manifests of the policyRefs' ConfigMaps and Secrets.
func (d *deployment) resources(ctx context.Context) {
	st, spec := &d.cs.Status, d.spec()
	if len(spec.PolicyRefs) == 0 {
		if hasFeature(st, libv1beta1.FeatureResources) {
			d.removeObjects(ctx, libv1beta1.FeatureResources)
		}
		return
	}
	f := feature(st, libv1beta1.FeatureResources)
	sources, err := render.PolicySources(ctx, d.rd, d.cs)
	patches, perr := d.patches(ctx)
	hash := hashOf(withPatches(patches, withMetadata(spec, spec.PolicyRefs, spec.Tier, spec.ContinueOnConflict, spec.SyncMode, spec.DriftExclusions,
		spec.ValidateHealths, spec.PreDeployChecks, sources))...)
	if spec.Reloader {
		hash = hashOf(hash, "reloader") // turning reloader on records what the workloads read
	}
	if err = cmp.Or(err, perr); err != nil {
		d.fail(f, hash, err)
		return
	}
	d.deployObjects(ctx, f, hash, func() (manifests.Request, manifests.Request, error) {
		return render.Requests(d.cs, sources, patches)
	})
}

// deployObjects deploys the objects of a feature, as requests renders them, to the managed
// cluster and, for deploymentType Local, to the management cluster, unless they are deployed
// already with the same hash and have not drifted.
func (d *deployment) deployObjects(ctx context.Context, f *configv1beta1.FeatureSummary, hash []byte,
	requests func() (remote, local manifests.Request, err error)) {
	st, id := &d.cs.Status, f.FeatureID
	if upToDate(f, hash) && !d.drifted(ctx, f, requests) {
		d.recheck(ctx, f, hash)
		return
	}
	remote, local, err := requests()
	if err != nil {
		d.fail(f, hash, err)
		return
	}
	if err := d.preDeploy(ctx, id); err != nil {
		d.fail(f, hash, err)
		return
	}
	if !d.begin(ctx, f, hash) {
		return
	}
	targets := []target{{d.remote, remote}}
	if mgmt, err := d.local(); err == nil {
		targets = append(targets, target{mgmt, local})
	} else if len(local.Objects) > 0 {
		d.fail(f, hash, err)
		return
	}
	var gvks []string
	for _, target := range targets {
		start := time.Now()
		res, err := manifests.Apply(ctx, target.remote, target.req)
		if !d.dryRun() {
			metrics.ObserveDeploy(string(id), start, err)
		}
		if err != nil {
			d.fail(f, hash, err)
			return
		}
		if d.dryRun() {
			d.reportDryRun(ctx, f, hash, res)
			return
		}
		gvks = append(gvks, res.DeployedGVKs...)
	}
	if err := d.reload(ctx, id, manifestObjects(remote.Objects)); err != nil {
		d.fail(f, hash, err)
		return
	}
	setDeployedGVKs(st, id, gvks)
	if err := d.validate(ctx, id); err != nil {
		d.fail(f, hash, err)
		return
	}
	markProvisioned(f, hash)
	d.r.recorder.Eventf(d.cs, nil, corev1.EventTypeNormal, string(id)+"Deployed", "Deploy", "deployed %d kinds to %s", len(gvks), d.remote.Ref)
}

type target struct {
	remote *fleet.Remote
	req    manifests.Request
}

// drifted, in ContinuousWithDriftDetection mode, reports whether objects on the cluster no
// longer match what was deployed; they are then deployed again.
func (d *deployment) drifted(ctx context.Context, f *configv1beta1.FeatureSummary, requests func() (remote, local manifests.Request, err error)) bool {
	if !d.driftMode() || f.Status != libv1beta1.FeatureStatusProvisioned {
		return false
	}
	req, _, err := requests()
	if err != nil {
		return false
	}
	drifts, err := manifests.Drifted(ctx, d.remote, req)
	if err != nil || len(drifts) == 0 {
		return false
	}
	d.r.recorder.Eventf(d.cs, nil, corev1.EventTypeWarning, "DriftDetected", "Deploy", "%d objects changed on %s, e.g. %s; deploying them again",
		len(drifts), d.remote.Ref, drifts[0].Object)
	return true
}

// removeObjects withdraws everything a feature deployed, once its refs are empty.
func (d *deployment) removeObjects(ctx context.Context, id libv1beta1.FeatureID) {
	f := feature(&d.cs.Status, id)
	f.Status = libv1beta1.FeatureStatusRemoving
	owner := d.owner(id)
	_, err := manifests.Withdraw(ctx, d.remote, owner)
	if mgmt, lerr := d.local(); err == nil && lerr == nil {
		_, err = manifests.Withdraw(ctx, mgmt, owner+":Local")
	}
	if err != nil {
		d.fail(f, f.Hash, err)
		return
	}
	dropFeature(&d.cs.Status, id)
}

// withdraw removes what the summary deployed, or with LeavePolicies only forgets it.
func (d *deployment) withdraw(ctx context.Context) error {
	owners := []string{d.owner(libv1beta1.FeatureResources), d.owner(libv1beta1.FeatureKustomize)}
	mgmt, lerr := d.local()
	if d.spec().StopMatchingBehavior == configv1beta1.LeavePolicies {
		var errs []error
		for _, owner := range owners {
			errs = append(errs, manifests.Forget(ctx, d.remote, owner))
			if lerr == nil {
				errs = append(errs, manifests.Forget(ctx, mgmt, owner+":Local"))
			}
		}
		return errors.Join(errs...)
	}
	for i := range d.cs.Status.FeatureSummaries {
		d.cs.Status.FeatureSummaries[i].Status = libv1beta1.FeatureStatusRemoving
	}
	var errs []error
	for _, rs := range d.cs.Status.HelmReleaseSummaries {
		if rs.Status == configv1beta1.HelmChartStatusManaging {
			errs = append(errs, d.r.helm.Uninstall(ctx, d.remote, d.owner(libv1beta1.FeatureHelm), chartOf(rs)))
		}
	}
	for _, owner := range owners {
		_, err := manifests.Withdraw(ctx, d.remote, owner)
		errs = append(errs, err)
		if lerr == nil {
			_, err = manifests.Withdraw(ctx, mgmt, owner+":Local")
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// fail records a failed attempt and tells whoever watches the summary, with one exception: the
// first health check of a revision just applied. A workload just applied is rarely ready at
// once, and the check runs again at the health interval; a warning for every cluster of every
// rollout would bury the ones that matter (and cost the management cluster a write per
// cluster). The status says it either way, and a check that still fails on its next run is
// a warning.
func (d *deployment) fail(f *configv1beta1.FeatureSummary, hash []byte, err error) {
	err = d.secretValues.Hide(err)
	settling := isHealthError(err) && f.Status == libv1beta1.FeatureStatusProvisioning && f.FailureReason == nil &&
		bytes.Equal(f.Hash, hash)
	markFailed(f, hash, err, d.spec().MaxConsecutiveFailures)
	if settling {
		return
	}
	d.r.recorder.Eventf(d.cs, nil, corev1.EventTypeWarning, "DeployFailed", "Deploy", "%s on %s: %s", f.FeatureID, d.remote.Ref, *f.FailureMessage)
}

func hasFeature(st *configv1beta1.ClusterSummaryStatus, id libv1beta1.FeatureID) bool {
	return st.FeatureStatus(id) != ""
}

// isPermanent reports errors that retrying the same configuration cannot fix.
func isPermanent(err error) bool {
	return manifests.IsPermanent(err) || helm.IsPermanent(err) || render.IsPermanent(err)
}
