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
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// SummaryName is the name of the ClusterSummary of a profile for a SveltosCluster, as Sveltos
// names it, so that existing ClusterSummaries are adopted.
func SummaryName(profile, cluster string) string {
	return profile + "-sveltos-" + cluster
}

// desiredSummary is the ClusterSummary the profile wants for one cluster.
func desiredSummary(profile *configv1beta1.ClusterProfile, content map[string]string, cluster clusterKey) *configv1beta1.ClusterSummary {
	cs := &configv1beta1.ClusterSummary{
		ObjectMeta: metav1.ObjectMeta{
			Name:      SummaryName(profile.Name, cluster.Name),
			Namespace: cluster.Namespace,
			Labels:    summaryLabels(profile, cluster),
			// Annotations travel with the summary so that pausing the profile pauses it too.
			Annotations: maps.Clone(profile.Annotations),
		},
		Spec: configv1beta1.ClusterSummarySpec{
			ClusterNamespace:   cluster.Namespace,
			ClusterName:        cluster.Name,
			ClusterType:        libv1beta1.ClusterTypeSveltos,
			ClusterProfileSpec: *profile.Spec.DeepCopy(),
			FrozenContent:      content,
		},
	}
	return cs
}

func summaryLabels(profile *configv1beta1.ClusterProfile, cluster clusterKey) map[string]string {
	l := maps.Clone(profile.Labels)
	if l == nil {
		l = map[string]string{}
	}
	l[configv1beta1.ClusterProfileNameLabel] = profile.Name
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

// ensureSummary creates the cluster's ClusterSummary or brings it in line with the profile.
// With syncMode OneTime the spec is written once and never updated.
func (r *Reconciler) ensureSummary(ctx context.Context, profile *configv1beta1.ClusterProfile, content map[string]string, cluster clusterKey) (syncResult, error) {
	want := desiredSummary(profile, content, cluster)
	have := &configv1beta1.ClusterSummary{}
	err := r.Get(ctx, client.ObjectKeyFromObject(want), have)
	if apierrors.IsNotFound(err) {
		if err := controllerutil.SetControllerReference(profile, want, r.Scheme()); err != nil {
			return 0, err
		}
		// The finalizer is there from the start so the content is withdrawn even if the summary is
		// deleted before its controller first sees it.
		want.Finalizers = []string{configv1beta1.ClusterSummaryFinalizer}
		if err := r.Create(ctx, want); err != nil {
			return 0, fmt.Errorf("creating ClusterSummary %s/%s: %w", want.Namespace, want.Name, err)
		}
		return summaryCreated, nil
	}
	if err != nil {
		return 0, err
	}
	if !have.DeletionTimestamp.IsZero() {
		return summaryDeleting, nil
	}
	if !metav1.IsControlledBy(have, profile) {
		return 0, fmt.Errorf("ClusterSummary %s/%s exists and belongs to another owner", have.Namespace, have.Name)
	}
	oneTime := profile.Spec.SyncMode == configv1beta1.SyncModeOneTime
	if (oneTime || equality.Semantic.DeepEqual(have.Spec, want.Spec)) &&
		maps.Equal(have.Labels, want.Labels) && maps.Equal(have.Annotations, want.Annotations) {
		return summaryUnchanged, nil
	}
	if !oneTime {
		have.Spec = want.Spec
	}
	have.Labels, have.Annotations = want.Labels, want.Annotations
	if err := r.Update(ctx, have); err != nil {
		return 0, fmt.Errorf("updating ClusterSummary %s/%s: %w", have.Namespace, have.Name, err)
	}
	return summaryUpdated, nil
}

// summaries lists the ClusterSummaries of a profile.
func (r *Reconciler) summaries(ctx context.Context, profile string) ([]configv1beta1.ClusterSummary, error) {
	var list configv1beta1.ClusterSummaryList
	err := r.List(ctx, &list, client.MatchingLabels{configv1beta1.ClusterProfileNameLabel: profile})
	return list.Items, err
}
