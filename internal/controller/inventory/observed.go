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

package inventory

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	inventoryv1alpha1 "github.com/stagecoach-dev/stagecoach/api/inventory/v1alpha1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// ClusterManager is the cluster manager Stagecoach's ClusterProfiles name, in
// spec.clusterManager.name and in the label x-k8s.io/cluster-manager.
const ClusterManager = "Stagecoach"

// SourceLabel names the kind of cluster object a ClusterProfile describes: MemberCluster or
// SveltosCluster. A profile without it, or with the other kind, is not Stagecoach's to touch.
const SourceLabel = "stagecoach.dev/inventory-source"

// JoinedCondition is a MemberCluster's Joined condition, repeated on its profile as Kubefleet's
// readers expect.
const JoinedCondition = "Joined"

// condition is one condition of a profile, before it gets its generation and transition time.
type condition struct {
	typ     string
	status  metav1.ConditionStatus
	reason  string
	message string
}

// observed is what a profile's status says, derived from its cluster object alone.
type observed struct {
	conditions []condition
	version    string
	properties []inventoryv1alpha1.Property
}

// health says whether the control plane is healthy: reasons are "<Kind>APIServerHealthy",
// "<Kind>APIServerUnhealthy" and "<Kind>HealthUnknown", as Kubefleet names the first two for a
// MemberCluster.
func health(kind string, status metav1.ConditionStatus, message string) condition {
	reason := map[metav1.ConditionStatus]string{
		metav1.ConditionTrue: "APIServerHealthy", metav1.ConditionFalse: "APIServerUnhealthy", metav1.ConditionUnknown: "HealthUnknown",
	}[status]
	if status == metav1.ConditionUnknown && message == "" {
		message = "Stagecoach has not probed the cluster's API server yet"
	}
	return condition{inventoryv1alpha1.ControlPlaneHealthyCondition, status, kind + reason, message}
}

// ofMemberCluster: the control plane is healthy as the last probe found it (the Healthy
// condition); Joined, the version and every property are the MemberCluster's.
func ofMemberCluster(mc *clusterv1beta1.MemberCluster) observed {
	var o observed
	find := func(t clusterv1beta1.MemberClusterConditionType) *metav1.Condition {
		return meta.FindStatusCondition(mc.Status.Conditions, string(t))
	}
	if c := find(clusterv1beta1.ConditionTypeMemberClusterHealthy); c != nil {
		o.conditions = append(o.conditions, health("MemberCluster", c.Status, c.Message))
	} else {
		o.conditions = append(o.conditions, health("MemberCluster", metav1.ConditionUnknown, ""))
	}
	if c := find(clusterv1beta1.ConditionTypeMemberClusterJoined); c != nil {
		o.conditions = append(o.conditions, condition{JoinedCondition, c.Status, c.Reason, c.Message})
	}
	o.version = mc.Status.Properties[clusterv1beta1.K8sVersionProperty].Value
	for name, v := range mc.Status.Properties {
		// The standard bounds names and values; a property it cannot hold is left out rather
		// than making the whole status unwritable.
		if len(name) == 0 || len(name) > 253 || len(v.Value) == 0 || len(v.Value) > 1024 {
			continue
		}
		o.properties = append(o.properties, inventoryv1alpha1.Property{Name: string(name), Value: v.Value, LastObservedTime: v.ObservationTime})
	}
	slices.SortFunc(o.properties, func(a, b inventoryv1alpha1.Property) int { return strings.Compare(a.Name, b.Name) })
	return o
}

// ofSveltosCluster: the control plane is healthy while the cluster's connection is Healthy,
// unhealthy once it is Down (after consecutiveFailureThreshold failed probes).
func ofSveltosCluster(sc *libv1beta1.SveltosCluster) observed {
	var o observed
	st := sc.Status
	msg := ""
	if st.FailureMessage != nil {
		msg = *st.FailureMessage
	}
	switch st.ConnectionStatus {
	case libv1beta1.ConnectionHealthy:
		o.conditions = append(o.conditions, health("SveltosCluster", metav1.ConditionTrue, fmt.Sprintf("The API server answers (Kubernetes %s)", st.Version)))
	case libv1beta1.ConnectionDown:
		o.conditions = append(o.conditions, health("SveltosCluster", metav1.ConditionFalse, msg))
	default:
		o.conditions = append(o.conditions, health("SveltosCluster", metav1.ConditionUnknown, msg))
	}
	o.version = st.Version
	return o
}
