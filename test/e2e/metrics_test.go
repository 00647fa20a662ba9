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
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestMetricsFollowAPromotion scrapes /metrics as Prometheus would while a promotion waits for
// its manual approval and after it moves on.
func TestMetricsFollowAPromotion(t *testing.T) {
	t.Parallel()
	const name = "e2e-metrics"
	srv := httptest.NewServer(promhttp.HandlerFor(crmetrics.Registry, promhttp.HandlerOpts{}))
	t.Cleanup(srv.Close)
	// scrapeUntil waits until every pattern matches a line of /metrics, or, prefixed with "!",
	// none does.
	scrapeUntil := func(wants ...string) {
		t.Helper()
		testenv.Eventually(t, timeout, func(ctx context.Context) error {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
			if err != nil {
				return err
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return err
			}
			defer func() { _ = resp.Body.Close() }()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				return err
			}
			for _, want := range wants {
				absent := strings.HasPrefix(want, "!")
				if regexp.MustCompile("(?m)^"+strings.TrimPrefix(want, "!")).Match(body) == absent {
					return fmt.Errorf("/metrics: %s (absent: %v) does not hold", want, absent)
				}
			}
			return nil
		})
	}

	createConfigMap(t, name, map[string]string{"cm.yaml": configMapManifest(name, "settings", "v1")})
	p := promotion(name, name,
		stage("staging", "qa", &configv1beta1.Trigger{Manual: &configv1beta1.ManualTrigger{Approved: ptr(false)}}),
		stage("production", "prod", nil))
	createPromotion(t, p)
	scrapeUntil(
		`stagecoach_promotion_current_stage_index\{promotion="e2e-metrics",stage="staging"\} 0$`,
		`stagecoach_promotion_stage_clusters\{promotion="e2e-metrics",stage="staging",state="done"\} 1$`,
		`stagecoach_promotion_waiting\{promotion="e2e-metrics",reason="Paused: Awaiting Manual Approval",stage="staging"\} 1$`,
		`stagecoach_approvals_waiting\{kind="ClusterPromotion",name="e2e-metrics",namespace=""\} 1$`,
		`stagecoach_promotion_time_in_stage_seconds\{promotion="e2e-metrics",stage="staging"\} `,
		`stagecoach_cluster_connected\{kind="SveltosCluster",name="prod",namespace="prod"\} 1$`,
		`stagecoach_deploy_duration_seconds_count\{feature="Resources",result="succeeded"\} [1-9]`,
	)

	patch := []byte(`[{"op": "replace", "path": "/spec/stages/0/trigger/manual/approved", "value": true}]`)
	if err := testenv.Client(t).Patch(t.Context(), p, client.RawPatch(types.JSONPatchType, patch)); err != nil {
		t.Fatal(err)
	}
	scrapeUntil(
		`stagecoach_promotion_current_stage_index\{promotion="e2e-metrics",stage="production"\} 1$`,
		`stagecoach_promotion_stage_clusters\{promotion="e2e-metrics",stage="production",state="done"\} 1$`,
		`!stagecoach_promotion_stage_clusters\{promotion="e2e-metrics",stage="staging"`,
		`stagecoach_promotion_condition\{promotion="e2e-metrics",reason="[^"]*",status="True",type="Ready"\} 1$`,
		`!stagecoach_approvals_waiting\{kind="ClusterPromotion",name="e2e-metrics"`,
		`!stagecoach_promotion_waiting\{promotion="e2e-metrics"`,
	)
}
