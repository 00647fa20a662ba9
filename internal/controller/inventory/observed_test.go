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
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1beta1 "github.com/stagecoach-dev/stagecoach/api/cluster/v1beta1"
	inventoryv1alpha1 "github.com/stagecoach-dev/stagecoach/api/inventory/v1alpha1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

func TestOfMemberCluster(t *testing.T) {
	mc := &clusterv1beta1.MemberCluster{}
	o := ofMemberCluster(mc)
	if len(o.conditions) != 1 || o.conditions[0].status != metav1.ConditionUnknown || o.conditions[0].reason != "MemberClusterHealthUnknown" {
		t.Errorf("a cluster never probed: %+v", o.conditions)
	}
	mc.Status.Conditions = []metav1.Condition{
		{Type: "Healthy", Status: metav1.ConditionFalse, Reason: "Unreachable", Message: "connection refused"},
		{Type: "Joined", Status: metav1.ConditionTrue, Reason: "Reachable", Message: "The API server answers"},
	}
	mc.Status.Properties = map[clusterv1beta1.PropertyName]clusterv1beta1.PropertyValue{
		clusterv1beta1.K8sVersionProperty: {Value: "v1.36.3"},
		"kubernetes-fleet.io/node-count":  {Value: "3"},
		"too-long":                        {Value: strings.Repeat("x", 1025)},
		"empty":                           {},
	}
	o = ofMemberCluster(mc)
	want := []condition{
		{inventoryv1alpha1.ControlPlaneHealthyCondition, metav1.ConditionFalse, "MemberClusterAPIServerUnhealthy", "connection refused"},
		{JoinedCondition, metav1.ConditionTrue, "Reachable", "The API server answers"},
	}
	if len(o.conditions) != 2 || o.conditions[0] != want[0] || o.conditions[1] != want[1] {
		t.Errorf("conditions %+v, want %+v", o.conditions, want)
	}
	if o.version != "v1.36.3" {
		t.Errorf("version %q", o.version)
	}
	var names []string
	for _, p := range o.properties {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, ","); got != "k8s.io/k8s-version,kubernetes-fleet.io/node-count" {
		t.Errorf("properties %s: the standard's bounds must leave out empty and overlong values", got)
	}
}

func TestOfSveltosCluster(t *testing.T) {
	failure := "cannot reach https://10.0.0.1:6443: connection refused"
	for _, tc := range []struct {
		name   string
		status libv1beta1.SveltosClusterStatus
		want   condition
	}{
		{"not probed yet", libv1beta1.SveltosClusterStatus{},
			condition{inventoryv1alpha1.ControlPlaneHealthyCondition, metav1.ConditionUnknown, "SveltosClusterHealthUnknown", "Stagecoach has not probed the cluster's API server yet"}},
		{"healthy", libv1beta1.SveltosClusterStatus{ConnectionStatus: libv1beta1.ConnectionHealthy, Version: "v1.36.3"},
			condition{inventoryv1alpha1.ControlPlaneHealthyCondition, metav1.ConditionTrue, "SveltosClusterAPIServerHealthy", "The API server answers (Kubernetes v1.36.3)"}},
		{"down", libv1beta1.SveltosClusterStatus{ConnectionStatus: libv1beta1.ConnectionDown, FailureMessage: &failure},
			condition{inventoryv1alpha1.ControlPlaneHealthyCondition, metav1.ConditionFalse, "SveltosClusterAPIServerUnhealthy", failure}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := ofSveltosCluster(&libv1beta1.SveltosCluster{Status: tc.status})
			if len(o.conditions) != 1 || o.conditions[0] != tc.want {
				t.Errorf("got %+v, want %+v", o.conditions, tc.want)
			}
			if o.version != tc.status.Version {
				t.Errorf("version %q", o.version)
			}
		})
	}
}

func TestSetStatusDropsConditionsNoLongerObserved(t *testing.T) {
	p := &inventoryv1alpha1.ClusterProfile{}
	setStatus(p, observed{conditions: []condition{{"Joined", metav1.ConditionTrue, "Reachable", "ok"}, health("MemberCluster", metav1.ConditionTrue, "ok")}})
	setStatus(p, observed{conditions: []condition{health("MemberCluster", metav1.ConditionFalse, "down")}})
	if len(p.Status.Conditions) != 1 || p.Status.Conditions[0].Type != inventoryv1alpha1.ControlPlaneHealthyCondition || p.Status.Conditions[0].Status != metav1.ConditionFalse {
		t.Errorf("conditions %+v", p.Status.Conditions)
	}
}
