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

package operate

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

// summary is the ClusterSummary of stage prod of promotion web for cluster prod/name, failed for
// good when failed.
func summary(name string, failed bool) *configv1beta1.ClusterSummary {
	cs := &configv1beta1.ClusterSummary{ObjectMeta: metav1.ObjectMeta{Name: "web-prod-sveltos-" + name, Namespace: "prod",
		Labels: map[string]string{configv1beta1.ClusterProfileNameLabel: "web-prod"}}}
	cs.Spec.ClusterNamespace, cs.Spec.ClusterName = "prod", name
	status := libv1beta1.FeatureStatusProvisioned
	if failed {
		status = libv1beta1.FeatureStatusFailedNonRetriable
	}
	cs.Status.FeatureSummaries = []configv1beta1.FeatureSummary{{FeatureID: libv1beta1.FeatureResources, Status: status}}
	return cs
}

// retried is p after the controller acted on the retry token (of cluster, or of every failed
// cluster) at its current stage.
func retried(p *configv1beta1.ClusterPromotion, token, cluster string) *configv1beta1.ClusterPromotion {
	p.Annotations = map[string]string{configv1beta1.RetryAnnotation: configv1beta1.FormatRetry(token, cluster)}
	p.Status.Retry = &configv1beta1.PromotionRetry{Token: token, Stage: p.Status.CurrentStageName, Cluster: cluster, ProfileSpecHash: p.Status.ProfileSpecHash}
	return p
}

// took is cs after it acted on the retry token.
func took(cs *configv1beta1.ClusterSummary, token string) *configv1beta1.ClusterSummary {
	cs.Annotations = map[string]string{configv1beta1.RetryAnnotation: token}
	cs.Status.RetryToken = token
	return cs
}

func TestRetryPromotion(t *testing.T) {
	at := func(failure bool, rollback bool) *configv1beta1.ClusterPromotion {
		p := promotionAt(v2, v1)
		p.Spec.Stages = []configv1beta1.Stage{{Name: "dev"}, {Name: "prod"}}
		p.Status.CurrentStageName = "prod"
		if failure {
			p.Status.Failure = &configv1beta1.PromotionFailure{Stage: "prod", ProfileSpecHash: v2, Message: "1 cluster fails"}
		}
		if rollback {
			p.Status.Rollback = &configv1beta1.RollbackStatus{ToProfileSpecHash: v1, Stages: []string{"prod"}}
		}
		return p
	}
	for _, tc := range []struct {
		name          string
		p             *configv1beta1.ClusterPromotion
		summaries     []client.Object
		cluster       string
		want, wantErr string
	}{
		{name: "every failed cluster, stage failed", p: at(true, false), summaries: []client.Object{summary("eu", true), summary("us", false), summary("ap", true)},
			want: "retrying stage prod of ClusterPromotion web on version 22222222: prod/ap, prod/eu; its stage failure is cleared, and the failure budget counts again"},
		{name: "one cluster", p: at(false, false), summaries: []client.Object{summary("eu", true), summary("ap", true)}, cluster: "prod/eu",
			want: "retrying stage prod of ClusterPromotion web on version 22222222: prod/eu"},
		{name: "a cluster that has not failed", p: at(false, false), summaries: []client.Object{summary("eu", true), summary("us", false)}, cluster: "prod/us",
			wantErr: "cluster prod/us has not failed in stage prod of ClusterPromotion web: there is nothing to retry there; its failed clusters are prod/eu"},
		{name: "not a cluster", p: at(false, false), summaries: []client.Object{summary("eu", true)}, cluster: "eu",
			wantErr: `cluster "eu": name it NAMESPACE/NAME`},
		{name: "not a cluster either", p: at(false, false), summaries: []client.Object{summary("eu", true)}, cluster: "prod/eu/x",
			wantErr: `cluster "prod/eu/x": name it NAMESPACE/NAME`},
		{name: "the last retry not taken yet", p: retried(at(false, false), "t1", "prod/eu"), summaries: []client.Object{summary("eu", true), summary("ap", true)}, cluster: "prod/ap",
			wantErr: "a retry of prod/eu is still under way (ClusterSummary prod/web-prod-sveltos-eu has not taken it); wait until it is taken"},
		{name: "the last retry of every failed cluster not taken yet", p: retried(at(false, false), "t1", ""), summaries: []client.Object{took(summary("eu", true), "t1"), summary("ap", true)},
			wantErr: "a retry of the failed clusters of stage prod is still under way (ClusterSummary prod/web-prod-sveltos-ap has not taken it)"},
		{name: "the last retry taken", p: retried(at(false, false), "t1", "prod/eu"), summaries: []client.Object{took(summary("eu", true), "t1"), summary("ap", true)}, cluster: "prod/ap",
			want: "retrying stage prod of ClusterPromotion web on version 22222222: prod/ap"},
		{name: "nothing failed", p: at(false, false), summaries: []client.Object{summary("us", false)},
			wantErr: "stage prod of ClusterPromotion web has no failed cluster and has not failed: there is nothing to retry"},
		{name: "a stage failure alone", p: at(true, false), want: "retrying stage prod of ClusterPromotion web on version 22222222; its stage failure is cleared, and the failure budget counts again"},
		{name: "rolled back", p: at(true, true), summaries: []client.Object{summary("eu", true)},
			wantErr: "ClusterPromotion web rolled version 22222222 back (or is rolling it back): there is nothing to retry on it"},
		{name: "not started", p: promotionAt(nil, nil), wantErr: "ClusterPromotion web has not started rolling anything out: there is nothing to retry"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(append(tc.summaries, tc.p)...).Build()
			got, err := RetryPromotion(t.Context(), c, "web", tc.cluster)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("RetryPromotion = %q, %v; want %q", got, err, tc.want)
			}
			p := &configv1beta1.ClusterPromotion{}
			if err := c.Get(t.Context(), client.ObjectKey{Name: "web"}, p); err != nil {
				t.Fatal(err)
			}
			token, cluster := configv1beta1.ParseRetry(p.Annotations[configv1beta1.RetryAnnotation])
			if token == "" || cluster != tc.cluster {
				t.Errorf("annotation %q: token %q, cluster %q; want a token and cluster %q", p.Annotations[configv1beta1.RetryAnnotation], token, cluster, tc.cluster)
			}
			// Asked again before the controller acted, it says so.
			if again, err := RetryPromotion(t.Context(), c, "web", tc.cluster); err != nil || !strings.Contains(again, "already has a retry") {
				t.Errorf("again: %q, %v", again, err)
			}
		})
	}
}

func TestRetryableStage(t *testing.T) {
	cond := func(typ string, status metav1.ConditionStatus) metav1.Condition {
		return metav1.Condition{Type: typ, Status: status, Reason: "r"}
	}
	succeeded := cond(string(placementv1beta1.StageUpdatingConditionSucceeded), metav1.ConditionTrue)
	failedStage := cond(string(placementv1beta1.StageUpdatingConditionSucceeded), metav1.ConditionFalse)
	run := func(initialized metav1.ConditionStatus, succeededRun *metav1.ConditionStatus, rollback string, stages ...[]metav1.Condition) *placementv1beta1.ClusterStagedUpdateRun {
		r := &placementv1beta1.ClusterStagedUpdateRun{ObjectMeta: metav1.ObjectMeta{Name: "r"}}
		r.Status.Conditions = []metav1.Condition{cond(string(placementv1beta1.StagedUpdateRunConditionInitialized), initialized)}
		if succeededRun != nil {
			r.Status.Conditions = append(r.Status.Conditions, cond(string(placementv1beta1.StagedUpdateRunConditionSucceeded), *succeededRun))
		}
		r.Status.RollbackRunName = rollback
		for i, c := range stages {
			r.Status.StagesStatus = append(r.Status.StagesStatus, placementv1beta1.StageUpdatingStatus{StageName: []string{"dev", "prod"}[i], Conditions: c})
		}
		return r
	}
	f, tr := metav1.ConditionFalse, metav1.ConditionTrue
	for _, tc := range []struct {
		name          string
		run           *placementv1beta1.ClusterStagedUpdateRun
		want, wantErr string
	}{
		{"failed at its second stage", run(tr, &f, "", []metav1.Condition{succeeded}, []metav1.Condition{failedStage}), "prod", ""},
		{"failed at its first stage", run(tr, &f, "", []metav1.Condition{failedStage}, nil), "dev", ""},
		{"aborted between stages", run(tr, &f, "", []metav1.Condition{succeeded}, nil), "prod", ""},
		{"at its deletion stage", run(tr, &f, "", []metav1.Condition{succeeded}, []metav1.Condition{succeeded}), placementv1beta1.UpdateRunDeleteStageName, ""},
		{"succeeded", run(tr, &tr, "", []metav1.Condition{succeeded}), "", "ClusterStagedUpdateRun r has not failed (Succeeded): only a failed run can be retried"},
		{"running", run(tr, nil, "", nil), "", "ClusterStagedUpdateRun r has not failed"},
		{"never started", run(f, nil, ""), "", "ClusterStagedUpdateRun r failed before it started"},
		{"rolled back", run(tr, &f, "r-rollback", []metav1.Condition{failedStage}), "", "ClusterStagedUpdateRun r was rolled back by r-rollback"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := RetryableStage(tc.run)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("RetryableStage = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
