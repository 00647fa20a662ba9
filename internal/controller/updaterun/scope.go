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

package updaterun

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

// scope is where a run lives: the cluster-scoped family (ClusterStagedUpdateRun,
// ClusterResourcePlacement, ClusterStagedUpdateStrategy, ClusterResourceSnapshot,
// ClusterResourceBinding, ClusterApprovalRequest) when namespace is empty, otherwise the
// namespaced family in that namespace.
type scope struct {
	client.Client
	namespace string
}

func (s scope) placementKind() string {
	if s.namespace == "" {
		return placementv1beta1.ClusterResourcePlacementKind
	}
	return placementv1beta1.ResourcePlacementKind
}

func (s scope) key(name string) client.ObjectKey {
	return client.ObjectKey{Namespace: s.namespace, Name: name}
}

// describe names an object of the scope for messages: "ClusterResourcePlacement x" or
// "ResourcePlacement ns/x".
func (s scope) describe(kind, name string) string {
	if s.namespace == "" {
		return kind + " " + name
	}
	return kind + " " + s.namespace + "/" + name
}

// placement reads the run's placement; nil when it does not exist. scheduled reports whether
// the placement's scheduler has decided on its current generation (Scheduled True or False).
func (s scope) placement(ctx context.Context, name string) (spec *placementv1beta1.PlacementSpec, scheduled bool, err error) {
	var obj client.Object
	var status *placementv1beta1.PlacementStatus
	condition := string(placementv1beta1.ClusterResourcePlacementScheduledConditionType)
	if s.namespace == "" {
		p := &placementv1beta1.ClusterResourcePlacement{}
		obj, spec, status = p, &p.Spec, &p.Status
	} else {
		p := &placementv1beta1.ResourcePlacement{}
		obj, spec, status = p, &p.Spec, &p.Status
		condition = string(placementv1beta1.ResourcePlacementScheduledConditionType)
	}
	if err := s.Get(ctx, s.key(name), obj); err != nil {
		return nil, false, client.IgnoreNotFound(err)
	}
	c := meta.FindStatusCondition(status.Conditions, condition)
	scheduled = c != nil && c.Status != metav1.ConditionUnknown && c.ObservedGeneration == obj.GetGeneration()
	return spec, scheduled, nil
}

// strategy reads the run's strategy; nil when it does not exist.
func (s scope) strategy(ctx context.Context, name string) (*placementv1beta1.UpdateStrategySpec, error) {
	if s.namespace == "" {
		st := &placementv1beta1.ClusterStagedUpdateStrategy{}
		if err := s.Get(ctx, s.key(name), st); err != nil {
			return nil, client.IgnoreNotFound(err)
		}
		return &st.Spec, nil
	}
	st := &placementv1beta1.StagedUpdateStrategy{}
	if err := s.Get(ctx, s.key(name), st); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	return &st.Spec, nil
}

func (s scope) strategyKind() string {
	if s.namespace == "" {
		return placementv1beta1.ClusterStagedUpdateStrategyKind
	}
	return placementv1beta1.StagedUpdateStrategyKind
}

// snapshotIndices lists, in increasing order, the resource snapshot indices of the placement
// that have a first ("master") snapshot.
func (s scope) snapshotIndices(ctx context.Context, placement string) ([]int, error) {
	var objs []client.Object
	sel := client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: placement}
	if s.namespace == "" {
		var list placementv1beta1.ClusterResourceSnapshotList
		if err := s.List(ctx, &list, sel); err != nil {
			return nil, err
		}
		for i := range list.Items {
			objs = append(objs, &list.Items[i])
		}
	} else {
		var list placementv1beta1.ResourceSnapshotList
		if err := s.List(ctx, &list, sel, client.InNamespace(s.namespace)); err != nil {
			return nil, err
		}
		for i := range list.Items {
			objs = append(objs, &list.Items[i])
		}
	}
	var indices []int
	for _, o := range objs {
		if _, master := o.GetAnnotations()[placementv1beta1.ResourceGroupHashAnnotation]; !master {
			continue
		}
		if i, err := strconv.Atoi(o.GetLabels()[placementv1beta1.ResourceIndexLabel]); err == nil {
			indices = append(indices, i)
		}
	}
	slices.Sort(indices)
	return indices, nil
}

// latestPolicyIndex returns the index of the placement's latest scheduling policy snapshot, ""
// when there is none yet.
func (s scope) latestPolicyIndex(ctx context.Context, placement string) (string, error) {
	sel := client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: placement, placementv1beta1.IsLatestSnapshotLabel: "true"}
	var objs []client.Object
	if s.namespace == "" {
		var list placementv1beta1.ClusterSchedulingPolicySnapshotList
		if err := s.List(ctx, &list, sel); err != nil {
			return "", err
		}
		for i := range list.Items {
			objs = append(objs, &list.Items[i])
		}
	} else {
		var list placementv1beta1.SchedulingPolicySnapshotList
		if err := s.List(ctx, &list, sel, client.InNamespace(s.namespace)); err != nil {
			return "", err
		}
		for i := range list.Items {
			objs = append(objs, &list.Items[i])
		}
	}
	if len(objs) == 0 {
		return "", nil
	}
	return objs[0].GetLabels()[placementv1beta1.PolicyIndexLabel], nil
}

// binding is a ClusterResourceBinding or ResourceBinding with its parts.
type binding struct {
	client.Object
	spec   *placementv1beta1.ResourceBindingSpec
	status *placementv1beta1.ResourceBindingStatus
}

// bindings lists the placement's bindings, by target cluster.
func (s scope) bindings(ctx context.Context, placement string) (map[string]binding, error) {
	sel := client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: placement}
	out := map[string]binding{}
	add := func(b placementv1beta1.BindingObj) {
		out[b.BindingSpec().TargetCluster] = binding{b, b.BindingSpec(), b.BindingStatus()}
	}
	if s.namespace == "" {
		var list placementv1beta1.ClusterResourceBindingList
		if err := s.List(ctx, &list, sel); err != nil {
			return nil, err
		}
		for i := range list.Items {
			add(&list.Items[i])
		}
		return out, nil
	}
	var list placementv1beta1.ResourceBindingList
	if err := s.List(ctx, &list, sel, client.InNamespace(s.namespace)); err != nil {
		return nil, err
	}
	for i := range list.Items {
		add(&list.Items[i])
	}
	return out, nil
}

// members returns the labels of the named member clusters.
func (s scope) members(ctx context.Context, names []string) (map[string]map[string]string, error) {
	var list clusterv1beta1.MemberClusterList
	if err := s.List(ctx, &list); err != nil {
		return nil, err
	}
	out := map[string]map[string]string{}
	for _, m := range list.Items {
		if slices.Contains(names, m.Name) {
			out[m.Name] = m.Labels
		}
	}
	return out, nil
}

// approval returns an empty approval request object of the scope, named.
func (s scope) approval(name string) (client.Object, *placementv1beta1.ApprovalRequestSpec, *placementv1beta1.ApprovalRequestStatus) {
	if s.namespace == "" {
		a := &placementv1beta1.ClusterApprovalRequest{}
		a.Name = name
		return a, &a.Spec, &a.Status
	}
	a := &placementv1beta1.ApprovalRequest{}
	a.Name, a.Namespace = name, s.namespace
	return a, &a.Spec, &a.Status
}

func (s scope) approvalKind() string {
	if s.namespace == "" {
		return placementv1beta1.ClusterApprovalRequestKind
	}
	return placementv1beta1.ApprovalRequestKind
}

func joinInts(v []int) string {
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = strconv.Itoa(n)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func snapshotName(placement string, index int) string {
	return fmt.Sprintf(placementv1beta1.ResourceSnapshotNameFmt, placement, index)
}
