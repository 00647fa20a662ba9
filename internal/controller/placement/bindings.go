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

package placement

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/inplace"
	"github.com/stagecoach-dev/stagecoach/internal/scheduling"
)

// maxBindingName keeps binding names valid as label values, which things derived from a binding
// may carry.
const maxBindingName = 63

// bindingName is "<placement>-<cluster>", or, when that is too long or taken, a prefix of it
// followed by a hash of both names, which keeps it unique.
func bindingName(placement, cluster string, alternative bool) string {
	name := placement + "-" + cluster
	if len(name) <= maxBindingName && !alternative {
		return name
	}
	sum := sha256.Sum256([]byte(placement + "/" + cluster))
	suffix := "-" + hex.EncodeToString(sum[:])[:8]
	prefix := strings.TrimRight(name[:min(len(name), maxBindingName-len(suffix))], "-.")
	return prefix + suffix
}

// schedulePhase picks the member clusters and makes the bindings say so: one binding per picked
// cluster, Unscheduled bindings for the others. It never touches which snapshot a binding names.
func (r *kindReconciler) schedulePhase(ctx context.Context, ps *pass) error {
	// Every member cluster of a fleet of thousands, on every pass: read in place, not copied
	// (scheduling only reads them).
	clusters, err := inplace.List[clusterv1beta1.MemberCluster](ctx, r.informers, r.client, &clusterv1beta1.MemberClusterList{}, nil)
	if err != nil {
		return err
	}
	members := make([]scheduling.Member, 0, len(clusters))
	for _, c := range clusters {
		members = append(members, scheduling.MemberOf(c))
	}
	bindings, err := listBindings(ctx, r.client, r.family, ps.p)
	if err != nil {
		return err
	}
	current := map[string]bool{}
	for _, b := range bindings {
		if b.BindingSpec().State != placementv1beta1.BindingStateUnscheduled && b.GetDeletionTimestamp().IsZero() {
			current[b.BindingSpec().TargetCluster] = true
		}
	}
	ct := r.family.PlacementConditions().Scheduled
	res, err := scheduling.Pick(ps.spec.Policy, members, current)
	if err != nil {
		msg := "The scheduling policy cannot be evaluated: " + err.Error()
		if !hasCondition(ps.p, ct, metav1.ConditionFalse, placementv1beta1.ResourceScheduleFailedReason, msg) {
			r.recorder.Eventf(ps.p, nil, corev1.EventTypeWarning, reasonSchedulingFailed, "Schedule", "%s", msg)
		}
		setCondition(ps.p, ct, metav1.ConditionFalse, placementv1beta1.ResourceScheduleFailedReason, msg)
		return errHalt
	}
	ps.schedule = res
	if err := r.writeBindings(ctx, ps, bindings); err != nil {
		return err
	}
	if err := r.writePolicyStatus(ctx, ps); err != nil {
		return err
	}
	if res.Satisfied {
		setCondition(ps.p, ct, metav1.ConditionTrue, placementv1beta1.ResourceScheduleSucceededReason, res.Message)
	} else {
		setCondition(ps.p, ct, metav1.ConditionFalse, placementv1beta1.ResourceScheduleFailedReason, res.Message)
	}
	return nil
}

func hasCondition(p placementv1beta1.PlacementObj, condType string, status metav1.ConditionStatus, reason, message string) bool {
	for _, c := range p.PlacementStatus().Conditions {
		if c.Type == condType {
			return c.Status == status && c.Reason == reason && c.Message == message
		}
	}
	return false
}

// writeBindings creates a binding for every newly picked cluster, brings back an Unscheduled
// binding whose cluster is picked again (in the state it had), and marks the bindings of
// clusters no longer picked Unscheduled, remembering their state.
func (r *kindReconciler) writeBindings(ctx context.Context, ps *pass, existing []placementv1beta1.BindingObj) error {
	// out starts with every binding; the updates below change them in place.
	out := slices.Clone(existing)
	byCluster := map[string]placementv1beta1.BindingObj{}
	for _, b := range existing {
		// Of two bindings for one cluster (a new one made while the old one is withdrawn), the
		// live one counts.
		if prev, ok := byCluster[b.BindingSpec().TargetCluster]; !ok || !prev.GetDeletionTimestamp().IsZero() {
			byCluster[b.BindingSpec().TargetCluster] = b
		}
	}
	var added, removed []string
	var errs []error
	picked := map[string]bool{}
	for _, d := range ps.schedule.Picked {
		picked[d.ClusterName] = true
		b, ok := byCluster[d.ClusterName]
		switch {
		case !ok:
			nb, err := r.createBinding(ctx, ps, d)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			out = append(out, nb)
			added = append(added, d.ClusterName)
		case !b.GetDeletionTimestamp().IsZero():
			// Its resources are being withdrawn; a new binding follows once it is gone, which
			// the watch on bindings reports.
		default:
			if b.BindingSpec().State == placementv1beta1.BindingStateUnscheduled {
				added = append(added, d.ClusterName)
			}
			if err := r.updateBinding(ctx, b, func(b placementv1beta1.BindingObj) { reschedule(b, d, ps.policy.GetName()) }); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for cluster, b := range byCluster {
		if picked[cluster] {
			continue
		}
		if b.BindingSpec().State == placementv1beta1.BindingStateUnscheduled || !b.GetDeletionTimestamp().IsZero() {
			continue
		}
		if err := r.updateBinding(ctx, b, unschedule); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, cluster)
	}
	slices.SortFunc(out, func(a, b placementv1beta1.BindingObj) int {
		return strings.Compare(a.BindingSpec().TargetCluster, b.BindingSpec().TargetCluster)
	})
	ps.bindings = out
	r.reportScheduling(ctx, ps, added, removed)
	return errors.Join(errs...)
}

func (r *kindReconciler) reportScheduling(ctx context.Context, ps *pass, added, removed []string) {
	slices.Sort(added)
	slices.Sort(removed)
	if len(added) > 0 {
		r.recorder.Eventf(ps.p, nil, corev1.EventTypeNormal, reasonClustersScheduled, "Schedule",
			"Picked clusters %s", listClusters(added))
		ctrl.LoggerFrom(ctx).Info("picked clusters", "clusters", added)
	}
	if len(removed) > 0 {
		r.recorder.Eventf(ps.p, nil, corev1.EventTypeNormal, reasonClustersUnscheduled, "Schedule",
			"Clusters %s are no longer picked", listClusters(removed))
		ctrl.LoggerFrom(ctx).Info("clusters no longer picked", "clusters", removed)
	}
}

func (r *kindReconciler) createBinding(ctx context.Context, ps *pass, d placementv1beta1.ClusterDecision) (placementv1beta1.BindingObj, error) {
	for _, alternative := range []bool{false, true} {
		b := r.family.NewBinding()
		b.SetName(bindingName(ps.p.GetName(), d.ClusterName, alternative))
		b.SetNamespace(ps.p.GetNamespace())
		b.SetLabels(map[string]string{placementv1beta1.PlacementTrackingLabel: ps.p.GetName()})
		b.BindingSpec().State = placementv1beta1.BindingStateScheduled
		b.BindingSpec().TargetCluster = d.ClusterName
		b.BindingSpec().ClusterDecision = d
		b.BindingSpec().SchedulingPolicySnapshotName = ps.policy.GetName()
		err := r.createOwned(ctx, ps.p, b)
		if alternative || !errors.Is(err, errNameTaken) {
			return b, err
		}
		// The plain name is taken by someone else's binding ("a-b" for cluster "c" and "a" for
		// cluster "b-c" give the same): use the hashed one.
	}
	panic("unreachable")
}

// updateBinding applies change to a binding and writes it if that changed anything.
func (r *kindReconciler) updateBinding(ctx context.Context, b placementv1beta1.BindingObj, change func(placementv1beta1.BindingObj)) error {
	before := b.DeepCopyObject().(placementv1beta1.BindingObj)
	change(b)
	if equality.Semantic.DeepEqual(before.BindingSpec(), b.BindingSpec()) && equality.Semantic.DeepEqual(before.GetAnnotations(), b.GetAnnotations()) {
		return nil
	}
	if err := r.client.Update(ctx, b); err != nil {
		return fmt.Errorf("updating binding %s: %w", b.GetName(), err)
	}
	return nil
}

// reschedule records the decision on a binding of a picked cluster. An Unscheduled one gets
// back the state it had: a cluster picked again keeps running what it ran.
func reschedule(b placementv1beta1.BindingObj, d placementv1beta1.ClusterDecision, policySnapshot string) {
	b.BindingSpec().ClusterDecision = d
	b.BindingSpec().SchedulingPolicySnapshotName = policySnapshot
	if b.BindingSpec().State != placementv1beta1.BindingStateUnscheduled {
		return
	}
	annotations := b.GetAnnotations()
	prev := placementv1beta1.BindingState(annotations[placementv1beta1.PreviousBindingStateAnnotation])
	delete(annotations, placementv1beta1.PreviousBindingStateAnnotation)
	b.SetAnnotations(annotations)
	b.BindingSpec().State = placementv1beta1.BindingStateScheduled
	if prev == placementv1beta1.BindingStateBound && b.BindingSpec().ResourceSnapshotName != "" {
		b.BindingSpec().State = placementv1beta1.BindingStateBound
	}
}

// unschedule marks a binding Unscheduled and remembers its state.
func unschedule(b placementv1beta1.BindingObj) {
	annotations := b.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[placementv1beta1.PreviousBindingStateAnnotation] = string(b.BindingSpec().State)
	b.SetAnnotations(annotations)
	b.BindingSpec().State = placementv1beta1.BindingStateUnscheduled
	b.BindingSpec().ClusterDecision.Selected = false
	b.BindingSpec().ClusterDecision.Reason = "No longer picked by the placement policy"
}

// pickedBindings are the bindings of picked clusters, by cluster name.
func (ps *pass) pickedBindings() []placementv1beta1.BindingObj {
	var out []placementv1beta1.BindingObj
	for _, b := range ps.bindings {
		if b.BindingSpec().State != placementv1beta1.BindingStateUnscheduled && b.GetDeletionTimestamp().IsZero() {
			out = append(out, b)
		}
	}
	return out
}
