//go:build e2e

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

package upstream

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// outcome tells whether a running document has reached an outcome (deployed, failed, or
// refused), and the messages its status gives.
func (a *applied) outcome(ctx context.Context, c client.Client) (bool, []string, error) {
	key := client.ObjectKeyFromObject(a.obj)
	switch a.obj.GetKind() {
	case "ClusterProfile":
		p := &configv1beta1.ClusterProfile{}
		if err := c.Get(ctx, key, p); err != nil {
			return false, nil, err
		}
		return profileOutcome(ctx, c, p.UID, p.Status.Conditions)
	case "Profile":
		// Profiles are looked at as unstructured objects: their status has the conditions of
		// a ClusterProfile's.
		p := a.obj.DeepCopy()
		if err := c.Get(ctx, key, p); err != nil {
			return false, nil, err
		}
		var st configv1beta1.Status
		if err := fromUnstructured(p.Object["status"], &st); err != nil {
			return false, nil, err
		}
		return profileOutcome(ctx, c, p.GetUID(), st.Conditions)
	case "ClusterPromotion":
		return promotionOutcome(ctx, c, key.Name)
	case "SveltosCluster":
		sc := &libv1beta1.SveltosCluster{}
		if err := c.Get(ctx, key, sc); err != nil {
			return false, nil, err
		}
		if sc.Status.FailureMessage != nil {
			return true, []string{*sc.Status.FailureMessage}, nil
		}
		return sc.Status.Ready, nil, nil
	}
	return false, nil, fmt.Errorf("kind %s is not looked at by this test", a.obj.GetKind())
}

// profileOutcome: a profile refused as written is Stalled; otherwise its outcome is that of its
// ClusterSummaries, once there are some and each has one.
func profileOutcome(ctx context.Context, c client.Client, uid types.UID, conds []metav1.Condition) (bool, []string, error) {
	if cond := meta.FindStatusCondition(conds, configv1beta1.ProfileStalledCondition); cond != nil && cond.Status == metav1.ConditionTrue {
		return true, []string{cond.Message}, nil
	}
	var list configv1beta1.ClusterSummaryList
	if err := c.List(ctx, &list); err != nil {
		return false, nil, err
	}
	var msgs []string
	found := false
	for i := range list.Items {
		cs := &list.Items[i]
		if !ownedBy(cs, uid) {
			continue
		}
		found = true
		settled, m := summaryOutcome(cs)
		msgs = append(msgs, m...)
		if !settled {
			return false, msgs, nil
		}
	}
	if !found {
		return false, msgs, fmt.Errorf("no ClusterSummary yet")
	}
	return true, msgs, nil
}

func ownedBy(obj client.Object, uid types.UID) bool {
	for _, o := range obj.GetOwnerReferences() {
		if o.UID == uid {
			return true
		}
	}
	return false
}

// summaryOutcome: a summary has an outcome once its status describes its spec and every feature
// with content has been deployed or has failed, or the summary itself failed.
func summaryOutcome(cs *configv1beta1.ClusterSummary) (bool, []string) {
	var msgs []string
	st := &cs.Status
	if st.FailureMessage != nil {
		msgs = append(msgs, *st.FailureMessage)
	}
	for _, f := range st.FeatureSummaries {
		if f.FailureMessage != nil {
			msgs = append(msgs, string(f.FeatureID)+": "+*f.FailureMessage)
		}
	}
	for _, r := range st.HelmReleaseSummaries {
		if r.ConflictMessage != "" {
			msgs = append(msgs, r.ReleaseName+": "+r.ConflictMessage)
		}
	}
	if st.ObservedGeneration != cs.Generation {
		return false, msgs
	}
	if st.FailureMessage != nil {
		return true, msgs
	}
	for _, id := range cs.Spec.ClusterProfileSpec.FeaturesWithContent() {
		switch st.FeatureStatus(id) {
		case libv1beta1.FeatureStatusProvisioned, libv1beta1.FeatureStatusFailed, libv1beta1.FeatureStatusFailedNonRetriable:
		default:
			return false, msgs
		}
	}
	return true, msgs
}

// promotionOutcome: a promotion refused as written is Stalled; otherwise its outcome is that of
// its first stage's profile.
func promotionOutcome(ctx context.Context, c client.Client, name string) (bool, []string, error) {
	p := &configv1beta1.ClusterPromotion{}
	if err := c.Get(ctx, client.ObjectKey{Name: name}, p); err != nil {
		return false, nil, err
	}
	if cond := meta.FindStatusCondition(p.Status.Conditions, configv1beta1.PromotionStalledCondition); cond != nil && cond.Status == metav1.ConditionTrue {
		return true, []string{cond.Message}, nil
	}
	var profiles configv1beta1.ClusterProfileList
	if err := c.List(ctx, &profiles, client.MatchingLabels{configv1beta1.PromotionNameLabel: name}); err != nil {
		return false, nil, err
	}
	if len(profiles.Items) == 0 {
		return false, nil, fmt.Errorf("no stage profile yet")
	}
	var msgs []string
	for i := range profiles.Items {
		settled, m, err := profileOutcome(ctx, c, profiles.Items[i].UID, profiles.Items[i].Status.Conditions)
		msgs = append(msgs, m...)
		if err != nil || !settled {
			return false, msgs, err
		}
	}
	return true, msgs, nil
}

// fromUnstructured converts part of an unstructured object into a typed value.
func fromUnstructured(in any, out any) error {
	m, ok := in.(map[string]any)
	if !ok {
		return nil // no status yet
	}
	return runtime.DefaultUnstructuredConverter.FromUnstructured(m, out)
}
