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
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

func TestPolicyHash(t *testing.T) {
	base := &placementv1beta1.PlacementPolicy{PlacementType: placementv1beta1.PickNPlacementType, NumberOfClusters: ptr.To[int32](2)}
	h := func(p *placementv1beta1.PlacementPolicy) string {
		t.Helper()
		s, err := policyHash(p)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	scaled := base.DeepCopy()
	scaled.NumberOfClusters = ptr.To[int32](5)
	if h(base) != h(scaled) {
		t.Error("numberOfClusters changes the policy hash")
	}
	if base.NumberOfClusters == nil || *base.NumberOfClusters != 2 {
		t.Error("policyHash changed its input")
	}
	moved := base.DeepCopy()
	moved.Affinity = &placementv1beta1.Affinity{ClusterAffinity: &placementv1beta1.ClusterAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &placementv1beta1.ClusterSelector{
			ClusterSelectorTerms: []placementv1beta1.ClusterSelectorTerm{{LabelSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{"environment": "canary"}}}},
		},
	}}
	if h(base) == h(moved) {
		t.Error("an affinity change keeps the policy hash")
	}
	tolerant := base.DeepCopy()
	tolerant.Tolerations = []placementv1beta1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists}}
	if h(base) == h(tolerant) {
		t.Error("a toleration change keeps the policy hash")
	}
}

func TestWithDefaults(t *testing.T) {
	spec := &placementv1beta1.PlacementSpec{}
	got := withDefaults(spec)
	if got.Policy == nil || got.Policy.PlacementType != placementv1beta1.PickAllPlacementType ||
		got.Strategy.Type != placementv1beta1.RollingUpdateRolloutStrategyType ||
		got.Strategy.RollingUpdate.MaxUnavailable.String() != "25%" || got.Strategy.RollingUpdate.MaxSurge.String() != "25%" ||
		*got.Strategy.RollingUpdate.UnavailablePeriodSeconds != 60 || *got.RevisionHistoryLimit != 10 {
		t.Errorf("defaults %+v", got)
	}
	want := &placementv1beta1.ApplyStrategy{
		ComparisonOption: placementv1beta1.ComparisonOptionTypePartialComparison, WhenToApply: placementv1beta1.WhenToApplyTypeAlways,
		Type: placementv1beta1.ApplyStrategyTypeClientSideApply, WhenToTakeOver: placementv1beta1.WhenToTakeOverTypeAlways,
	}
	if !reflect.DeepEqual(got.Strategy.ApplyStrategy, want) {
		t.Errorf("apply strategy %+v", got.Strategy.ApplyStrategy)
	}
	if spec.Policy != nil || spec.Strategy.ApplyStrategy != nil {
		t.Error("withDefaults changed its input")
	}
	external := withDefaults(&placementv1beta1.PlacementSpec{Strategy: placementv1beta1.RolloutStrategy{Type: placementv1beta1.ExternalRolloutStrategyType}})
	if external.Strategy.RollingUpdate != nil {
		t.Error("an External strategy got rollingUpdate defaults")
	}
	ssa := placementv1beta1.DefaultedApplyStrategy(&placementv1beta1.ApplyStrategy{Type: placementv1beta1.ApplyStrategyTypeServerSideApply})
	if ssa.ServerSideApplyConfig == nil || ssa.ServerSideApplyConfig.ForceConflicts {
		t.Errorf("server-side apply config %+v", ssa.ServerSideApplyConfig)
	}
}
