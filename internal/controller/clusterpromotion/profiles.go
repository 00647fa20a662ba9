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
	"encoding/hex"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
	"github.com/stagecoach-dev/stagecoach/internal/controller/specmemo"
	"github.com/stagecoach-dev/stagecoach/internal/freeze"
	"github.com/stagecoach-dev/stagecoach/internal/inplace"
	"github.com/stagecoach-dev/stagecoach/internal/metrics"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
	"github.com/stagecoach-dev/stagecoach/internal/targets"
)

// checksAnnotation, on a stage's ClusterProfile, holds the profile-spec hash of the version whose
// postDelayHealthChecks were added to it: they stay for that version and go with the next.
const checksAnnotation = "stagecoach.dev/post-delay-checks"

func preVerificationName(p *configv1beta1.ClusterPromotion, stage string) string {
	return "preverification-" + p.Name + "-" + stage
}

func postDelayChecks(stage *configv1beta1.Stage) []libv1beta1.ValidateHealth {
	switch t := stage.Trigger; {
	case t == nil:
	case t.Auto != nil:
		return t.Auto.PostDelayHealthChecks
	case t.Manual != nil:
		return t.Manual.PostDelayHealthChecks
	}
	return nil
}

func preHealthRefs(stage *configv1beta1.Stage) []configv1beta1.PolicyRef {
	switch t := stage.Trigger; {
	case t == nil:
	case t.Auto != nil && t.Auto.PreHealthCheckDeployment != nil:
		return t.Auto.PreHealthCheckDeployment.Refs()
	case t.Manual != nil && t.Manual.PreHealthCheckDeployment != nil:
		return t.Manual.PreHealthCheckDeployment.Refs()
	}
	return nil
}

// applyStageProfile creates or updates the stage's ClusterProfile: the promotion's profileSpec
// with the stage's selector, plus, once the trigger asks for them, its postDelayHealthChecks.
func (r *Reconciler) applyStageProfile(ctx context.Context, p *configv1beta1.ClusterPromotion, stage *configv1beta1.Stage, addChecks bool,
	frozen map[freeze.Ref]string) (*configv1beta1.ClusterProfile, error) {
	version := hex.EncodeToString(p.Status.ProfileSpecHash)
	return r.writeStageProfile(ctx, p, stage, func(profile *configv1beta1.ClusterProfile) {
		checks := addChecks || profile.Annotations[checksAnnotation] == version
		profile.Spec = p.Spec.ProfileSpec.ToSpec(stage.ClusterSelector)
		freeze.FreezeSpec(&profile.Spec, frozen)
		delete(profile.Annotations, checksAnnotation)
		delete(profile.Annotations, rolledBackFromAnnotation)
		if checks {
			profile.Annotations[checksAnnotation] = version
			for _, c := range postDelayChecks(stage) {
				if !slices.ContainsFunc(profile.Spec.ValidateHealths, func(v libv1beta1.ValidateHealth) bool { return v.Name == c.Name }) {
					profile.Spec.ValidateHealths = append(profile.Spec.ValidateHealths, c)
				}
			}
		}
	})
}

// writeStageProfile creates or updates the stage's ClusterProfile, labelled and owned as the
// promotion's; setSpec writes its spec (and may change its annotations).
func (r *Reconciler) writeStageProfile(ctx context.Context, p *configv1beta1.ClusterPromotion, stage *configv1beta1.Stage,
	setSpec func(*configv1beta1.ClusterProfile)) (*configv1beta1.ClusterProfile, error) {
	profile := &configv1beta1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Name: p.StageProfileName(stage.Name)}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.client, profile, func() error {
		if profile.Labels == nil {
			profile.Labels = map[string]string{}
		}
		if profile.Annotations == nil {
			profile.Annotations = map[string]string{}
		}
		profile.Labels[configv1beta1.PromotionNameLabel] = p.Name
		// A tenant's promotion has its tenant's stage profiles: they read and deploy as it.
		for _, l := range []string{configv1beta1.ServiceAccountNameLabel, configv1beta1.ServiceAccountNamespaceLabel} {
			if v, ok := p.Labels[l]; ok {
				profile.Labels[l] = v
			} else {
				delete(profile.Labels, l)
			}
		}
		profile.Annotations[configv1beta1.StageNameAnnotation] = stage.Name
		setSpec(profile)
		return controllerutil.SetControllerReference(p, profile, r.client.Scheme())
	})
	if err != nil {
		return nil, fmt.Errorf("applying ClusterProfile %s: %w", profile.Name, err)
	}
	return profile, nil
}

// stageState is where the clusters of a stage profile stand.
type stageState struct {
	// done: every cluster the profile matches is reachable and runs its current spec,
	// provisioned and healthy.
	done bool
	// waitingOn names what the stage waits for when it is not done: upstream's words, or what
	// went wrong when something did (blocked is then set).
	waitingOn string
	// blocked is set when waitingOn is a failure — a deployment being retried, a health check
	// that does not pass, an unreachable cluster — rather than work in progress.
	blocked bool
	// regressed is set when a reachable cluster fails: its deployment or a health check.
	regressed bool
	// empty is set when the stage matches no cluster: it is done, and waitingOn says so.
	empty bool
	// failed is a failure that will not be retried on the current spec (a deployment failed
	// for good, a profile spec that cannot be rolled out), naming where it comes from; empty
	// when there is none.
	failed string
	// clusters counts the matched clusters by where they stand (metrics.ClusterDone, ...).
	clusters map[string]int
	// failing names the first clusters whose deployment or health checks fail, with why.
	failing []string
	// paused lists the paused clusters: the stage neither deploys to them nor waits for them.
	paused []string
	// skipped lists the clusters unreachable before the version reached them: the stage does
	// not wait for them, and they catch up when they answer again.
	skipped []string
	// behind lists the clusters that do not run the profile's current spec yet, provisioned,
	// for another reason than failing on it: still deploying, no summary yet, unreachable.
	behind []string
}

// provisioned tells whether every cluster the profile matches is reachable and runs its current
// spec, provisioned and healthy, and otherwise what the stage waits for.
func (r *Reconciler) provisioned(ctx context.Context, profile *configv1beta1.ClusterProfile) (stageState, error) {
	// The clusters are found as the profile's controller finds them, whatever their number
	// (its status lists a few hundred at most). Until that controller has written a status for
	// the current spec and the same clusters, its summaries may lag behind, and a stage whose
	// clusters the cache does not show yet would pass vacuously.
	matching, unavailable, err := targets.MatchingClusters(ctx, r.client, r.informers, profile)
	if err != nil {
		return stageState{}, err
	}
	if profile.Status.ObservedGeneration != profile.Generation || profile.Status.ObservedMatching() != len(matching) {
		return stageState{waitingOn: fmt.Sprintf("ClusterProfile %s is not reconciled yet.", profile.Name)}, nil
	}
	if c := meta.FindStatusCondition(profile.Status.Conditions, configv1beta1.ProfileStalledCondition); c != nil && c.Status == metav1.ConditionTrue {
		msg := fmt.Sprintf("ClusterProfile %s: %s", profile.Name, c.Message)
		return stageState{waitingOn: msg, blocked: true, failed: msg}, nil
	}
	// A stage can span thousands of clusters: their summaries are read in place, not copied.
	summaries, err := inplace.List[configv1beta1.ClusterSummary](ctx, r.informers, r.client, &configv1beta1.ClusterSummaryList{},
		labels.SelectorFromSet(labels.Set{configv1beta1.ClusterProfileNameLabel: profile.Name}))
	if err != nil {
		return stageState{}, err
	}
	byCluster := map[string]*configv1beta1.ClusterSummary{}
	for _, cs := range summaries {
		byCluster[cs.Spec.ClusterNamespace+"/"+cs.Spec.ClusterName] = cs
	}
	return tally(&r.specs, profile, matching, unavailable, byCluster), nil
}

// tally finds where the matched clusters stand from their summaries; specs remembers which
// summaries carry the profile's spec (nil: none is remembered).
func tally(specs *specmemo.Memo, profile *configv1beta1.ClusterProfile, matching []corev1.ObjectReference, unavailable map[string]string,
	byCluster map[string]*configv1beta1.ClusterSummary) stageState {
	version := specmemo.Version{Profile: profile.UID, Generation: profile.Generation}
	rolledBackFrom := profile.Annotations[rolledBackFromAnnotation]
	st := stageState{done: true, clusters: metrics.NoClusters()}
	if len(matching) == 0 {
		// Done at once, as upstream says; but a selector matching nothing is more often a typo
		// than a wish, so it is said.
		st.waitingOn, st.empty = "No cluster matches the stage's clusterSelector: the stage deploys nothing.", true
	}
	for _, ref := range matching {
		cluster := ref.Namespace + "/" + ref.Name
		cs := byCluster[cluster]
		current := cs != nil && specs.Same(cs, version, func() bool {
			return equality.Semantic.DeepEqual(cs.Spec.ClusterProfileSpec, profile.Spec)
		})
		if why := unavailable[cluster]; why != "" {
			reached := current || (cs != nil && rolledBackFrom != "" && specDigest(&cs.Spec.ClusterProfileSpec) == rolledBackFrom)
			st.unavailable(cluster, why, current && cs.Provisioned(), reached)
			continue
		}
		if cs == nil {
			st.wait(fmt.Sprintf("Cluster %s has no ClusterSummary yet.", cluster), false)
			st.clusters[metrics.ClusterUpdating]++
			st.behind = append(st.behind, cluster)
			continue
		}
		if current && cs.RetryNotTaken(profile.Annotations[configv1beta1.RetryAnnotation]) {
			// Asked to retry, and not reset yet: what it failed with no longer counts.
			st.wait(fmt.Sprintf("ClusterSummary %s is being retried.", cs.Name), false)
			st.clusters[metrics.ClusterUpdating]++
			st.behind = append(st.behind, cluster)
			continue
		}
		st.count(cluster, cs, current)
	}
	return st
}

// unavailable counts a paused or unreachable cluster. A paused one is out of the rollout: the
// stage does not wait for it. An unreachable one the version has not reached yet is skipped as
// well, and catches up when it answers. One the version reached (and, in a rollback, one the
// failed version reached) is waited for: what it runs now is unknown until it answers.
func (st *stageState) unavailable(cluster, why string, done, reached bool) {
	st.clusters[metrics.ClusterUnreachable]++
	if !done {
		st.behind = append(st.behind, cluster)
	}
	switch {
	case why == pausedReason:
		st.paused = append(st.paused, cluster)
	case !reached:
		st.skipped = append(st.skipped, cluster)
	default:
		st.wait(fmt.Sprintf("Cluster %s is %s.", cluster, why), true)
	}
}

// pausedReason is what SveltosCluster.Unavailable says of a paused cluster.
const pausedReason = "paused"

// wait notes that the stage is not done, and why: the first failure says more than the first
// cluster still at work.
func (st *stageState) wait(msg string, blocked bool) {
	if st.done || (blocked && !st.blocked) {
		st.done, st.waitingOn, st.blocked = false, msg, blocked
	}
}

// count counts a cluster that has a summary; current says whether the summary has the
// profile's current spec.
func (st *stageState) count(cluster string, cs *configv1beta1.ClusterSummary, current bool) {
	if current && cs.Provisioned() {
		st.clusters[metrics.ClusterDone]++
		return
	}
	if msg := cs.Failure(); current && msg != "" {
		st.wait(fmt.Sprintf("Cluster %s, %s", cluster, msg), true)
		st.regressed = true
		st.clusters[metrics.ClusterFailed]++
		if len(st.failing) < rollout.FailuresNamed {
			st.failing = append(st.failing, cluster+": "+msg)
		}
	} else {
		st.wait(fmt.Sprintf("ClusterSummary %s is not yet provisioned.", cs.Name), false)
		st.clusters[metrics.ClusterUpdating]++
		st.behind = append(st.behind, cluster)
	}
	if msg := cs.FailedForGood(); current && msg != "" && st.failed == "" {
		st.failed = fmt.Sprintf("ClusterSummary %s: %s", cs.Name, msg)
	}
}

func postDelayState(profile *configv1beta1.ClusterProfile, provisioned bool, version []byte) rollout.CheckState {
	if profile.Annotations[checksAnnotation] != hex.EncodeToString(version) {
		return rollout.ChecksNotStarted
	}
	if provisioned {
		return rollout.ChecksPassing
	}
	return rollout.ChecksFailing
}

// applyPreVerification deploys the stage's preHealthCheckDeployment through its own profile.
func (r *Reconciler) applyPreVerification(ctx context.Context, p *configv1beta1.ClusterPromotion, stage *configv1beta1.Stage, frozen map[freeze.Ref]string) error {
	profile := &configv1beta1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Name: preVerificationName(p, stage.Name)}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.client, profile, func() error {
		profile.Spec = configv1beta1.Spec{
			ClusterSelector: stage.ClusterSelector, SyncMode: configv1beta1.SyncModeContinuous,
			Tier: p.Spec.ProfileSpec.Tier, StopMatchingBehavior: configv1beta1.WithdrawPolicies,
			PolicyRefs: freeze.FrozenPolicyRefs(preHealthRefs(stage), frozen),
		}
		if profile.Labels == nil {
			profile.Labels = map[string]string{}
		}
		if profile.Annotations == nil {
			profile.Annotations = map[string]string{}
		}
		profile.Labels[configv1beta1.PromotionNameLabel] = p.Name
		profile.Labels[configv1beta1.PromotionVerificationLabel] = "true"
		profile.Annotations[configv1beta1.StageNameAnnotation] = stage.Name
		return controllerutil.SetControllerReference(p, profile, r.client.Scheme())
	})
	return err
}

func (r *Reconciler) preVerificationDeployed(ctx context.Context, p *configv1beta1.ClusterPromotion, stage *configv1beta1.Stage) (bool, error) {
	profile := &configv1beta1.ClusterProfile{}
	err := r.client.Get(ctx, client.ObjectKey{Name: preVerificationName(p, stage.Name)}, profile)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	st, err := r.provisioned(ctx, profile)
	return st.done, err
}

func (r *Reconciler) deletePreVerification(ctx context.Context, p *configv1beta1.ClusterPromotion, stage *configv1beta1.Stage) error {
	profile := &configv1beta1.ClusterProfile{ObjectMeta: metav1.ObjectMeta{Name: preVerificationName(p, stage.Name)}}
	return client.IgnoreNotFound(r.client.Delete(ctx, profile))
}

// ownedProfiles lists every ClusterProfile the promotion generated.
func (r *Reconciler) ownedProfiles(ctx context.Context, p *configv1beta1.ClusterPromotion) ([]configv1beta1.ClusterProfile, error) {
	var list configv1beta1.ClusterProfileList
	err := r.client.List(ctx, &list, client.MatchingLabels{configv1beta1.PromotionNameLabel: p.Name})
	return list.Items, err
}

// reconcileDelete withdraws what the promotion deployed — its profiles are deleted and their
// summaries withdraw the content — unless preserveClusterProfilesOnDelete keeps them.
func (r *Reconciler) reconcileDelete(ctx context.Context, p *configv1beta1.ClusterPromotion) (ctrl.Result, error) {
	r.warned.Forget(p.UID)
	r.unreadable.Reset(p.UID)
	profiles, err := r.ownedProfiles(ctx, p)
	if err != nil {
		return ctrl.Result{}, err
	}
	for i := range profiles {
		pr := &profiles[i]
		if p.Spec.PreserveClusterProfilesOnDelete {
			// Without the owner reference, garbage collection leaves the profile alone.
			base := pr.DeepCopy()
			pr.OwnerReferences = slices.DeleteFunc(pr.OwnerReferences, func(o metav1.OwnerReference) bool { return o.UID == p.UID })
			if err := r.client.Patch(ctx, pr, client.MergeFrom(base)); err != nil {
				return ctrl.Result{}, err
			}
		} else if pr.DeletionTimestamp.IsZero() {
			if err := client.IgnoreNotFound(r.client.Delete(ctx, pr)); err != nil {
				return ctrl.Result{}, err
			}
		}
	}
	if !p.Spec.PreserveClusterProfilesOnDelete && len(profiles) > 0 {
		return ctrl.Result{RequeueAfter: 2 * time.Second}, nil
	}
	if p.Spec.PreserveClusterProfilesOnDelete {
		// The kept profiles still refer to the frozen content.
		if err := freeze.Release(ctx, r.client, owner(p)); err != nil {
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{}, patch.RemoveFinalizer(ctx, r.client, p, configv1beta1.ClusterPromotionFinalizer)
}
