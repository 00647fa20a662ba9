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
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/controller/specmemo"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

// planPhase plans the wave, the clusters the rollout of the current spec updates now as
// maxUpdate allows, and records it in the status.
func (r *Reconciler) planPhase(_ context.Context, ps *pass) error {
	ps.wave = rollout.PlanWave(rolloutTargets(ps.runsCurrent, ps.matching, ps.unavailable, ps.byCluster), ps.limit)
	_, ps.held = ps.profile.GetAnnotations()[configv1beta1.HoldRolloutAnnotation]
	if ps.held {
		// Clusters that have the current spec finish with it; no other cluster starts.
		ps.wave.Waiting, ps.wave.Start = append(ps.wave.Start, ps.wave.Waiting...), nil
	}
	recordWave(ps.status, versionHash(ps.spec, ps.content), ps.wave)
	ps.counts.Updating = int32(len(ps.status.UpdatingClusters.Clusters))
	ps.counts.Updated = int32(len(ps.status.UpdatedClusters.Clusters))
	return nil
}

// waitingPhase adds the clusters that wait for being paused or unreachable to the failed
// clusters, and lists those in the status. They take no update slot, but keep the one they hold.
func (r *Reconciler) waitingPhase(_ context.Context, ps *pass) error {
	previous := ps.status.FailedClusters
	for _, skipped := range ps.wave.Skipped {
		name, reason, _ := strings.Cut(skipped, ": ")
		ns, cl, _ := strings.Cut(name, "/")
		ps.failed = append(ps.failed, failedCluster(previous, clusterKey{Namespace: ns, Name: cl},
			errors.New("not updated yet: the cluster is "+reason)))
	}
	for _, held := range ps.wave.Held {
		name, reason, _ := strings.Cut(held, ": ")
		ns, cl, _ := strings.Cut(name, "/")
		if !slices.ContainsFunc(ps.failed, func(f configv1beta1.FailedCluster) bool {
			return f.ClusterRef.Namespace == ns && f.ClusterRef.Name == cl
		}) {
			ps.failed = append(ps.failed, failedCluster(previous, clusterKey{Namespace: ns, Name: cl},
				errors.New("the cluster became "+reason+" while updating: it keeps its update slot until it is updated")))
		}
	}
	ps.status.FailedClusters = ps.failed
	ps.counts.Failed = int32(len(ps.failed))
	ps.rolledOut = true
	return nil
}

// versionHash identifies what a profile rolls out, its spec and the content it reads;
// updatingClusters and updatedClusters refer to it.
func versionHash(spec *configv1beta1.Spec, content map[string]string) []byte {
	data, _ := json.Marshal(struct {
		Spec    *configv1beta1.Spec `json:"spec"`
		Content map[string]string   `json:"content,omitempty"`
	}{spec, content}) // plain API structs: cannot fail
	sum := sha256.Sum256(data)
	return sum[:]
}

// rolloutTargets says where each matching cluster stands in the rollout of the profile's
// current spec: pending (no summary, or one settled on an older spec), updating (the current
// spec, not yet provisioned and healthy) or updated. A cluster still in the middle of an older
// spec (the spec changed during its update: a rollback, say) is updating too: it is in flight,
// so it holds a slot, and it is given the current spec first.
func rolloutTargets(current func(*configv1beta1.ClusterSummary) bool, matching []clusterKey, unavailable map[clusterKey]string,
	summaries map[clusterKey]*configv1beta1.ClusterSummary) []rollout.Target {
	targets := make([]rollout.Target, 0, len(matching))
	for _, k := range matching {
		t := rollout.Target{Name: k.Namespace + "/" + k.Name, Unavailable: unavailable[k], Paused: unavailable[k] == "paused"}
		if cs := summaries[k]; cs != nil && cs.DeletionTimestamp.IsZero() {
			switch provisioned := cs.Provisioned(); {
			case current(cs) && provisioned:
				t.State = rollout.Updated
			case current(cs) || !provisioned:
				t.State = rollout.Updating
			}
		}
		targets = append(targets, t)
	}
	return targets
}

// runsCurrent: the summary has the profile's spec and its current content. The answer is
// remembered per generation of the summary and of the profile, and per content.
func (ps *pass) runsCurrent(cs *configv1beta1.ClusterSummary) bool {
	if ps.spec.SyncMode == configv1beta1.SyncModeOneTime {
		return true
	}
	if ps.version == nil {
		ps.version = &specmemo.Version{Profile: ps.profile.GetUID(), Generation: ps.profile.GetGeneration(), Extra: contentKey(ps.content)}
	}
	return ps.specs.Same(cs, *ps.version, func() bool { return runsCurrentSpec(ps.spec, ps.content, cs) })
}

// contentKey identifies the content a pass read: the names of its frozen copies, which change
// with it.
func contentKey(content map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(content)) {
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(content[k])
		b.WriteByte(0)
	}
	return b.String()
}

// runsCurrentSpec: the summary has the profile's spec and its current content.
func runsCurrentSpec(spec *configv1beta1.Spec, content map[string]string, cs *configv1beta1.ClusterSummary) bool {
	return spec.SyncMode == configv1beta1.SyncModeOneTime ||
		(equality.Semantic.DeepEqual(cs.Spec.ClusterProfileSpec, *spec) && maps.Equal(cs.Spec.FrozenContent, content))
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
