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
	"crypto/sha256"
	"encoding/json"
	"maps"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

// versionHash identifies what a profile rolls out, its spec and the content it reads;
// updatingClusters and updatedClusters refer to it.
func versionHash(profile *configv1beta1.ClusterProfile, content map[string]string) []byte {
	data, _ := json.Marshal(struct {
		Spec    *configv1beta1.Spec `json:"spec"`
		Content map[string]string   `json:"content,omitempty"`
	}{&profile.Spec, content}) // plain API structs: cannot fail
	sum := sha256.Sum256(data)
	return sum[:]
}

// rolloutTargets says where each matching cluster stands in the rollout of the profile's
// current spec: pending (no summary, or one with an older spec), updating (the current spec,
// not yet provisioned and healthy) or updated.
func rolloutTargets(profile *configv1beta1.ClusterProfile, content map[string]string, matching []clusterKey, unavailable map[clusterKey]string,
	summaries map[clusterKey]*configv1beta1.ClusterSummary) []rollout.Target {
	targets := make([]rollout.Target, 0, len(matching))
	for _, k := range matching {
		t := rollout.Target{Name: k.Namespace + "/" + k.Name, Unavailable: unavailable[k]}
		if cs := summaries[k]; cs != nil && cs.DeletionTimestamp.IsZero() && runsCurrentSpec(profile, content, cs) {
			t.State = rollout.Updating
			if cs.Provisioned() {
				t.State = rollout.Updated
			}
		}
		targets = append(targets, t)
	}
	return targets
}

// runsCurrentSpec: the summary has the profile's spec and its current content.
func runsCurrentSpec(profile *configv1beta1.ClusterProfile, content map[string]string, cs *configv1beta1.ClusterSummary) bool {
	return profile.Spec.SyncMode == configv1beta1.SyncModeOneTime ||
		(equality.Semantic.DeepEqual(cs.Spec.ClusterProfileSpec, profile.Spec) && maps.Equal(cs.Spec.FrozenContent, content))
}

// recordWave writes the rollout's progress to the profile status, as Sveltos does: the lists
// refer to the current spec hash, and are emptied once every cluster is updated.
func recordWave(st *configv1beta1.Status, hash []byte, wave rollout.Wave) {
	if wave.Done() {
		st.UpdatingClusters, st.UpdatedClusters = configv1beta1.Clusters{}, configv1beta1.Clusters{}
		return
	}
	st.UpdatingClusters = configv1beta1.Clusters{Hash: hash, Clusters: refs(append(append([]string{}, wave.Updating...), wave.Start...))}
	st.UpdatedClusters = configv1beta1.Clusters{Hash: hash, Clusters: refs(wave.Updated)}
}

func refs(names []string) []corev1.ObjectReference {
	var out []corev1.ObjectReference
	for _, n := range names {
		ns, name, _ := strings.Cut(n, "/")
		out = append(out, clusterKey{Namespace: ns, Name: name}.Ref())
	}
	return out
}
