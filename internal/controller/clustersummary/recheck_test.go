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

package clustersummary

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
	"github.com/stagecoach-dev/stagecoach/internal/shard"
)

// fleetOfSummaries registers n clusters, those from sharded on in shard s1, each with one
// promotion stage's summary and one summary of a plain ClusterProfile.
func fleetOfSummaries(n, sharded int) client.Client {
	var objs []client.Object
	for i := range n {
		cl := &libv1beta1.SveltosCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "eng", Name: fmt.Sprintf("c%d", i)}}
		if i >= sharded {
			cl.Annotations = map[string]string{libv1beta1.ShardAnnotation: "s1"}
		}
		staged := provisionedSummary(fmt.Sprintf("stage-sveltos-c%d", i), configv1beta1.ClusterProfileNameLabel, "stage")
		staged.Labels[configv1beta1.PromotionNameLabel] = "rollout"
		plain := provisionedSummary(fmt.Sprintf("plain-sveltos-c%d", i), configv1beta1.ClusterProfileNameLabel, "plain")
		staged.Spec.ClusterName, plain.Spec.ClusterName = cl.Name, cl.Name
		objs = append(objs, cl, staged, plain)
	}
	return fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).Build()
}

// TestRecheckInterval: passing checks come back every health interval while the replica's
// watched summaries fit MaxRecheckRate; past that, every watched ÷ rate seconds on average,
// counting only the promotion stages' summaries of the replica's own shard.
func TestRecheckInterval(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name            string
		clusters, owned int
		key             shard.Key
		rate            float64
		mean            time.Duration
	}{
		{name: "small fleet", clusters: 50, owned: 50, rate: 20, mean: 5 * time.Second},
		{name: "at the rate", clusters: 100, owned: 100, rate: 20, mean: 5 * time.Second},
		{name: "paced", clusters: 400, owned: 400, rate: 20, mean: 20 * time.Second},
		{name: "default shard counts its own", clusters: 400, owned: 200, rate: 20, mean: 10 * time.Second},
		{name: "other shard counts its own", clusters: 400, owned: 300, key: "s1", rate: 20, mean: 15 * time.Second},
		{name: "no cap", clusters: 400, owned: 400, rate: -1, mean: 5 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sharded := tc.owned
			if tc.key != "" {
				sharded = tc.clusters - tc.owned
			}
			r := NewReconciler(Options{Client: fleetOfSummaries(tc.clusters, sharded), Shard: tc.key,
				HealthInterval: 5 * time.Second, MaxRecheckRate: tc.rate})
			var sum time.Duration
			const draws = 400
			for range draws {
				d := r.recheckInterval(ctx)
				if d < 5*time.Second || d < tc.mean/2 || d >= tc.mean*3/2+time.Millisecond {
					t.Fatalf("interval %v, want within [%v, %v)", d, max(5*time.Second, tc.mean/2), tc.mean*3/2)
				}
				sum += d
			}
			if mean := sum / draws; mean < tc.mean*9/10 || mean > tc.mean*11/10 {
				t.Errorf("mean interval %v, want about %v", mean, tc.mean)
			}
		})
	}
}

// TestRecheckAfterARestart: a summary this process finds provisioned has its passing checks
// run again on its next pass, not as the cache fills; one whose checks this process ran is
// rechecked whenever it comes round; one forgotten starts over.
func TestRecheckAfterARestart(t *testing.T) {
	var p recheckPace
	if p.due("found") {
		t.Error("a summary found provisioned was rechecked on its first pass")
	}
	if !p.due("found") {
		t.Error("a summary found provisioned was not rechecked on its next pass")
	}
	p.ran("deployed")
	if !p.due("deployed") {
		t.Error("a summary whose checks this process ran was not rechecked")
	}
	p.forget("found")
	if p.due("found") {
		t.Error("a summary forgotten and seen again was rechecked on its first pass")
	}
}
