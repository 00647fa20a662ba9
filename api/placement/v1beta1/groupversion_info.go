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

package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of the Kubefleet placement kinds.
const GroupName = "placement.kubernetes-fleet.io"

var (
	// GroupVersion is the group and version of every kind in this package.
	GroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1beta1"}

	// SchemeBuilder registers the kinds of this package with a runtime.Scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds the kinds of this package to a runtime.Scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion,
		&ClusterResourcePlacement{}, &ClusterResourcePlacementList{},
		&ResourcePlacement{}, &ResourcePlacementList{},
		&ClusterResourceSnapshot{}, &ClusterResourceSnapshotList{},
		&ResourceSnapshot{}, &ResourceSnapshotList{},
		&ClusterStagedUpdateStrategy{}, &ClusterStagedUpdateStrategyList{},
		&StagedUpdateStrategy{}, &StagedUpdateStrategyList{},
		&ClusterStagedUpdateRun{}, &ClusterStagedUpdateRunList{},
		&StagedUpdateRun{}, &StagedUpdateRunList{},
		&ClusterApprovalRequest{}, &ClusterApprovalRequestList{},
		&ApprovalRequest{}, &ApprovalRequestList{},
		&ClusterResourceBinding{}, &ClusterResourceBindingList{},
		&ResourceBinding{}, &ResourceBindingList{},
		&ClusterSchedulingPolicySnapshot{}, &ClusterSchedulingPolicySnapshotList{},
		&SchedulingPolicySnapshot{}, &SchedulingPolicySnapshotList{},
		&ClusterResourcePlacementEviction{}, &ClusterResourcePlacementEvictionList{},
		&ClusterResourcePlacementDisruptionBudget{}, &ClusterResourcePlacementDisruptionBudgetList{},
		&ClusterResourcePlacementStatus{}, &ClusterResourcePlacementStatusList{},
	)
	metav1.AddToGroupVersion(scheme, GroupVersion)
	return nil
}
