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

package clusterprofile

import (
	"context"
	"errors"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/inplace"
)

// desiredSummary is the ClusterSummary the profile wants for one cluster.
func desiredSummary(ps *pass, cluster clusterKey) *configv1beta1.ClusterSummary {
	cs := &configv1beta1.ClusterSummary{
		ObjectMeta: metav1.ObjectMeta{
			Name:      ps.family.SummaryName(ps.profile.GetName(), cluster.Name),
			Namespace: cluster.Namespace,
			Labels:    summaryLabels(ps, cluster),
			// Annotations travel with the summary so that pausing the profile pauses it too.
			Annotations: summaryAnnotations(ps.profile),
		},
		Spec: configv1beta1.ClusterSummarySpec{
			ClusterNamespace:   cluster.Namespace,
			ClusterName:        cluster.Name,
			ClusterType:        libv1beta1.ClusterTypeSveltos,
			ClusterProfileSpec: *ps.spec.DeepCopy(),
			FrozenContent:      ps.content,
		},
	}
	return cs
}

// summaryAnnotations are the profile's, but for the hold on its rollout: that one is the profile's
// business, and holding a rollout must not rewrite every summary.
func summaryAnnotations(profile configv1beta1.ProfileObj) map[string]string {
	out := maps.Clone(profile.GetAnnotations())
	delete(out, configv1beta1.HoldRolloutAnnotation)
	return out
}

// hasSummaryAnnotations reports whether a summary carries summaryAnnotations(profile), without
// building them: it is asked of every cluster on every pass.
func hasSummaryAnnotations(have map[string]string, profile configv1beta1.ProfileObj) bool {
	n := 0
	for k, v := range profile.GetAnnotations() {
		if k == configv1beta1.HoldRolloutAnnotation {
			continue
		}
		if got, ok := have[k]; !ok || got != v {
			return false
		}
		n++
	}
	return len(have) == n
}

func summaryLabels(ps *pass, cluster clusterKey) map[string]string {
	l := maps.Clone(ps.profile.GetLabels())
	if l == nil {
		l = map[string]string{}
	}
	l[ps.family.NameLabel()] = ps.profile.GetName()
	l[configv1beta1.ClusterNameLabel] = cluster.Name
	l[configv1beta1.ClusterTypeLabel] = string(libv1beta1.ClusterTypeSveltos)
	return l
}

// syncResult says what ensureSummary did.
type syncResult int

const (
	summaryUnchanged syncResult = iota
	summaryCreated
	summaryUpdated
	summaryDeleting // being deleted; it is recreated once gone
)

// ensureSummary creates the cluster's ClusterSummary or brings it in line with the profile. have
// is the summary as the cache holds it, nil when there is none; it is read, never changed. With
// syncMode OneTime the spec is written once and never updated.
func (r *Reconciler) ensureSummary(ctx context.Context, ps *pass, cluster clusterKey, have *configv1beta1.ClusterSummary) (syncResult, error) {
	profile := ps.profile
	if have == nil {
		want := desiredSummary(ps, cluster)
		if err := controllerutil.SetControllerReference(profile, want, r.client.Scheme()); err != nil {
			return 0, err
		}
		// The finalizer is there from the start so the content is withdrawn even if the summary is
		// deleted before its controller first sees it.
		want.Finalizers = []string{configv1beta1.ClusterSummaryFinalizer}
		if err := r.client.Create(ctx, want); err != nil {
			return 0, fmt.Errorf("creating ClusterSummary %s/%s: %w", want.Namespace, want.Name, err)
		}
		return summaryCreated, nil
	}
	if !have.DeletionTimestamp.IsZero() {
		return summaryDeleting, nil
	}
	if !metav1.IsControlledBy(have, profile) {
		return 0, fmt.Errorf("ClusterSummary %s/%s exists and belongs to another owner", have.Namespace, have.Name)
	}
	// Most passes find most summaries as they should be: that is decided on the cached summary,
	// without building or copying one per cluster.
	sameCluster := have.Spec.ClusterNamespace == cluster.Namespace && have.Spec.ClusterName == cluster.Name &&
		have.Spec.ClusterType == libv1beta1.ClusterTypeSveltos
	if sameCluster && ps.runsCurrent(have) &&
		maps.Equal(have.Labels, summaryLabels(ps, cluster)) && hasSummaryAnnotations(have.Annotations, profile) {
		return summaryUnchanged, nil
	}
	want := desiredSummary(ps, cluster)
	updated := have.DeepCopy()
	if ps.spec.SyncMode != configv1beta1.SyncModeOneTime {
		updated.Spec = want.Spec
	}
	updated.Labels, updated.Annotations = want.Labels, want.Annotations
	if err := r.client.Update(ctx, updated); err != nil {
		return 0, fmt.Errorf("updating ClusterSummary %s/%s: %w", have.Namespace, have.Name, err)
	}
	return summaryUpdated, nil
}

// summaries lists the ClusterSummaries of a profile: a ClusterProfile's anywhere, a Profile's in
// its namespace. A profile may have tens of thousands: they are read in place, never changed.
func (r *Reconciler) summaries(ctx context.Context, family configv1beta1.ProfileFamily, profile configv1beta1.ProfileObj) ([]*configv1beta1.ClusterSummary, error) {
	objs, err := inplace.Objects(ctx, r.informers, r.client, &configv1beta1.ClusterSummary{}, &configv1beta1.ClusterSummaryList{},
		family.Namespace(profile.GetNamespace()), labels.SelectorFromSet(labels.Set{family.NameLabel(): profile.GetName()}))
	if err != nil {
		return nil, err
	}
	out := make([]*configv1beta1.ClusterSummary, 0, len(objs))
	for _, o := range objs {
		if cs, ok := o.(*configv1beta1.ClusterSummary); ok {
			out = append(out, cs)
		}
	}
	return out, nil
}

// summariesPhase finds the profile's summaries.
func (r *Reconciler) summariesPhase(ctx context.Context, ps *pass) error {
	existing, err := r.summaries(ctx, ps.family, ps.profile)
	if err != nil {
		return err
	}
	ps.existing = existing
	ps.byCluster = make(map[clusterKey]*configv1beta1.ClusterSummary, len(existing))
	for _, cs := range existing {
		ps.byCluster[clusterKey{Namespace: cs.Spec.ClusterNamespace, Name: cs.Spec.ClusterName}] = cs
	}
	return nil
}

// writePhase writes the current spec into the summaries of the clusters the wave lets update, in
// namespace/name order, and records the clusters whose summary could not be written or keeps
// failing.
func (r *Reconciler) writePhase(ctx context.Context, ps *pass) error {
	write := map[string]bool{}
	for _, names := range [][]string{ps.wave.Start, ps.wave.Updating, ps.wave.Updated} {
		for _, n := range names {
			write[n] = true
		}
	}
	for _, cluster := range ps.matching {
		// Without maxUpdate, paused and unreachable clusters get the new spec too: they deploy it
		// when they can. With maxUpdate they wait, so that they never take a slot.
		if !write[cluster.Namespace+"/"+cluster.Name] && (ps.held || ps.limit > 0 || ps.unavailable[cluster] == "") {
			continue
		}
		r.writeSummary(ctx, ps, cluster)
	}
	return nil
}

// writeSummary brings one cluster's summary in line with the profile and records how it went.
func (r *Reconciler) writeSummary(ctx context.Context, ps *pass, cluster clusterKey) {
	previous := ps.status.FailedClusters
	res, err := r.ensureSummary(ctx, ps, cluster, ps.byCluster[cluster])
	switch {
	case err != nil:
		ps.failed = append(ps.failed, failedCluster(previous, cluster, err))
		ps.retry = true
	case res == summaryCreated:
		r.recorder.Eventf(ps.profile, nil, corev1.EventTypeNormal, "ClusterSummaryCreated", "Create",
			"deploying to cluster %s", cluster.Namespace+"/"+cluster.Name)
	case res == summaryDeleting:
		ps.retry = true
	}
	// A cluster that keeps failing holds its update slot; the status says why.
	if cs := ps.byCluster[cluster]; cs != nil && err == nil {
		if msg := cs.Failure(); msg != "" {
			ps.failed = append(ps.failed, failedCluster(previous, cluster, errors.New(msg)))
		}
	}
}

// stalePhase deletes the summaries of clusters that no longer match.
func (r *Reconciler) stalePhase(ctx context.Context, ps *pass) error {
	remaining, err := r.deleteStaleSummaries(ctx, ps.family, ps.profile, ps.matching)
	if remaining {
		ps.retry = true
	}
	return err
}

// deleteStaleSummaries deletes the summaries of clusters that no longer match; their finalizer
// withdraws or leaves the content as stopMatchingBehavior says. It reports whether any remain.
func (r *Reconciler) deleteStaleSummaries(ctx context.Context, family configv1beta1.ProfileFamily, profile configv1beta1.ProfileObj,
	matching []clusterKey) (bool, error) {
	keep := map[clusterKey]bool{}
	for _, k := range matching {
		keep[k] = true
	}
	summaries, err := r.summaries(ctx, family, profile)
	if err != nil {
		return false, err
	}
	remaining := false
	for _, cs := range summaries {
		if keep[clusterKey{Namespace: cs.Spec.ClusterNamespace, Name: cs.Spec.ClusterName}] {
			continue
		}
		remaining = true
		if !cs.DeletionTimestamp.IsZero() {
			continue
		}
		gone := &configv1beta1.ClusterSummary{ObjectMeta: metav1.ObjectMeta{Namespace: cs.Namespace, Name: cs.Name}}
		if err := r.client.Delete(ctx, gone); client.IgnoreNotFound(err) != nil {
			return false, err
		}
		r.recorder.Eventf(profile, nil, corev1.EventTypeNormal, "ClusterSummaryDeleted", "Delete",
			"cluster %s/%s no longer matches", cs.Spec.ClusterNamespace, cs.Spec.ClusterName)
	}
	return remaining, nil
}
