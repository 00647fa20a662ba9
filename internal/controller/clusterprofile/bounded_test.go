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
	"encoding/json"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
)

func clusterRefs(n int) []corev1.ObjectReference {
	var out []corev1.ObjectReference
	for i := range n {
		out = append(out, clusterKey{Namespace: "fleet", Name: fmt.Sprintf("c%03d", i)}.Ref())
	}
	return out
}

// TestBoundLists: lists within the limit are left as they are, with no counts; past it every
// list is cut to its first clusters and the counts carry the lengths computed.
func TestBoundLists(t *testing.T) {
	tests := []struct {
		name                                string
		matching, updating, updated, failed int
		wantListed                          [4]int
		wantCounts                          bool
	}{
		{"none", 0, 0, 0, 0, [4]int{}, false},
		{"at the limit", 3, 1, 2, 3, [4]int{3, 1, 2, 3}, false},
		{"matching past it", 5, 1, 4, 0, [4]int{3, 1, 3, 0}, true},
		{"failed past it", 3, 0, 0, 4, [4]int{3, 0, 0, 3}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := configv1beta1.Status{MatchingClusterRefs: clusterRefs(tc.matching),
				UpdatingClusters: configv1beta1.Clusters{Clusters: clusterRefs(tc.updating)},
				UpdatedClusters:  configv1beta1.Clusters{Clusters: clusterRefs(tc.updated)}}
			for _, ref := range clusterRefs(tc.failed) {
				st.FailedClusters = append(st.FailedClusters, configv1beta1.FailedCluster{ClusterRef: ref, FailureMessage: "unreachable"})
			}
			counts := listedCounts(&st)
			boundLists(&st, counts, 3)
			got := [4]int{len(st.MatchingClusterRefs), len(st.UpdatingClusters.Clusters), len(st.UpdatedClusters.Clusters), len(st.FailedClusters)}
			if got != tc.wantListed {
				t.Errorf("listed %v, want %v", got, tc.wantListed)
			}
			want := configv1beta1.ProfileClusterCounts{Matching: int32(tc.matching), Updating: int32(tc.updating), Updated: int32(tc.updated), Failed: int32(tc.failed)}
			switch {
			case !tc.wantCounts && st.ClusterCounts != nil:
				t.Errorf("counts %+v, want none", *st.ClusterCounts)
			case tc.wantCounts && (st.ClusterCounts == nil || *st.ClusterCounts != want):
				t.Errorf("counts %+v, want %+v", st.ClusterCounts, want)
			}
			// A later pass that recomputes nothing keeps the counts.
			if tc.wantCounts && listedCounts(&st) != want {
				t.Errorf("counts read back %+v", listedCounts(&st))
			}
		})
	}
}

// TestStatusSizeAt20000Clusters measures the status of a profile matching 20,000 clusters
// (names of 20 characters), all of them in every list: the worst case, far beyond a real one.
func TestStatusSizeAt20000Clusters(t *testing.T) {
	var refs []corev1.ObjectReference
	for i := range 20000 {
		name := fmt.Sprintf("member-cluster-%05d", i)
		refs = append(refs, clusterKey{Namespace: name, Name: name}.Ref())
	}
	now := metav1.Now()
	st := configv1beta1.Status{MatchingClusterRefs: refs, ObservedGeneration: 1,
		UpdatingClusters: configv1beta1.Clusters{Hash: make([]byte, 32), Clusters: refs},
		UpdatedClusters:  configv1beta1.Clusters{Hash: make([]byte, 32), Clusters: refs}}
	for _, ref := range refs {
		st.FailedClusters = append(st.FailedClusters, configv1beta1.FailedCluster{ClusterRef: ref, LastFailureTime: &now,
			FailureMessage: "not updated yet: the cluster is unreachable: Get \"https://10.0.0.1:6443/version\": dial tcp: i/o timeout"})
	}
	boundLists(&st, listedCounts(&st), DefaultMaxListedClusters)
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("status: %d bytes", len(data))
	if len(data) > 600_000 {
		t.Errorf("the status is %d bytes", len(data))
	}
}
