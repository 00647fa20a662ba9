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
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
)

// Condition of a scheduling policy snapshot, and its reasons (Kubefleet's).
const (
	policyScheduledCondition = "Scheduled"
	policyFulfilledReason    = "SchedulingPolicyFulfilled"
	policyUnfulfilledReason  = "SchedulingPolicyUnfulfilled"
	// maxUnpickedDecisions caps the clusters a policy snapshot lists as not picked.
	maxUnpickedDecisions = 20
)

// policyDecisions lists the decisions a policy snapshot's status holds: the picked clusters, at
// most maxPicked of them (cut reports it), then at most maxUnpickedDecisions of the others.
func policyDecisions(picked, unpicked []placementv1beta1.ClusterDecision, maxPicked int) (decisions []placementv1beta1.ClusterDecision, cut bool) {
	decisions = slices.Clone(picked[:min(len(picked), maxPicked)])
	decisions = append(decisions, unpicked[:min(len(unpicked), maxUnpickedDecisions)]...)
	return decisions, len(picked) > maxPicked
}

// policyHash is the hex SHA-256 of the JSON of policy without numberOfClusters: scaling a PickN
// placement up or down is the same policy, with another count.
func policyHash(policy *placementv1beta1.PlacementPolicy) (string, error) {
	p := policy.DeepCopy()
	if p != nil {
		p.NumberOfClusters = nil
	}
	data, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// policyAnnotations are the annotations a policy snapshot carries for the placement as it is.
func policyAnnotations(ps *pass) map[string]string {
	a := map[string]string{placementv1beta1.CRPGenerationAnnotation: strconv.FormatInt(ps.p.GetGeneration(), 10)}
	if pol := ps.spec.Policy; pol.PlacementType == placementv1beta1.PickNPlacementType {
		n := int32(0)
		if pol.NumberOfClusters != nil {
			n = *pol.NumberOfClusters
		}
		a[placementv1beta1.NumberOfClustersAnnotation] = strconv.Itoa(int(n))
	}
	return a
}

func policyIndex(o client.Object) int {
	idx, err := strconv.Atoi(o.GetLabels()[placementv1beta1.PolicyIndexLabel])
	if err != nil {
		return -1
	}
	return idx
}

// policyPhase records the placement's scheduling policy as its latest policy snapshot,
// "<placement>-<index>". A new index is cut only when the policy hash changes; a new
// numberOfClusters only rewrites the annotation.
func (r *kindReconciler) policyPhase(ctx context.Context, ps *pass) error {
	hash, err := policyHash(ps.spec.Policy)
	if err != nil {
		return err
	}
	snaps, err := listPolicySnapshots(ctx, r.client, r.family, ps.p)
	if err != nil {
		return err
	}
	slices.SortFunc(snaps, func(a, b placementv1beta1.PolicySnapshotObj) int { return policyIndex(a) - policyIndex(b) })
	var latest placementv1beta1.PolicySnapshotObj
	for i := range snaps {
		if isLatest(snaps[i]) || (latest == nil && i == len(snaps)-1) {
			latest = snaps[i]
		}
	}
	if latest != nil && latest.PolicySnapshotSpec().PolicyHash == hash {
		for _, s := range snaps {
			if s.GetName() != latest.GetName() {
				if err := r.markLatest(ctx, s, false); err != nil {
					return err
				}
			}
		}
		ps.policy = latest
		return r.refreshPolicySnapshot(ctx, ps)
	}

	next := 0
	if len(snaps) > 0 {
		next = policyIndex(snaps[len(snaps)-1]) + 1
	}
	for _, s := range snaps {
		if err := r.markLatest(ctx, s, false); err != nil {
			return err
		}
	}
	if keep := int(*ps.spec.RevisionHistoryLimit) - 1; len(snaps) > keep {
		for _, s := range snaps[:len(snaps)-keep] {
			if err := r.client.Delete(ctx, s); client.IgnoreNotFound(err) != nil {
				return err
			}
		}
	}
	s := r.family.NewPolicySnapshot()
	s.SetName(fmt.Sprintf(placementv1beta1.PolicySnapshotNameFmt, ps.p.GetName(), next))
	s.SetNamespace(ps.p.GetNamespace())
	s.SetLabels(map[string]string{
		placementv1beta1.IsLatestSnapshotLabel:  strconv.FormatBool(true),
		placementv1beta1.PlacementTrackingLabel: ps.p.GetName(),
		placementv1beta1.PolicyIndexLabel:       strconv.Itoa(next),
	})
	s.SetAnnotations(policyAnnotations(ps))
	s.PolicySnapshotSpec().Policy = ps.spec.Policy.DeepCopy()
	s.PolicySnapshotSpec().PolicyHash = hash
	if err := r.createOwned(ctx, ps.p, s); err != nil {
		return err
	}
	ps.policy = s
	r.recorder.Eventf(ps.p, s, corev1.EventTypeNormal, reasonPolicySnapshotCreated, "Snapshot",
		"Created scheduling policy snapshot %s (%s)", s.GetName(), ps.spec.Policy.PlacementType)
	ctrl.LoggerFrom(ctx).Info("created a scheduling policy snapshot", "snapshot", s.GetName(), "index", next)
	return nil
}

// refreshPolicySnapshot brings the latest policy snapshot's label and annotations up to date.
func (r *kindReconciler) refreshPolicySnapshot(ctx context.Context, ps *pass) error {
	s := ps.policy
	want := policyAnnotations(ps)
	annotations := s.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	if isLatest(s) && annotationsMatch(annotations, want) {
		return nil
	}
	patch := client.MergeFrom(s.DeepCopyObject().(client.Object))
	if _, pickN := want[placementv1beta1.NumberOfClustersAnnotation]; !pickN {
		delete(annotations, placementv1beta1.NumberOfClustersAnnotation)
	}
	maps.Copy(annotations, want)
	s.SetAnnotations(annotations)
	labels := s.GetLabels()
	labels[placementv1beta1.IsLatestSnapshotLabel] = strconv.FormatBool(true)
	s.SetLabels(labels)
	return r.client.Patch(ctx, s, patch)
}

func annotationsMatch(have, want map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	_, hasN := have[placementv1beta1.NumberOfClustersAnnotation]
	_, wantN := want[placementv1beta1.NumberOfClustersAnnotation]
	return hasN == wantN
}

// writePolicyStatus records the scheduling decisions in the latest policy snapshot's status. A
// placement on thousands of clusters lists only some of them (see policyDecisions): the snapshot
// must stay well below the API server's object size limit, and each binding carries its own.
func (r *kindReconciler) writePolicyStatus(ctx context.Context, ps *pass) error {
	s := ps.policy
	return patch.ChangeStatus(ctx, r.client, s, func() {
		s.PolicySnapshotStatus().ObservedCRPGeneration = ps.p.GetGeneration()
		decisions, cut := policyDecisions(ps.schedule.Picked, ps.schedule.Unpicked, r.maxListedClusters())
		s.PolicySnapshotStatus().ClusterDecisions = decisions
		msg := ps.schedule.Message
		if cut {
			msg += fmt.Sprintf("; clusterDecisions lists %d of the %d picked clusters; %s", r.maxListedClusters(), len(ps.schedule.Picked), r.bindingsHint(ps.p))
		}
		status, reason := metav1.ConditionTrue, policyFulfilledReason
		if !ps.schedule.Satisfied {
			status, reason = metav1.ConditionFalse, policyUnfulfilledReason
		}
		patch.SetCondition(&s.PolicySnapshotStatus().Conditions, s.GetGeneration(), policyScheduledCondition, status, reason, msg)
	})
}
