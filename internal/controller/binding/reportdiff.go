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

package binding

import (
	"context"
	"errors"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/render"
)

// wholeObject stands, as in Kubefleet, for the content of a resource the cluster does not have.
const wholeObject = "(the whole object)"

// reportDiff serves apply type ReportDiff: it dry-runs the snapshot group on the member cluster,
// writing nothing there, and lists the resources whose state differs in status.diffedPlacements
// with DiffReported. Applied and Available go, as nothing is applied; what an earlier apply type
// deployed stays as it is. The report is made again every resync.
func (r *kindReconciler) reportDiff(ctx context.Context, b placementv1beta1.BindingObj, remote *fleet.Remote, req manifests.Request) (ctrl.Result, error) {
	spec, st := b.BindingSpec(), b.BindingStatus()
	r.memo.forget(client.ObjectKeyFromObject(b))
	owner, objs, err := render.BindingObjects(ctx, r.client, r.family, b, remote.Mapper)
	if err != nil {
		return r.notDiffReported(ctx, b, err)
	}
	req.Owner, req.Objects = owner, objs
	res, err := manifests.Apply(ctx, remote, req)
	if err != nil {
		return r.notDiffReported(ctx, b, r.applyError(ctx, b, objs, err))
	}
	st.ObservedResourceSnapshotName = spec.ResourceSnapshotName
	st.DiffedPlacements = diffedPlacements(res.Diffs, objs, st.DiffedPlacements, metav1.Now())
	st.FailedPlacements, st.DriftedPlacements = nil, nil
	meta.RemoveStatusCondition(&st.Conditions, placementv1beta1.BindingAppliedCondition)
	meta.RemoveStatusCondition(&st.Conditions, placementv1beta1.BindingAvailableCondition)
	msg := "No resource of the snapshot differs on the cluster"
	if n := len(st.DiffedPlacements); n > 0 {
		msg = plural(n, "resource") + " of the snapshot differ on the cluster; see diffedPlacements (nothing is applied: apply type ReportDiff)"
	}
	setCondition(st, b.GetGeneration(), placementv1beta1.BindingDiffReportedCondition, metav1.ConditionTrue, placementv1beta1.AllWorkDiffReportedReason, msg)
	logr.FromContextOrDiscard(ctx).Info("differences reported", "resources", len(st.DiffedPlacements))
	return ctrl.Result{RequeueAfter: r.resyncInterval(ctx)}, nil
}

// notDiffReported records why the differences could not be worked out.
func (r *kindReconciler) notDiffReported(ctx context.Context, b placementv1beta1.BindingObj, err error) (ctrl.Result, error) {
	var in *render.InputError
	if !errors.As(err, &in) {
		return ctrl.Result{}, err
	}
	st := b.BindingStatus()
	st.ObservedResourceSnapshotName = b.BindingSpec().ResourceSnapshotName
	st.DiffedPlacements = nil
	meta.RemoveStatusCondition(&st.Conditions, placementv1beta1.BindingAppliedCondition)
	meta.RemoveStatusCondition(&st.Conditions, placementv1beta1.BindingAvailableCondition)
	for i := range in.Failed {
		// Rendering does not know the binding's generation.
		in.Failed[i].Condition.ObservedGeneration = b.GetGeneration()
	}
	setFailedPlacements(st, in.Failed)
	prev := setCondition(st, b.GetGeneration(), placementv1beta1.BindingDiffReportedCondition, metav1.ConditionFalse,
		placementv1beta1.WorkNotDiffReportedReason, in.Message)
	// As for an apply: a new failure is an event, waiting for a complete snapshot group is not.
	news := prev.Status != metav1.ConditionFalse || prev.ObservedGeneration != b.GetGeneration() || prev.Message != truncate(in.Message)
	if news && in.Reason != placementv1beta1.WorkApplyInProcessReason {
		r.recorder.Eventf(b, nil, corev1.EventTypeWarning, reasonDiffNotReported, "ReportDiff", "%s", truncate(in.Message))
	}
	wait := r.backoff(r.memo.failed(client.ObjectKeyFromObject(b)))
	logr.FromContextOrDiscard(ctx).Info("differences not reported", "why", in.Message, "retryIn", wait)
	return ctrl.Result{RequeueAfter: wait}, nil
}

// diffedPlacements turns a dry run's differences into status entries: one per resource of the
// snapshot that the cluster lacks or has otherwise, keeping when each was first seen.
func diffedPlacements(diffs []manifests.Diff, objs []manifests.Object, previous []placementv1beta1.DiffedResourcePlacement, now metav1.Time) []placementv1beta1.DiffedResourcePlacement {
	inSet := map[manifests.ObjectRef]bool{}
	for _, o := range objs {
		inSet[manifests.RefOf(o.Manifest)] = true
	}
	envelopes := envelopesOf(objs)
	var out []placementv1beta1.DiffedResourcePlacement
	for _, d := range diffs {
		if !inSet[d.Object] || (d.Action != manifests.DiffCreate && d.Action != manifests.DiffUpdate) {
			continue // namespaces made for the set, objects left out of it, other owners' objects
		}
		e := placementv1beta1.DiffedResourcePlacement{
			ResourceIdentifier: placementv1beta1.ResourceIdentifier{Group: d.Object.Group, Version: d.Object.Version,
				Kind: d.Object.Kind, Namespace: d.Object.Namespace, Name: d.Object.Name, Envelope: envelopes[d.Object]},
			ObservationTime: now, FirstDiffedObservedTime: now,
		}
		switch {
		case d.Action == manifests.DiffCreate:
			e.ObservedDiffs = []placementv1beta1.PatchDetail{{Path: "/", ValueInHub: wholeObject}}
		case len(d.Fields) == 0:
			e.ObservedDiffs = []placementv1beta1.PatchDetail{{Path: "/", ValueInHub: d.Message}}
		}
		if d.Action == manifests.DiffUpdate {
			gen := d.LiveGeneration
			e.TargetClusterObservedGeneration = &gen
		}
		for _, f := range d.Fields {
			if len(e.ObservedDiffs) == maxFailedPlacements {
				break
			}
			e.ObservedDiffs = append(e.ObservedDiffs, placementv1beta1.PatchDetail{Path: f.Path, ValueInMember: f.Live, ValueInHub: f.Desired})
		}
		for _, p := range previous {
			if sameResource(p.ResourceIdentifier, e.ResourceIdentifier) {
				e.FirstDiffedObservedTime = p.FirstDiffedObservedTime
			}
		}
		out = append(out, e)
		if len(out) == maxFailedPlacements {
			break
		}
	}
	return out
}

// driftedPlacements turns what a full comparison found right after an apply into status
// entries, keeping when each resource was first seen drifted and when it was observed, unless
// its drift changed.
func driftedPlacements(drifts []manifests.Drift, envelopes map[manifests.ObjectRef]*placementv1beta1.EnvelopeIdentifier,
	previous []placementv1beta1.DriftedResourcePlacement) []placementv1beta1.DriftedResourcePlacement {
	now := metav1.Now()
	var out []placementv1beta1.DriftedResourcePlacement
	for _, d := range drifts {
		if d.Missing || len(out) == maxFailedPlacements {
			continue
		}
		e := placementv1beta1.DriftedResourcePlacement{
			ResourceIdentifier: placementv1beta1.ResourceIdentifier{Group: d.Object.Group, Version: d.Object.Version,
				Kind: d.Object.Kind, Namespace: d.Object.Namespace, Name: d.Object.Name, Envelope: envelopes[d.Object]},
			ObservationTime: now, FirstDriftedObservedTime: now, TargetClusterObservedGeneration: d.LiveGeneration,
		}
		for _, f := range d.Fields[:min(len(d.Fields), maxFailedPlacements)] {
			e.ObservedDrifts = append(e.ObservedDrifts, placementv1beta1.PatchDetail{Path: f.Path, ValueInMember: f.Live, ValueInHub: f.Desired})
		}
		for _, p := range previous {
			if !sameResource(p.ResourceIdentifier, e.ResourceIdentifier) {
				continue
			}
			e.FirstDriftedObservedTime = p.FirstDriftedObservedTime
			if equality.Semantic.DeepEqual(p.ObservedDrifts, e.ObservedDrifts) && p.TargetClusterObservedGeneration == e.TargetClusterObservedGeneration {
				e.ObservationTime = p.ObservationTime
			}
		}
		out = append(out, e)
	}
	return out
}
