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

package chaos

import (
	"fmt"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// testRollout: stage a (c1) soaks 2s, stage b (c2, c3) updates one cluster at a time and needs an
// approval, stage c (c4).
var testRollout = &Rollout{
	Name: "test", Namespace: "ns", Deployment: "app", ConfigMap: "settings", Key: "message", HelmRelease: "app",
	Stages: []Stage{
		{Name: "a", Clusters: []string{"c1"}, Soak: 2 * time.Second},
		{Name: "b", Clusters: []string{"c2", "c3"}, MaxInFlight: 1, Approval: true},
		{Name: "c", Clusters: []string{"c4"}, Profile: "test-c"},
	},
}

// history builds records: each step is one write, a revision and 100ms after the one before.
type history struct {
	rev    int64
	at     time.Time
	writes []Write
	gen    map[string]int64
}

// newHistory continues from initial: every Deployment is at generation 1.
func newHistory() *history {
	h := emptyHistory()
	for _, c := range []string{"c1", "c2", "c3", "c4"} {
		h.gen[c] = 1
	}
	return h
}

func emptyHistory() *history {
	return &history{rev: 100, at: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), gen: map[string]int64{}}
}

func (h *history) add(w Write) *history {
	h.rev++
	h.at = h.at.Add(100 * time.Millisecond)
	w.Rev, w.At, w.Stamp, w.Namespace = h.rev, h.at, h.at.Truncate(time.Second), "ns"
	h.writes = append(h.writes, w)
	return h
}

func (h *history) wait(d time.Duration) *history { h.at = h.at.Add(d); return h }

// decide writes generation gen of a stage's ClusterProfile on the management cluster.
func (h *history) decide(profile string, gen int64) *history {
	h.add(Write{Cluster: "mgmt", Resource: "clusterprofiles", Name: profile,
		Object: &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: profile, Generation: gen}}})
	h.writes[len(h.writes)-1].Namespace = ""
	return h
}

// image writes a new Deployment spec: the cluster is updating until done.
func (h *history) image(cluster, img string) *history {
	h.gen[cluster]++
	return h.add(Write{Cluster: cluster, Resource: "deployments", Name: "app", Object: deployment(img, h.gen[cluster], h.gen[cluster]-1)})
}

// done writes the Deployment's status: every replica runs the spec.
func (h *history) done(cluster, img string) *history {
	return h.add(Write{Cluster: cluster, Resource: "deployments", Name: "app", Object: deployment(img, h.gen[cluster], h.gen[cluster])})
}

func (h *history) message(cluster, msg string) *history {
	return h.add(Write{Cluster: cluster, Resource: "configmaps", Name: "settings",
		Object: &corev1.ConfigMap{Data: map[string]string{"message": msg}}})
}

func (h *history) release(cluster string, version int, status string) *history {
	return h.add(Write{Cluster: cluster, Resource: "secrets", Name: fmt.Sprintf("sh.helm.release.v1.app.v%d", version),
		Object: &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{
			"owner": "helm", "name": "app", "version": fmt.Sprint(version), "status": status}}}})
}

// update is a whole update of one cluster to version v: release pending, objects, release
// deployed, Deployment done.
func (h *history) update(cluster string, v int) *history {
	return h.release(cluster, v+1, "pending-upgrade").message(cluster, msg(v)).image(cluster, img(v)).
		release(cluster, v+1, "deployed").done(cluster, img(v))
}

func (h *history) approve() (*history, int64) { h.add(Write{Cluster: "mgmt"}); return h, h.rev }

func deployment(image string, generation, observed int64) *appsv1.Deployment {
	one := int32(1)
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Generation: generation}}
	d.Spec.Replicas = &one
	d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "app", Image: image}}
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: observed, Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1}
	return d
}

// h0gen is the generation of a Deployment updated once after initial.
const h0gen = 2

// unavailable is a rolled-out Deployment that lost its replica.
func unavailable(image string, generation int64) *appsv1.Deployment {
	d := deployment(image, generation, generation)
	d.Status.AvailableReplicas = 0
	return d
}

func img(v int) string { return fmt.Sprintf("app:%d", v) }
func msg(v int) string { return fmt.Sprintf("m%d", v) }

// initial is every cluster settled on version 0.
func initial() []Write {
	h := emptyHistory()
	for _, c := range []string{"c1", "c2", "c3", "c4"} {
		h.update(c, 0)
	}
	return h.writes
}

func TestCheck(t *testing.T) {
	want := func(approval int64) Expect {
		return Expect{Image: img(1), Message: msg(1), Approvals: map[string]int64{img(1): approval, msg(1): approval}}
	}
	tests := []struct {
		name  string
		build func() (*history, int64)
		rules []string
	}{{
		name: "stage by stage, soaked, one at a time, approved",
		build: func() (*history, int64) {
			h := newHistory().update("c1", 1).wait(2*time.Second).update("c2", 1).update("c3", 1)
			h, a := h.approve()
			return h.update("c4", 1), a
		},
	}, {
		name: "a stage starts before the one before it is done",
		build: func() (*history, int64) {
			h, a := newHistory().approve()
			h.release("c1", 2, "pending-upgrade").message("c1", msg(1)).image("c1", img(1)).release("c1", 2, "deployed").
				update("c2", 1).wait(2*time.Second).done("c1", img(1)).update("c3", 1).update("c4", 1)
			return h, a
		},
		rules: []string{RuleOrder, RuleOrder},
	}, {
		name: "a stage starts before its soak is over",
		build: func() (*history, int64) {
			h, a := newHistory().update("c1", 1).wait(time.Second).update("c2", 1).update("c3", 1).approve()
			return h.update("c4", 1), a
		},
		rules: []string{RuleSoak, RuleSoak},
	}, {
		name: "two clusters of a wave update at once",
		build: func() (*history, int64) {
			h := newHistory().update("c1", 1).wait(2*time.Second).
				release("c2", 2, "pending-upgrade").release("c3", 2, "pending-upgrade").
				message("c2", msg(1)).image("c2", img(1)).release("c2", 2, "deployed").done("c2", img(1)).
				message("c3", msg(1)).image("c3", img(1)).release("c3", 2, "deployed").done("c3", img(1))
			h, a := h.approve()
			return h.update("c4", 1), a
		},
		rules: []string{RuleInFlight},
	}, {
		name: "a release left pending still holds the slot",
		build: func() (*history, int64) {
			h := newHistory().update("c1", 1).wait(2*time.Second).
				release("c2", 2, "pending-upgrade").update("c3", 1).
				release("c2", 2, "failed").release("c2", 3, "pending-upgrade").message("c2", msg(1)).image("c2", img(1)).
				release("c2", 3, "deployed").done("c2", img(1))
			h, a := h.approve()
			return h.update("c4", 1), a
		},
		rules: []string{RuleInFlight},
	}, {
		name: "a replica lost after its rollout is not an update",
		build: func() (*history, int64) {
			h := newHistory().update("c1", 1).wait(2*time.Second).update("c2", 1).
				add(Write{Cluster: "c2", Resource: "deployments", Name: "app", Object: unavailable(img(1), h0gen)}).
				update("c3", 1).done("c2", img(1))
			h, a := h.approve()
			return h.update("c4", 1), a
		},
	}, {
		name: "the last stage starts before the approval",
		build: func() (*history, int64) {
			h := newHistory().update("c1", 1).wait(2*time.Second).update("c2", 1).update("c3", 1).update("c4", 1)
			return h.approve()
		},
		rules: []string{RuleApproval, RuleApproval},
	}, {
		name: "deployed content is removed",
		build: func() (*history, int64) {
			h := newHistory().add(Write{Cluster: "c4", Resource: "configmaps", Name: "settings", Deleted: true}).
				update("c1", 1).wait(2*time.Second).update("c2", 1).update("c3", 1)
			h, a := h.approve()
			return h.update("c4", 1), a
		},
		rules: []string{RuleRemoved},
	}, {
		name: "a cluster never gets the new version",
		build: func() (*history, int64) {
			h := newHistory().update("c1", 1).wait(2*time.Second).update("c2", 1).update("c3", 1)
			return h.approve()
		},
		rules: []string{RuleConverged},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, approval := tc.build()
			var rules []string
			for _, v := range Check(testRollout, initial(), h.writes, want(approval)) {
				rules = append(rules, v.Rule)
				t.Log(v)
			}
			if !slices.Equal(rules, tc.rules) {
				t.Errorf("broken rules %q, want %q", rules, tc.rules)
			}
		})
	}
}

func TestPending(t *testing.T) {
	want := Expect{Image: img(1), Message: msg(1)}
	h := newHistory().update("c1", 1).update("c2", 1).update("c3", 1).release("c4", 2, "pending-upgrade")
	if got := Pending(testRollout, initial(), h.writes, want); got != `c4 on image "app:0", want "app:1"` {
		t.Errorf("Pending = %q", got)
	}
	h.update("c4", 1)
	if got := Pending(testRollout, initial(), h.writes, want); got != "" {
		t.Errorf("Pending = %q after the last update", got)
	}
}

// TestMarkKeepsTheRollout: a replica lost after a rollout, in one trial's window, is not taken
// for an update in the next one.
func TestMarkKeepsTheRollout(t *testing.T) {
	prev := newHistory().update("c1", 1).update("c2", 1).update("c3", 1).update("c4", 1).
		add(Write{Cluster: "c2", Resource: "deployments", Name: "app", Object: unavailable(img(1), h0gen)})
	r := &Recorder{initial: initial(), writes: prev.writes}
	r.Mark()
	initial, _, _ := r.Since()

	h := newHistory()
	for _, c := range []string{"c1", "c2", "c3", "c4"} {
		h.gen[c] = h0gen
	}
	h.rev = prev.rev
	h.update("c1", 2).wait(2*time.Second).update("c3", 2).update("c2", 2)
	h, a := h.approve()
	h.update("c4", 2)
	want := Expect{Image: img(2), Message: msg(2), Approvals: map[string]int64{img(2): a, msg(2): a}}
	for _, v := range Check(testRollout, initial, h.writes, want) {
		t.Error(v)
	}
}
