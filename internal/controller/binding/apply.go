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
	"strings"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/availability"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
	"github.com/stagecoach-dev/stagecoach/internal/render"
)

// probeTimeout bounds the probe that explains a failed apply.
const probeTimeout = 5 * time.Second

// reconcileBound applies the binding's snapshot group unless it was applied recently, then
// checks the availability of what it applied.
func (r *kindReconciler) reconcileBound(ctx context.Context, b placementv1beta1.BindingObj) (ctrl.Result, error) {
	spec, st := b.BindingSpec(), b.BindingStatus()
	var req manifests.Request
	if err := render.WithStrategy(&req, spec.ApplyStrategy); err != nil {
		return r.notApplied(ctx, b, err)
	}
	if !req.DryRun {
		if wait, ok := r.restoredWait(ctx, b); ok {
			return ctrl.Result{RequeueAfter: wait}, nil
		}
	}
	remote, err := r.connect(ctx, spec.TargetCluster)
	if err != nil {
		if req.DryRun {
			return r.notDiffReported(ctx, b, err)
		}
		return r.notApplied(ctx, b, err)
	}
	if req.DryRun {
		return r.reportDiff(ctx, b, remote, req)
	}
	meta.RemoveStatusCondition(&st.Conditions, placementv1beta1.BindingDiffReportedCondition)
	st.DiffedPlacements = nil
	last := r.memo.get(client.ObjectKeyFromObject(b))
	if !last.current(b) {
		if last, err = r.apply(ctx, b, remote, req); err != nil {
			return r.notApplied(ctx, b, err)
		}
	}
	setApplied(st, b.GetGeneration(), spec.ResourceSnapshotName, len(last.objects))
	st.DriftedPlacements = driftedPlacements(last.drifts, last.envelopes, st.DriftedPlacements)
	return r.checkAvailability(ctx, b, remote, last), nil
}

// connect returns the connection to a member cluster that can receive resources, or an
// InputError saying why there is none.
func (r *kindReconciler) connect(ctx context.Context, name string) (*fleet.Remote, error) {
	mc := &clusterv1beta1.MemberCluster{}
	if err := r.client.Get(ctx, client.ObjectKey{Name: name}, mc); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, render.NotApplied("MemberCluster %s does not exist", name)
		}
		return nil, err
	}
	if !mc.DeletionTimestamp.IsZero() {
		return nil, render.NotApplied("MemberCluster %s is being deleted", name)
	}
	// Joined=False is the MemberCluster controller saying the cluster cannot be reached; it
	// flips back when it can, which wakes this binding (see SetupWithManager).
	joined := meta.FindStatusCondition(mc.Status.Conditions, string(clusterv1beta1.ConditionTypeMemberClusterJoined))
	if joined != nil && joined.Status == metav1.ConditionFalse {
		return nil, render.NotApplied("MemberCluster %s has not joined: %s", name, joined.Message)
	}
	remote, err := r.clusters.Get(ctx, memberRef(name))
	if ce, ok := fleet.AsClusterError(err); ok {
		return nil, render.NotApplied("MemberCluster %s: %s", name, ce.Message)
	}
	return remote, err
}

// apply deploys the snapshot group to the member cluster for the binding's placement, with the
// options of req.
func (r *kindReconciler) apply(ctx context.Context, b placementv1beta1.BindingObj, remote *fleet.Remote, req manifests.Request) (*applied, error) {
	spec := b.BindingSpec()
	owner, objs, err := render.BindingObjects(ctx, r.client, r.family, b, remote.Mapper)
	if err != nil {
		return nil, err
	}
	if objs, err = r.override(ctx, b, objs); err != nil {
		return nil, err
	}
	req.Owner, req.Objects = owner, objs
	res, err := manifests.Apply(ctx, remote, req)
	if err != nil {
		return nil, r.applyError(ctx, b, objs, err)
	}
	logr.FromContextOrDiscard(ctx).Info("applied", "objects", len(res.Applied), "pruned", len(res.Pruned))
	a := &applied{
		uid: b.GetUID(), generation: b.GetGeneration(), snapshot: spec.ResourceSnapshotName, due: resyncAt(r.resyncInterval(ctx)),
		objects: res.Applied, ok: map[manifests.ObjectRef]availability.Result{}, envelopes: envelopesOf(objs),
	}
	if req.FullComparison {
		if a.drifts, err = manifests.Drifted(ctx, remote, req); err != nil {
			return nil, r.applyError(ctx, b, objs, err)
		}
	}
	r.memo.succeeded(client.ObjectKeyFromObject(b), a)
	return a, nil
}

// applyError turns a failed apply into an InputError for the Applied condition, naming the
// resources that failed. The deploy engine prunes nothing after a failure, so what the cluster
// ran before stays.
func (r *kindReconciler) applyError(ctx context.Context, b placementv1beta1.BindingObj, objs []manifests.Object, err error) error {
	spec := b.BindingSpec()
	if !manifests.IsPermanent(err) {
		if msg, ok := r.unreachable(ctx, spec.TargetCluster); ok {
			return render.NotApplied("MemberCluster %s: %s", spec.TargetCluster, msg)
		}
	}
	in := render.NotApplied("applying %s to MemberCluster %s: %v",
		r.family.Describe(r.family.ResourceSnapshotKind(), b.GetNamespace(), spec.ResourceSnapshotName), spec.TargetCluster, err)
	in.Failed = attribute(err, objs, b.GetGeneration())
	return in
}

// attribute lists the resources err is about, each with the part of err that concerns it. The
// deploy engine names an object and its source in each of its errors, and every object here has
// its own source ("ClusterResourceSnapshot p-1-snapshot item 3").
func attribute(err error, objs []manifests.Object, gen int64) []placementv1beta1.FailedResourcePlacement {
	var out []placementv1beta1.FailedResourcePlacement
	var conflict *manifests.ConflictError
	if errors.As(err, &conflict) {
		envelopes := envelopesOf(objs)
		for _, c := range conflict.Conflicts {
			f := failure(c.Object, gen, placementv1beta1.BindingAppliedCondition, placementv1beta1.ManifestApplyFailedReason, c.Message)
			f.Envelope = envelopes[c.Object]
			out = append(out, f)
		}
		return out
	}
	for _, leaf := range leaves(err) {
		msg := leaf.Error()
		for _, o := range objs {
			if strings.Contains(msg, "(from "+o.Source+")") {
				f := failure(manifests.RefOf(o.Manifest), gen, placementv1beta1.BindingAppliedCondition,
					placementv1beta1.ManifestApplyFailedReason, msg)
				f.Envelope = render.EnvelopeOf(o)
				out = append(out, f)
			}
		}
	}
	return out
}

// envelopesOf maps the objects that came out of envelopes to their envelope, for the envelope
// field of failed placements.
func envelopesOf(objs []manifests.Object) map[manifests.ObjectRef]*placementv1beta1.EnvelopeIdentifier {
	out := map[manifests.ObjectRef]*placementv1beta1.EnvelopeIdentifier{}
	for _, o := range objs {
		if e := render.EnvelopeOf(o); e != nil {
			out[manifests.RefOf(o.Manifest)] = e
		}
	}
	return out
}

// leaves flattens errors joined with errors.Join.
func leaves(err error) []error {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range joined.Unwrap() {
			out = append(out, leaves(e)...)
		}
		return out
	}
	return []error{err}
}

// notApplied records why the snapshot is not applied and says when to try again. Errors other
// than InputErrors are trouble reading the management cluster: they are returned as they are.
func (r *kindReconciler) notApplied(ctx context.Context, b placementv1beta1.BindingObj, err error) (ctrl.Result, error) {
	var in *render.InputError
	if !errors.As(err, &in) {
		return ctrl.Result{}, err
	}
	spec, st := b.BindingSpec(), b.BindingStatus()
	n := r.memo.failed(client.ObjectKeyFromObject(b))
	for i := range in.Failed {
		// Rendering does not know the binding's generation.
		in.Failed[i].Condition.ObservedGeneration = b.GetGeneration()
	}
	// Waiting for a snapshot group to be complete is no failure worth an event.
	news := setNotApplied(st, b.GetGeneration(), spec.ResourceSnapshotName, in.Reason, in.Message, in.Failed)
	if news && in.Reason != placementv1beta1.WorkApplyInProcessReason {
		r.recorder.Eventf(b, nil, corev1.EventTypeWarning, reasonApplyFailed, "Apply", "%s", truncate(in.Message))
	}
	wait := r.backoff(n)
	logr.FromContextOrDiscard(ctx).Info("not applied", "why", in.Message, "attempts", n, "retryIn", wait)
	return ctrl.Result{RequeueAfter: wait}, nil
}
