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

package view

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// example is a promotion with a stage of each kind: done, waiting on a failing cluster, and one
// not reached, larger than it lists.
func example() *Rollout {
	dev := Stage{Name: "dev", State: Succeeded, Clusters: []Cluster{{Name: "dev/dev-1", State: Succeeded, Runs: "kyverno/kyverno 3.6.2"}}}
	staging := Stage{Name: "staging", State: Waiting, WaitingFor: "Paused: Awaiting Manual Approval", Clusters: []Cluster{
		{Name: "staging/s-2", State: Succeeded, Runs: "kyverno/kyverno 3.6.2"},
		{Name: "staging/s-1", State: Failed, Runs: "kyverno/kyverno 3.6.2", Reason: "Resources: deployment kyverno is not available"},
		{Name: "staging/s-3", State: Unreachable, Runs: "kyverno/kyverno 3.5.2", Reason: "unreachable: dial tcp 10.0.0.3:6443: connection refused"},
	}}
	prod := Stage{Name: "prod", State: Pending, Clusters: []Cluster{
		{Name: "prod/p-3", State: Pending, Runs: "kyverno/kyverno 3.5.2"},
		{Name: "prod/p-1", State: Pending, Runs: "kyverno/kyverno 3.5.2"},
		{Name: "prod/p-2", State: Pending, Runs: "kyverno/kyverno 3.5.2"},
		{Name: "prod/p-4", State: Paused, Runs: "kyverno/kyverno 3.5.2", Reason: "paused: nothing is deployed to it and no stage waits for it"},
	}}
	two := intstr.FromInt32(2)
	preview(&prod, &two)
	dev.finish(2)
	staging.finish(2)
	prod.finish(2)
	return &Rollout{Kind: "ClusterPromotion", Name: "kyverno", Version: "3f2a9c1d", State: Waiting,
		Message: "stage staging: Cluster staging/s-1, Resources: deployment kyverno is not available", Stages: []Stage{dev, staging, prod}}
}

// TestGolden draws the example as plain text, for a terminal, and as JSON, against the files in
// testdata (go test -run TestGolden -update rewrites them).
func TestGolden(t *testing.T) {
	for file, write := range map[string]func(*bytes.Buffer, *Rollout) error{
		"plain.golden":    func(b *bytes.Buffer, r *Rollout) error { return WriteText(b, r, TextOptions{}) },
		"terminal.golden": func(b *bytes.Buffer, r *Rollout) error { return WriteText(b, r, TextOptions{Color: true}) },
		"json.golden": func(b *bytes.Buffer, r *Rollout) error {
			e := json.NewEncoder(b)
			e.SetIndent("", "  ")
			return e.Encode(r)
		},
	} {
		t.Run(file, func(t *testing.T) {
			var b bytes.Buffer
			if err := write(&b, example()); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", file)
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -run TestGolden -update creates it)", err)
			}
			if got := b.String(); got != string(want) {
				t.Errorf("got:\n%s\nwant (%s):\n%s", got, golden, want)
			}
		})
	}
}

// TestStageLists: a stage lists what needs attention first, counts every cluster, and says how
// many it leaves out.
func TestStageLists(t *testing.T) {
	staging := example().Stages[1]
	if got := []string{staging.Clusters[0].Name, staging.Clusters[1].Name}; got[0] != "staging/s-1" || got[1] != "staging/s-3" {
		t.Errorf("listed %v, want the failed then the unreachable cluster", got)
	}
	if staging.Total() != 3 || staging.Counts[Succeeded] != 1 {
		t.Errorf("counts %v", staging.Counts)
	}
	for _, s := range []State{Succeeded, Failed, RolledBack} {
		if !s.Final() {
			t.Errorf("%s is not final", s)
		}
	}
	if Waiting.Final() || Suspended.Final() {
		t.Error("a waiting or suspended rollout is final")
	}
}

// TestPreview: a stage not reached yet says how many clusters it will cover, in how many waves of
// maxUpdate, and which it leaves out; paused clusters take no wave, nor unreachable ones with
// maxUpdate (without it, the one wave holds them and waits for them).
func TestPreview(t *testing.T) {
	clusters := []Cluster{{Name: "p/a", State: Pending}, {Name: "p/b", State: Pending}, {Name: "p/c", State: Pending},
		{Name: "p/d", State: Paused}, {Name: "p/e", State: Unreachable}}
	for _, tc := range []struct {
		limit *intstr.IntOrString
		waves int
		want  string
	}{
		{nil, 1, "not reached yet: 5 clusters, 1 wave; paused, left out: p/d; unreachable, the stage will wait for it: p/e"},
		{ptr(intstr.FromInt32(2)), 2, "not reached yet: 5 clusters, 2 waves of up to 2; paused, left out: p/d; unreachable, left out of its wave and will catch up: p/e"},
		{ptr(intstr.FromString("20%")), 3, "not reached yet: 5 clusters, 3 waves of up to 1; paused, left out: p/d; unreachable, left out of its wave and will catch up: p/e"},
	} {
		st := Stage{Name: "prod", State: Pending, Clusters: slices.Clone(clusters)}
		preview(&st, tc.limit)
		if st.Waves != tc.waves || st.WaitingFor != tc.want {
			t.Errorf("maxUpdate %v: %d waves, %q; want %d, %q", tc.limit, st.Waves, st.WaitingFor, tc.waves, tc.want)
		}
	}
	empty := Stage{Name: "none", State: Pending}
	if preview(&empty, nil); empty.Waves != 0 || empty.WaitingFor != "not reached yet: 0 clusters, 0 waves" {
		t.Errorf("empty stage: %d waves, %q", empty.Waves, empty.WaitingFor)
	}
}

// TestOutOfStep: a stage under way or passed marks the clusters its status lists as catching up,
// and names them with the paused ones.
func TestOutOfStep(t *testing.T) {
	st := Stage{Name: "dev", State: Succeeded, Clusters: []Cluster{{Name: "d/a", State: Succeeded},
		{Name: "d/b", State: Progressing, Reason: "deploying"}, {Name: "d/c", State: Paused}}}
	outOfStep(&st, &configv1beta1.StageStatus{PausedClusters: []string{"d/c"}, CatchingUpClusters: []string{"d/b"}})
	if want := "paused, not waited for: d/c; catching up, not waited for: d/b"; st.WaitingFor != want {
		t.Errorf("waitingFor %q, want %q", st.WaitingFor, want)
	}
	if st.Clusters[1].Reason != "catching up; deploying" || !slices.Equal(st.CatchingUp, []string{"d/b"}) {
		t.Errorf("clusters %+v, catching up %v", st.Clusters, st.CatchingUp)
	}
}

func ptr[T any](v T) *T { return &v }
