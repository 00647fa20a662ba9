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
	"testing"

	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
)

func TestOverridesAsPinned(t *testing.T) {
	ro := func(name string) []placementv1beta1.NamespacedName {
		return []placementv1beta1.NamespacedName{{Namespace: "ns", Name: name}}
	}
	st := &placementv1beta1.StageUpdatingStatus{Clusters: []placementv1beta1.ClusterUpdatingStatus{
		{ClusterName: "a", ResourceOverrideSnapshots: ro("ro-0")},
		{ClusterName: "b"},
	}}
	binding := func(cro []string, ros []placementv1beta1.NamespacedName) placementv1beta1.BindingObj {
		b := &placementv1beta1.ClusterResourceBinding{}
		b.Spec.ClusterResourceOverrideSnapshots, b.Spec.ResourceOverrideSnapshots = cro, ros
		return b
	}
	for _, tc := range []struct {
		name, cluster string
		b             placementv1beta1.BindingObj
		want          bool
	}{
		{"as pinned", "a", binding(nil, ro("ro-0")), true},
		{"another run's snapshot", "a", binding(nil, ro("ro-1")), false},
		{"an extra cluster override", "a", binding([]string{"cro-0"}, ro("ro-0")), false},
		{"none pinned, none named (nil and empty alike)", "b", binding([]string{}, nil), true},
		{"a cluster the stage does not list", "c", binding(nil, ro("ro-9")), true},
	} {
		if got := overridesAsPinned(st, tc.cluster, tc.b); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
