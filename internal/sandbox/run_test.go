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

package sandbox

import (
	"slices"
	"testing"
)

func TestToBootstrap(t *testing.T) {
	clusters := []clusterState{{Name: "mgmt"}, {Name: "a", Managed: true}, {Name: "a-b", Managed: true}}
	tests := []struct {
		name         string
		bootstrapped bool
		started      []string
		want         []string
	}{
		{"never ready: every cluster", false, nil, []string{"mgmt", "a", "a-b"}},
		{"nothing started", true, nil, nil},
		{"one API server", true, []string{"a-kube-apiserver"}, []string{"a"}},
		{"a cluster whose name another's starts with", true, []string{"a-b-kwok"}, []string{"a-b"}},
		{"etcd holds every cluster", true, []string{"etcd"}, []string{"mgmt", "a", "a-b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := &state{Clusters: clusters, Bootstrapped: tc.bootstrapped}
			started := map[string]bool{}
			for _, name := range tc.started {
				started[name] = true
			}
			var got []string
			for _, c := range st.toBootstrap(started) {
				got = append(got, c.Name)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("bootstrapped %v, want %v", got, tc.want)
			}
		})
	}
}
