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
	"bytes"
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
)

const (
	reasonRetrying       = "Retrying"
	reasonRetryRefused   = "RetryRefused"
	retryRefusedRollback = "the version failed and was rolled back (or is being rolled back): there is nothing to retry on it"
)

// retryPhase acts once on a stagecoach.dev/retry annotation it has not acted on (status.retry
// records the token): the stage under way gets the annotation on its ClusterProfile, which hands
// it to its ClusterSummaries, whose controller deploys their failed features again on the same
// spec. A stage failure of the version is cleared, and its progressDeadline counts again from
// now: the failure budget sees the retry as a new attempt. A version being rolled back is left
// alone. The pass ends here, so that the budget is not checked on summaries read before the
// retry reached them.
func (r *Reconciler) retryPhase(ctx context.Context, ps *pass) error {
	p := ps.p
	value := p.Annotations[configv1beta1.RetryAnnotation]
	token, cluster := configv1beta1.ParseRetry(value)
	if token == "" || (p.Status.Retry != nil && p.Status.Retry.Token == token) || len(p.Status.ProfileSpecHash) == 0 {
		return nil
	}
	rec := &configv1beta1.PromotionRetry{Token: token, Stage: ps.stage.Name, Cluster: cluster, ProfileSpecHash: p.Status.ProfileSpecHash, Time: ps.now}
	if f := p.FailedVersion(); f != nil && (f.Requested || p.Status.Rollback != nil) {
		rec.Message = retryRefusedRollback
		p.Status.Retry = rec
		r.warnOnce(p, reasonRetryRefused, "retry "+token+" not acted on: "+retryRefusedRollback)
		return nil
	}
	// The annotation goes on the stage's profile first: were the pass to fail after clearing the
	// failure, the status would not be written, and the retry would be acted on again.
	if err := r.retryStageProfile(ctx, p, ps.stage, value); err != nil {
		return err
	}
	rec.Message = retryWords(ps.stage.Name, cluster)
	if f := p.FailedVersion(); f != nil {
		rec.Message += "; cleared the stage failure: " + f.Message
		p.Status.Failure = nil
		ps.st.FailureMessage = nil
	}
	if d := ps.stage.ProgressDeadline; d != nil {
		at := metav1.NewTime(ps.now.Add(d.Duration))
		ps.st.ProgressDeadlineTime = &at
	}
	p.Status.Retry = rec
	r.event(p, corev1.EventTypeNormal, reasonRetrying, "%s", rec.Message)
	ps.requeueAfter(0)
	return errHalt
}

// retryStageProfile sets the retry annotation on the stage's ClusterProfile, which copies it onto
// its ClusterSummaries.
func (r *Reconciler) retryStageProfile(ctx context.Context, p *configv1beta1.ClusterPromotion, stage *configv1beta1.Stage, value string) error {
	profile := &configv1beta1.ClusterProfile{}
	profile.Name = p.StageProfileName(stage.Name)
	data := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, configv1beta1.RetryAnnotation, value)
	// A stage not deployed yet has no failed cluster: the retry then only clears the failure.
	if err := r.client.Patch(ctx, profile, client.RawPatch(types.MergePatchType, data)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("retrying the stage's ClusterProfile %s: %w", profile.Name, err)
	}
	return nil
}

func retryWords(stage, cluster string) string {
	if cluster != "" {
		return fmt.Sprintf("retrying cluster %s of stage %s on the same version", cluster, stage)
	}
	return fmt.Sprintf("retrying the failed clusters of stage %s on the same version", stage)
}

// noteRetry puts the retry the promotion acted on for this stage and version on the stage's
// profile as this pass read it: the profile in the cache may not show the annotation yet, and
// the clusters it concerns must not count as failed before they are reset.
func noteRetry(ps *pass) {
	rt := ps.p.Status.Retry
	if rt == nil || rt.Stage != ps.stage.Name || !bytes.Equal(rt.ProfileSpecHash, ps.p.Status.ProfileSpecHash) || ps.profile == nil {
		return
	}
	if ps.profile.Annotations == nil {
		ps.profile.Annotations = map[string]string{}
	}
	ps.profile.Annotations[configv1beta1.RetryAnnotation] = configv1beta1.FormatRetry(rt.Token, rt.Cluster)
}
