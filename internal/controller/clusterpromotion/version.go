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
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/freeze"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

// contentPhase reads what the promotion's version reads from the management cluster, and
// hashes the version.
func (r *Reconciler) contentPhase(ctx context.Context, ps *pass) error {
	spec := ps.p.Spec.ProfileSpec.ToSpec(libv1beta1.Selector{})
	// A promotion with tenant labels is its tenant's: what it reads, it reads as the tenant.
	rd, err := r.tenants.Of(ctx, ps.p, false, "", nil)
	// The controller may not act as the tenant (a ServiceAccount the chart's tenancy values do
	// not list): said and retried as a read the tenant may not do.
	mayNotActAs := err != nil && !tenancy.IsRefused(err)
	var contents []freeze.Content
	if err == nil {
		contents, err = freeze.ReadSpec(ctx, rd, &spec, stageRefs(ps.p)...)
	}
	var unserved freeze.UnservedError
	if errors.As(err, &unserved) || tenancy.IsRefused(err) {
		// Nothing to retry until the spec or the management cluster changes; the promotion says so.
		ps.invalid = err.Error()
		return errHalt
	}
	if apierrors.IsForbidden(err) || mayNotActAs {
		// The tenant may be granted the read later, which no watch sees: Ready says why, and
		// the promotion is tried again on a timer.
		ps.err = err
		ps.requeueAfter(r.unreadable.Next(ps.p.UID))
		return errHalt
	}
	if err != nil {
		return err
	}
	r.unreadable.Reset(ps.p.UID)
	ps.contents = contents
	ps.profileHash, ps.stagesHash = hashes(ps.p, contents)
	if freeze.Polled(freeze.SpecRefs(&spec)) {
		// Objects of kinds no watch covers are read again on a timer.
		ps.requeueAfter(freeze.PollInterval)
	}
	return nil
}

// versionPhase finds the stage under way, or starts a new version at the first stage when the
// profile spec, its content or the stages changed; a deny window that is open holds a new version
// back, and the stages then keep what they run.
func (r *Reconciler) versionPhase(_ context.Context, ps *pass) error {
	p := ps.p
	ps.idx = slices.IndexFunc(p.Spec.Stages, func(s configv1beta1.Stage) bool { return s.Name == p.Status.CurrentStageName })
	if ps.idx >= 0 && equality.Semantic.DeepEqual(p.Status.ProfileSpecHash, ps.profileHash) &&
		equality.Semantic.DeepEqual(p.Status.StagesHash, ps.stagesHash) {
		return nil
	}
	hold, err := newVersionHeld(p, ps.now.Time)
	if err != nil {
		return err
	}
	if hold != nil {
		recordHold(p, nil, hold)
		ps.held = hold
		if !hold.Until.IsZero() {
			ps.requeueAfter(hold.Until.Sub(ps.now.Time))
		}
		return errHalt
	}
	r.startVersion(ps)
	return nil
}

// startVersion starts the new version at the first stage. Later stages keep the previous version
// until the rollout reaches them.
func (r *Reconciler) startVersion(ps *pass) {
	p, now := ps.p, ps.now
	p.Status.Stages = []configv1beta1.StageStatus{{Name: p.Spec.Stages[0].Name, LastUpdateReconciledTime: &now}}
	p.Status.CurrentStageName = p.Spec.Stages[0].Name
	p.Status.LastPromotionTime = &now
	p.Status.ProfileSpecHash, p.Status.StagesHash = ps.profileHash, ps.stagesHash
	p.Status.Failure, p.Status.Rollback = nil, nil
	consumeStandingApprovals(p)
	ps.idx, ps.started, ps.completed = 0, true, false
	r.event(p, corev1.EventTypeNormal, reasonRolloutStarted, "%s", startWords(p))
}

// startWords says which version starts, and where.
func startWords(p *configv1beta1.ClusterPromotion) string {
	return fmt.Sprintf("rolling out profile spec %s, starting with stage %s", formatHash(p.Status.ProfileSpecHash), p.Spec.Stages[0].Name)
}

// retirePhase retires the profiles of the stages a new version no longer has.
func (r *Reconciler) retirePhase(ctx context.Context, ps *pass) error {
	if !ps.started {
		return nil
	}
	return r.retireRemovedStages(ctx, ps.p)
}
