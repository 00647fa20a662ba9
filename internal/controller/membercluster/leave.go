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

package membercluster

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

// reasonLeaving is the Event reason while a deleted MemberCluster waits for its bindings.
const reasonLeaving = "Leaving"

// leavePoll is how often a MemberCluster being deleted checks whether its bindings are gone.
const leavePoll = 5 * time.Second

// leave lets a deleted MemberCluster go. With deleteOptions.validationMode Strict (the default)
// it waits until no binding targets the cluster: a cluster being deleted is no longer picked, so
// its placements unschedule it and withdraw what they placed there, which needs the cluster's
// connection. With Skip it goes at once and what was placed stays on the cluster.
func (r *Reconciler) leave(ctx context.Context, cluster *clusterv1beta1.MemberCluster) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(cluster, clusterv1beta1.MemberClusterFinalizer) {
		return ctrl.Result{}, nil
	}
	if o := cluster.Spec.DeleteOptions; o == nil || o.ValidationMode != clusterv1beta1.DeleteValidationModeSkip {
		placements, err := r.placementsOn(ctx, cluster.Name)
		if err != nil {
			return ctrl.Result{}, err
		}
		if len(placements) > 0 {
			msg := fmt.Sprintf("Deletion waits until no placement targets the cluster (deleteOptions.validationMode Strict); "+
				"placements with bindings here, which withdraw what they placed first: %s. Set validationMode Skip to let the cluster go at once.",
				strings.Join(placements, ", "))
			if r.leaving(cluster.Name, msg) {
				r.recorder.Eventf(cluster, nil, corev1.EventTypeNormal, reasonLeaving, "Delete", "%s", msg)
			}
			return ctrl.Result{RequeueAfter: leavePoll}, nil
		}
	}
	r.leaving(cluster.Name, "")
	r.fleet.Forget(fleet.ClusterRef{Kind: fleet.KindMemberCluster, Name: cluster.Name})
	return ctrl.Result{}, patch.RemoveFinalizer(ctx, r.client, cluster, clusterv1beta1.MemberClusterFinalizer)
}

// placementsOn names the placements with a binding on the cluster, sorted.
func (r *Reconciler) placementsOn(ctx context.Context, cluster string) ([]string, error) {
	var out []string
	for _, f := range placementv1beta1.Families() {
		list := f.NewBindingList()
		if err := r.client.List(ctx, list); err != nil {
			return nil, err
		}
		for _, b := range list.BindingObjs() {
			if b.BindingSpec().TargetCluster != cluster {
				continue
			}
			name := f.Describe(f.PlacementKind(), b.GetNamespace(), b.GetLabels()[placementv1beta1.PlacementTrackingLabel])
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// leaving remembers the last message about a cluster leaving and reports whether msg is new, so
// that the Event is not repeated every poll.
func (r *Reconciler) leaving(name, msg string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.leavingMsgs[name] == msg {
		return false
	}
	if msg == "" {
		delete(r.leavingMsgs, name)
	} else {
		r.leavingMsgs[name] = msg
	}
	return true
}
