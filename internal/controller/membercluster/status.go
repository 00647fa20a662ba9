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

package membercluster

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/patch"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

// reasonReachable is the reason of Joined and Healthy when the API server answered. When it did
// not, the reason is that of the fleet.ClusterError (fleet.ReasonUnreachable, …).
const reasonReachable = "Reachable"

// observe folds the outcome of one probe into the cluster's conditions: probeErr nil means the
// API server answered with version; failures counts the probes in a row that failed, this one
// included.
//
// Healthy follows every probe. Joined, which is what placements look at, turns True at the first
// success but False only after threshold failures in a row; until then a cluster that had joined
// stays joined, and one that never did is Unknown, with the failure as message.
func observe(c *clusterv1beta1.MemberCluster, threshold, failures int, version string, probeErr *fleet.ClusterError) {
	joined := string(clusterv1beta1.ConditionTypeMemberClusterJoined)
	healthy := string(clusterv1beta1.ConditionTypeMemberClusterHealthy)
	set := func(condType string, status metav1.ConditionStatus, reason, message string) {
		patch.SetCondition(&c.Status.Conditions, c.Generation, condType, status, reason, message)
	}
	if probeErr == nil {
		msg := fmt.Sprintf("The API server answers (Kubernetes %s)", version)
		set(joined, metav1.ConditionTrue, reasonReachable, msg)
		set(healthy, metav1.ConditionTrue, reasonReachable, msg)
		setVersion(c, version)
		return
	}
	set(healthy, metav1.ConditionFalse, probeErr.Reason, probeErr.Message)
	current := meta.FindStatusCondition(c.Status.Conditions, joined)
	switch {
	case failures >= threshold:
		set(joined, metav1.ConditionFalse, probeErr.Reason, probeErr.Message)
	case current == nil || current.Status == metav1.ConditionUnknown:
		set(joined, metav1.ConditionUnknown, probeErr.Reason, probeErr.Message)
	default:
		// Kept as it is, but judged against the current spec.
		current.ObservedGeneration = c.Generation
	}
}

// setVersion records the version the API server reported. The observation time moves only when
// the version changes, so that a probe finding nothing new writes no status.
func setVersion(c *clusterv1beta1.MemberCluster, version string) {
	if version == "" || c.Status.Properties[clusterv1beta1.K8sVersionProperty].Value == version {
		return
	}
	if c.Status.Properties == nil {
		c.Status.Properties = map[clusterv1beta1.PropertyName]clusterv1beta1.PropertyValue{}
	}
	c.Status.Properties[clusterv1beta1.K8sVersionProperty] = clusterv1beta1.PropertyValue{Value: version, ObservationTime: metav1.Now()}
}
