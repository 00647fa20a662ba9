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
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// A ClusterResourcePlacement whose statusReportingScope is NamespaceAccessible keeps a copy of
// its status, a ClusterResourcePlacementStatus of the same name, in the one namespace it
// places, as Kubefleet does. Its StatusSynced condition says whether the copy is current.

// Reasons of the StatusSynced condition, as Kubefleet's.
const (
	reasonStatusSyncSucceeded = "StatusSyncSucceeded"
	reasonStatusSyncFailed    = "StatusSyncFailed"
)

// namespaceAccessible returns the placement as a ClusterResourcePlacement that asks for a
// status copy, or nil.
func namespaceAccessible(p placementv1beta1.PlacementObj) *placementv1beta1.ClusterResourcePlacement {
	crp, ok := p.(*placementv1beta1.ClusterResourcePlacement)
	if !ok || crp.Spec.StatusReportingScope != placementv1beta1.NamespaceAccessible {
		return nil
	}
	return crp
}

// statusNamespace is the namespace the placement's Namespace selector names; the API server
// admits a NamespaceAccessible placement only with exactly one such selector.
func statusNamespace(crp *placementv1beta1.ClusterResourcePlacement) string {
	for _, t := range crp.Spec.ResourceSelectors {
		if isNamespaceKind(t.Group, t.Kind) {
			return t.Name
		}
	}
	return ""
}

// statusNamespaceProblem says why a NamespaceAccessible placement's Namespace selector cannot
// take a status copy: it selects by label, or it names another namespace than the one the
// placement selected before (the copy would move; Kubefleet refuses this too).
func statusNamespaceProblem(crp *placementv1beta1.ClusterResourcePlacement) string {
	ns := statusNamespace(crp)
	if ns == "" {
		return "statusReportingScope NamespaceAccessible needs the Namespace resourceSelector to name its namespace (not a labelSelector)"
	}
	for _, r := range crp.Status.SelectedResources {
		if isNamespaceKind(r.Group, r.Kind) && r.Name != ns {
			return fmt.Sprintf("the Namespace resourceSelector names namespace %q, but the placement selected %q before: with statusReportingScope NamespaceAccessible the namespace cannot change; create a new placement", ns, r.Name)
		}
	}
	return ""
}

// syncNamespaceStatus writes the status copy if it differs from the placement's status, and
// sets StatusSynced. A copy deleted by hand is written again (the deletion enqueues the
// placement). The copy is owned by the placement, so it goes with it.
func (r *kindReconciler) syncNamespaceStatus(ctx context.Context, crp *placementv1beta1.ClusterResourcePlacement) error {
	ns := statusNamespace(crp)
	if ns == "" {
		return nil // refused by namespacePhase, which said why
	}
	ct := string(placementv1beta1.ClusterResourcePlacementStatusSyncedConditionType)
	want := crp.Status.DeepCopy()
	meta.RemoveStatusCondition(&want.Conditions, ct)
	err := r.writeStatusCopy(ctx, crp, ns, *want)
	if err != nil {
		setCondition(crp, ct, metav1.ConditionFalse, reasonStatusSyncFailed,
			fmt.Sprintf("Failed to write the ClusterResourcePlacementStatus in namespace %q: %v", ns, err))
		return err
	}
	setCondition(crp, ct, metav1.ConditionTrue, reasonStatusSyncSucceeded,
		fmt.Sprintf("The ClusterResourcePlacementStatus in namespace %q is up to date", ns))
	return nil
}

func (r *kindReconciler) writeStatusCopy(ctx context.Context, crp *placementv1beta1.ClusterResourcePlacement, ns string, status placementv1beta1.PlacementStatus) error {
	copyObj := &placementv1beta1.ClusterResourcePlacementStatus{ObjectMeta: metav1.ObjectMeta{Name: crp.Name, Namespace: ns}}
	err := r.client.Get(ctx, client.ObjectKeyFromObject(copyObj), copyObj)
	switch {
	case apierrors.IsNotFound(err):
		copyObj.PlacementStatus, copyObj.LastUpdatedTime = status, metav1.NewTime(r.now())
		if err := controllerutil.SetControllerReference(crp, copyObj, r.client.Scheme()); err != nil {
			return err
		}
		return r.client.Create(ctx, copyObj)
	case err != nil:
		return err
	case !metav1.IsControlledBy(copyObj, crp):
		return fmt.Errorf("a ClusterResourcePlacementStatus of that name exists and belongs to something else")
	case equality.Semantic.DeepEqual(copyObj.PlacementStatus, status):
		return nil
	}
	copyObj.PlacementStatus, copyObj.LastUpdatedTime = status, metav1.NewTime(r.now())
	return r.client.Update(ctx, copyObj)
}

// namespacePhase halts a NamespaceAccessible placement whose Namespace selector cannot take the
// status copy, before anything is selected: what it placed before stays.
func (r *kindReconciler) namespacePhase(_ context.Context, ps *pass) error {
	crp := namespaceAccessible(ps.p)
	if crp == nil {
		return nil
	}
	msg := statusNamespaceProblem(crp)
	if msg == "" {
		return nil
	}
	ct := r.family.PlacementConditions().Scheduled
	if !hasCondition(ps.p, ct, metav1.ConditionFalse, reasonInvalidSelectors, msg) {
		r.recorder.Eventf(ps.p, nil, corev1.EventTypeWarning, reasonInvalidSelectors, "Validate", "%s", msg)
	}
	setCondition(ps.p, ct, metav1.ConditionFalse, reasonInvalidSelectors, msg)
	return errHalt
}
