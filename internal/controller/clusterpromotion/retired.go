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

package clusterpromotion

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/targets"
)

// retiredAnnotation marks the ClusterProfile of a stage the promotion no longer has (it was
// renamed or removed). Removing a stage never uninstalls anything: the profile keeps deploying
// what its clusters have, to those clusters only, until a stage the rollout has reached covers
// them; it then leaves the content in place for that stage to take over.
const retiredAnnotation = "stagecoach.dev/retired-stage"

// retireRemovedStages retires the profiles of stages the promotion no longer has: each keeps
// the clusters it matched, by name, and leaves its content in place when it lets one go. The
// pre-health-check profiles of those stages are deleted: they deploy nothing to keep.
func (r *Reconciler) retireRemovedStages(ctx context.Context, p *configv1beta1.ClusterPromotion) error {
	profiles, err := r.ownedProfiles(ctx, p)
	if err != nil {
		return err
	}
	for i := range profiles {
		pr := &profiles[i]
		if p.Spec.Stage(pr.Annotations[configv1beta1.StageNameAnnotation]) != nil || pr.Annotations[retiredAnnotation] != "" {
			continue
		}
		if pr.Labels[configv1beta1.PromotionVerificationLabel] == "true" {
			if err := client.IgnoreNotFound(r.client.Delete(ctx, pr)); err != nil {
				return err
			}
			continue
		}
		// Every cluster it matches, not the few its status lists.
		matching, _, err := targets.MatchingClusters(ctx, r.client, r.informers, pr)
		if err != nil {
			return err
		}
		base := pr.DeepCopy()
		pr.Annotations[retiredAnnotation] = pr.Annotations[configv1beta1.StageNameAnnotation]
		pr.Spec.ClusterSelector = libv1beta1.Selector{}
		pr.Spec.ClusterRefs = matching
		pr.Spec.StopMatchingBehavior = configv1beta1.LeavePolicies
		if err := r.client.Patch(ctx, pr, client.MergeFrom(base)); err != nil {
			return err
		}
	}
	return nil
}

// handOverRetired narrows each retired profile to the clusters that no stage reached by the
// current version covers; a retired profile left with none is deleted, and leaves its content
// to the stages that cover its clusters now.
func (r *Reconciler) handOverRetired(ctx context.Context, p *configv1beta1.ClusterPromotion, profiles []configv1beta1.ClusterProfile) error {
	// Which clusters the stages cover means matching every cluster of the fleet against each
	// stage: done only when there is a retired profile to narrow.
	if !slices.ContainsFunc(profiles, func(pr configv1beta1.ClusterProfile) bool {
		return pr.Annotations[retiredAnnotation] != "" && pr.DeletionTimestamp.IsZero()
	}) {
		return nil
	}
	byName := map[string]*configv1beta1.ClusterProfile{}
	for i := range profiles {
		byName[profiles[i].Name] = &profiles[i]
	}
	covered := map[string]bool{}
	for _, st := range p.Status.Stages {
		stage := byName[p.StageProfileName(st.Name)]
		if stage == nil || stage.Status.ObservedGeneration != stage.Generation {
			continue // which clusters it covers is not known yet
		}
		matching, _, err := targets.MatchingClusters(ctx, r.client, r.informers, stage)
		if err != nil {
			return err
		}
		for _, ref := range matching {
			covered[ref.Namespace+"/"+ref.Name] = true
		}
	}
	for i := range profiles {
		pr := &profiles[i]
		if pr.Annotations[retiredAnnotation] == "" || !pr.DeletionTimestamp.IsZero() {
			continue
		}
		left := slices.DeleteFunc(slices.Clone(pr.Spec.ClusterRefs), func(ref corev1.ObjectReference) bool {
			return covered[ref.Namespace+"/"+ref.Name]
		})
		if len(left) > 0 && len(left) == len(pr.Spec.ClusterRefs) {
			continue // nothing to let go
		}
		if err := r.leaveContent(ctx, pr, covered); err != nil {
			return err
		}
		switch {
		case len(left) == 0:
			if err := client.IgnoreNotFound(r.client.Delete(ctx, pr)); err != nil {
				return err
			}
		default:
			base := pr.DeepCopy()
			pr.Spec.ClusterRefs = left
			if err := r.client.Patch(ctx, pr, client.MergeFrom(base)); err != nil {
				return err
			}
		}
	}
	return nil
}

// leaveContent makes the summaries of a retired profile on the given clusters leave their
// content in place when they go. The profile says so too, but a summary only gets the profile's
// spec in its own time (and never with syncMode OneTime): it is told directly, before it goes.
func (r *Reconciler) leaveContent(ctx context.Context, pr *configv1beta1.ClusterProfile, clusters map[string]bool) error {
	var summaries configv1beta1.ClusterSummaryList
	if err := r.client.List(ctx, &summaries, client.MatchingLabels{configv1beta1.ClusterProfileNameLabel: pr.Name}); err != nil {
		return err
	}
	for i := range summaries.Items {
		cs := &summaries.Items[i]
		if !clusters[cs.Spec.ClusterNamespace+"/"+cs.Spec.ClusterName] || cs.Spec.ClusterProfileSpec.StopMatchingBehavior == configv1beta1.LeavePolicies {
			continue
		}
		base := cs.DeepCopy()
		cs.Spec.ClusterProfileSpec.StopMatchingBehavior = configv1beta1.LeavePolicies
		if err := r.client.Patch(ctx, cs, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
			return err
		}
	}
	return nil
}
