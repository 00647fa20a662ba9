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
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	ctrl "sigs.k8s.io/controller-runtime"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/availability"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

// checkAvailability evaluates every applied resource not yet found available and sets the
// Available condition; it says when to look again.
func (r *kindReconciler) checkAvailability(ctx context.Context, b placementv1beta1.BindingObj, remote *fleet.Remote, a *applied) ctrl.Result {
	st := b.BindingStatus()
	gen := b.GetGeneration()
	var failed []placementv1beta1.FailedResourcePlacement
	var untracked, waiting []string
	for _, ref := range a.objects {
		res, ok := a.ok[ref]
		if !ok {
			res = r.availabilityOf(ctx, remote, ref, a)
			if res.OK() {
				a.ok[ref] = res
			}
		}
		switch res.State {
		case availability.NotTrackable:
			untracked = append(untracked, ref.String())
		case availability.NotYetAvailable:
			f := failure(ref, gen, placementv1beta1.BindingAvailableCondition, placementv1beta1.ManifestNotAvailableYetReason, res.Message)
			f.Envelope = a.envelopes[ref]
			failed = append(failed, f)
			waiting = append(waiting, ref.String()+": "+res.Message)
		}
	}
	setFailedPlacements(st, failed)
	resync := max(time.Until(a.due), time.Millisecond)
	if len(failed) > 0 {
		setCondition(st, gen, placementv1beta1.BindingAvailableCondition, metav1.ConditionFalse, placementv1beta1.WorkNotAvailableReason,
			fmt.Sprintf("%d of %d not available yet: %s", len(failed), len(a.objects), strings.Join(waiting, "; ")))
		if a.stale {
			return ctrl.Result{RequeueAfter: 100 * time.Millisecond}
		}
		return ctrl.Result{RequeueAfter: min(r.availability, resync)}
	}
	reason, msg := placementv1beta1.AllWorkAvailableReason, fmt.Sprintf("all %s available", plural(len(a.objects), "resource"))
	if len(untracked) > 0 {
		// Kubefleet counts what it cannot track as available, and says so in the reason.
		reason = placementv1beta1.WorkNotAvailabilityTrackableReason
		msg = fmt.Sprintf("%d of %d available; the availability of the others cannot be tracked: %s",
			len(a.objects)-len(untracked), len(a.objects), strings.Join(untracked, ", "))
	}
	prev := setCondition(st, gen, placementv1beta1.BindingAvailableCondition, metav1.ConditionTrue, reason, msg)
	if prev.Status != metav1.ConditionTrue || prev.ObservedGeneration != gen {
		r.recorder.Eventf(b, nil, corev1.EventTypeNormal, reasonAvailable, "CheckAvailability", "%s on MemberCluster %s", msg, remote.Ref.Name)
	}
	return ctrl.Result{RequeueAfter: resync}
}

// availabilityOf reads one applied object, if its kind needs it, and decides its availability.
// An object gone from the cluster, or one that cannot be read, makes the next reconcile apply
// again, which recreates it or says what is wrong with the cluster.
func (r *kindReconciler) availabilityOf(ctx context.Context, remote *fleet.Remote, ref manifests.ObjectRef, a *applied) availability.Result {
	gvk := ref.GroupVersionKind()
	if res, decided := availability.ForKind(gvk.GroupKind()); decided {
		return res
	}
	notYet := func(msg string) availability.Result {
		a.stale = true
		return availability.Result{State: availability.NotYetAvailable, Message: msg}
	}
	m, err := remote.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return notYet("looking up its kind: " + err.Error())
	}
	var res dynamic.ResourceInterface = remote.Dynamic.Resource(m.Resource)
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		res = remote.Dynamic.Resource(m.Resource).Namespace(ref.Namespace)
	}
	obj, err := res.Get(ctx, ref.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return notYet("it is not on the cluster any more; applying again")
	case err != nil:
		return notYet("reading it: " + err.Error())
	}
	return availability.Of(obj)
}
