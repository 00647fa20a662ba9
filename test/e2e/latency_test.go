//go:build e2e

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

package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// BenchmarkPromotionLatency measures how long the promotion engine takes to start the next
// stage: from the moment the last ClusterSummary of a stage reports Provisioned (plus the soak
// delay, when there is one) to the moment the next stage's ClusterProfile exists. Both moments
// are seen through the same watch on the management cluster, so the figure is the engine's
// reaction time, not the deployment's. Run it with a count, e.g. -benchtime=10x.
func BenchmarkPromotionLatency(b *testing.B) {
	for _, tc := range []struct {
		name  string
		delay time.Duration
	}{{"provisioned", 0}, {"delay-over", 2 * time.Second}} {
		b.Run(tc.name, func(b *testing.B) {
			var latencies []time.Duration
			for i := 0; i < b.N; i++ {
				latencies = append(latencies, promotionLatency(b, fmt.Sprintf("bench-latency-%s-%d", tc.name, i), tc.delay))
			}
			slices.Sort(latencies)
			var sum time.Duration
			for _, l := range latencies {
				sum += l
			}
			b.ReportMetric(float64(sum.Milliseconds())/float64(len(latencies)), "ms-mean")
			b.ReportMetric(float64(latencies[len(latencies)/2].Milliseconds()), "ms-p50")
			b.ReportMetric(float64(latencies[len(latencies)-1].Milliseconds()), "ms-max")
		})
	}
}

// promotionLatency runs one two-stage promotion (dev, then staging) and returns the time from
// dev's ClusterSummary being provisioned, plus delay, to staging's ClusterProfile being created.
func promotionLatency(b *testing.B, name string, delay time.Duration) time.Duration {
	c, err := client.NewWithWatch(testenv.Fleet.Management.Config, client.Options{Scheme: scheme.New()})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(b.Context(), timeout)
	defer cancel()
	summaries, err := c.Watch(ctx, &configv1beta1.ClusterSummaryList{}, client.MatchingLabels{configv1beta1.ClusterProfileNameLabel: name + "-dev"})
	if err != nil {
		b.Fatal(err)
	}
	defer summaries.Stop()
	profiles, err := c.Watch(ctx, &configv1beta1.ClusterProfileList{}, client.MatchingFields{"metadata.name": name + "-staging"})
	if err != nil {
		b.Fatal(err)
	}
	defer profiles.Stop()

	var trigger *configv1beta1.Trigger
	if delay > 0 {
		trigger = &configv1beta1.Trigger{Auto: &configv1beta1.AutoTrigger{Delay: &metav1.Duration{Duration: delay}}}
	}
	// Each promotion deploys an object of its own: two owners of one object would conflict.
	createConfigMap(b, name, map[string]string{"cm.yaml": configMapManifest("bench-latency", name, "v1")})
	createPromotion(b, promotion(name, name, stage("dev", "dev", trigger), stage("staging", "staging", nil)))

	// The two watches are separate streams: either event may arrive first.
	var provisioned, started time.Time
	for provisioned.IsZero() || started.IsZero() {
		select {
		case ev := <-summaries.ResultChan():
			if cs, ok := ev.Object.(*configv1beta1.ClusterSummary); ok && provisioned.IsZero() && cs.Provisioned() {
				provisioned = time.Now()
			}
		case ev := <-profiles.ResultChan():
			if ev.Type == watch.Added && started.IsZero() {
				started = time.Now()
			}
		case <-ctx.Done():
			b.Fatalf("%s: provisioned at %v, next stage started at %v", name, provisioned, started)
		}
	}
	if delay == 0 {
		return started.Sub(provisioned)
	}
	// The soak counts from lastSuccessfulAppliedTime, which the engine stores rounded up to the
	// second: the delay is over at that time plus delay.
	p, err := getPromotion(ctx, b, name)
	if err != nil {
		b.Fatal(err)
	}
	return started.Sub(p.Status.Stages[0].LastSuccessfulAppliedTime.Add(delay))
}
