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
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/helm"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/manifests"
)

// reasonDryRun marks a feature of a DryRun profile: nothing was deployed, the report says what would be.
const reasonDryRun = "DryRun"

func (d *deployment) reportDryRun(ctx context.Context, f *configv1beta1.FeatureSummary, hash []byte, res manifests.Result) {
	var b strings.Builder
	counts := map[manifests.DiffAction]int{}
	for _, diff := range res.Diffs {
		counts[diff.Action]++
		fmt.Fprintf(&b, "%s %s", diff.Action, diff.Object)
		if diff.Message != "" {
			fmt.Fprintf(&b, ": %s", diff.Message)
		}
		b.WriteString("\n")
		for _, c := range diff.Changes {
			fmt.Fprintf(&b, "    %s\n", c)
		}
	}
	summary := fmt.Sprintf("dry run: %d objects would change (%s)", len(res.Diffs), describeCounts(counts))
	key := "resources"
	if f.FeatureID == libv1beta1.FeatureKustomize {
		key = "kustomize"
	}
	d.writeReport(ctx, f, hash, key, summary, b.String())
}

func (d *deployment) reportHelmDryRun(ctx context.Context, f *configv1beta1.FeatureSummary, hash []byte, plans []helm.Plan) {
	var b strings.Builder
	changing := 0
	for _, p := range plans {
		fmt.Fprintf(&b, "%s %s/%s", p.Action, p.Namespace, p.Release)
		if p.FromVersion != "" || p.ToVersion != "" {
			fmt.Fprintf(&b, " (%s -> %s)", orNone(p.FromVersion), orNone(p.ToVersion))
		}
		b.WriteString("\n")
		if p.Diff != "" {
			changing++
			b.WriteString(p.Diff)
			if !strings.HasSuffix(p.Diff, "\n") {
				b.WriteString("\n")
			}
		}
	}
	summary := fmt.Sprintf("dry run: %d of %d releases would change", changing, len(plans))
	d.writeReport(ctx, f, hash, "helm", summary, b.String())
}

// writeReport stores one feature's report in the summary's report ConfigMap and points the
// feature summary at it.
func (d *deployment) writeReport(ctx context.Context, f *configv1beta1.FeatureSummary, hash []byte, key, summary, report string) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: configv1beta1.DryRunReportName(d.cs.Name), Namespace: d.cs.Namespace}}
	_, err := controllerutil.CreateOrUpdate(ctx, d.r.client, cm, func() error {
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data[key] = truncateReport(d.secretValues.Redact(report))
		return controllerutil.SetControllerReference(d.cs, cm, d.r.client.Scheme())
	})
	if err != nil && !apierrors.IsConflict(err) {
		d.fail(f, hash, fmt.Errorf("writing the dry-run report: %w", err))
		return
	}
	reason := reasonDryRun
	msg := fmt.Sprintf("%s; nothing was changed; see ConfigMap %s/%s key %q", summary, cm.Namespace, cm.Name, key)
	f.Hash, f.Status = hash, libv1beta1.FeatureStatusProvisioning
	f.ConsecutiveFailures = 0
	f.FailureReason, f.FailureMessage = &reason, &msg
}

// maxReportBytes bounds each report in the ConfigMap, so that the reports of both features stay
// well below the API's 1 MiB object limit however big the diff.
const maxReportBytes = 256 << 10

// truncateReport cuts a report at a line boundary below maxReportBytes and says so.
func truncateReport(report string) string {
	if len(report) <= maxReportBytes {
		return report
	}
	cut := strings.LastIndexByte(report[:maxReportBytes], '\n') + 1
	return report[:cut] + fmt.Sprintf("… report truncated: %d more bytes not shown\n", len(report)-cut)
}

func describeCounts(counts map[manifests.DiffAction]int) string {
	var parts []string
	for action, n := range counts {
		parts = append(parts, fmt.Sprintf("%d %s", n, strings.ToLower(string(action))))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
