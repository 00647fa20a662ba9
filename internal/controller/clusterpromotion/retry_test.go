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

package clusterpromotion

import (
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
)

// TestRetryPhase: a retry token acted on once puts the annotation on the stage's profile, clears
// the stage failure, gives the deadline a new start and halts the pass; the same token again does
// nothing; a rolled-back version is not retried.
func TestRetryPhase(t *testing.T) {
	failedAt := func(rollback bool) *configv1beta1.ClusterPromotion {
		prod := stage("prod", nil)
		zero := intstr.FromInt32(0)
		prod.MaxFailures, prod.ProgressDeadline = &zero, &metav1.Duration{Duration: time.Hour}
		p := at(promotion(stage("dev", nil), prod), "prod", t0.Add(-2*time.Hour))
		p.Annotations = map[string]string{configv1beta1.RetryAnnotation: "tok prod/eu"}
		p.Status.Failure = &configv1beta1.PromotionFailure{Stage: "prod", ProfileSpecHash: p.Status.ProfileSpecHash, Message: "1 cluster fails"}
		msg := "stage prod failed"
		p.Status.Stages[1].FailureMessage = &msg
		if rollback {
			p.Status.Rollback = &configv1beta1.RollbackStatus{Stages: []string{"prod"}}
		}
		return p
	}
	t.Run("acted on once", func(t *testing.T) {
		p := failedAt(false)
		profile := &configv1beta1.ClusterProfile{}
		profile.Name = p.StageProfileName("prod")
		f := newFixture(t, p, profile)
		ps := f.r.newPass(p)
		ps.idx = 1
		if err := f.run(t, ps, f.r.stagePhase, f.r.retryPhase); !errors.Is(err, errHalt) {
			t.Fatalf("retryPhase = %v, want a halt", err)
		}
		if p.Status.Failure != nil || p.Status.Stages[1].FailureMessage != nil {
			t.Errorf("failure %+v, stage message %v: want both cleared", p.Status.Failure, p.Status.Stages[1].FailureMessage)
		}
		if dl := p.Status.Stages[1].ProgressDeadlineTime; dl == nil || !dl.Time.Equal(t0.Add(time.Hour)) {
			t.Errorf("deadline %v, want an hour from the retry", dl)
		}
		rt := p.Status.Retry
		if rt == nil || rt.Token != "tok" || rt.Cluster != "prod/eu" || rt.Stage != "prod" || !strings.Contains(rt.Message, "cleared the stage failure: 1 cluster fails") {
			t.Errorf("status.retry %+v", rt)
		}
		if err := f.c.Get(t.Context(), client.ObjectKeyFromObject(profile), profile); err != nil {
			t.Fatal(err)
		}
		if got := profile.Annotations[configv1beta1.RetryAnnotation]; got != "tok prod/eu" {
			t.Errorf("the stage's profile has retry %q", got)
		}
		if ev := f.emitted(); len(ev) != 1 || !strings.HasPrefix(ev[0], "Normal Retrying retrying cluster prod/eu of stage prod on the same version") {
			t.Errorf("events %q", ev)
		}
		again := f.r.newPass(p)
		again.idx = 1
		if err := f.run(t, again, f.r.stagePhase, f.r.retryPhase); err != nil {
			t.Errorf("the same token again: %v", err)
		}
	})
	t.Run("status lost in a restart", func(t *testing.T) {
		// The controller stops after writing the profile and before writing the status: the
		// next pass reads the promotion as it was, and does the same again.
		p := failedAt(false)
		profile := &configv1beta1.ClusterProfile{}
		profile.Name = p.StageProfileName("prod")
		f := newFixture(t, p, profile)
		for range 2 {
			lost := p.DeepCopy()
			ps := f.r.newPass(lost)
			ps.idx = 1
			if err := f.run(t, ps, f.r.stagePhase, f.r.retryPhase); !errors.Is(err, errHalt) {
				t.Fatalf("retryPhase = %v, want a halt", err)
			}
			if lost.Status.Failure != nil || lost.Status.Retry == nil || lost.Status.Retry.Token != "tok" {
				t.Errorf("failure %+v, retry %+v", lost.Status.Failure, lost.Status.Retry)
			}
		}
		if err := f.c.Get(t.Context(), client.ObjectKeyFromObject(profile), profile); err != nil {
			t.Fatal(err)
		}
		if got := profile.Annotations[configv1beta1.RetryAnnotation]; got != "tok prod/eu" {
			t.Errorf("the stage's profile has retry %q", got)
		}
	})
	t.Run("rolled back", func(t *testing.T) {
		p := failedAt(true)
		f := newFixture(t, p)
		ps := f.r.newPass(p)
		ps.idx = 1
		if err := f.run(t, ps, f.r.stagePhase, f.r.retryPhase); err != nil {
			t.Fatalf("retryPhase = %v", err)
		}
		if p.Status.Failure == nil || p.Status.Retry == nil || p.Status.Retry.Message != retryRefusedRollback {
			t.Errorf("failure %+v, retry %+v: want the failure kept and the retry refused", p.Status.Failure, p.Status.Retry)
		}
	})
}

// TestTallyRetrying: a failed cluster that a retry has not reached yet counts as updating, not
// failed, and fails no stage; once reset it counts as what it is.
func TestTallyRetrying(t *testing.T) {
	profile := &configv1beta1.ClusterProfile{}
	profile.Name = "web-prod"
	profile.Annotations = map[string]string{configv1beta1.RetryAnnotation: "tok"}
	profile.Spec.PolicyRefs = []configv1beta1.PolicyRef{{Kind: "ConfigMap", Namespace: "default", Name: "web"}}
	msg := "exceeded quota"
	cs := &configv1beta1.ClusterSummary{}
	cs.Name = "web-prod-sveltos-eu"
	cs.Spec.ClusterNamespace, cs.Spec.ClusterName = "prod", "eu"
	cs.Spec.ClusterProfileSpec = profile.Spec
	cs.Status.FeatureSummaries = []configv1beta1.FeatureSummary{{FeatureID: libv1beta1.FeatureResources, Status: libv1beta1.FeatureStatusFailedNonRetriable, FailureMessage: &msg}}
	matching := []corev1.ObjectReference{{Namespace: "prod", Name: "eu"}}
	st := tally(nil, profile, matching, nil, map[string]*configv1beta1.ClusterSummary{"prod/eu": cs})
	if st.failed != "" || st.regressed || st.clusters["failed"] != 0 || !strings.Contains(st.waitingOn, "is being retried") {
		t.Errorf("not reached yet: %+v", st)
	}
	cs.Status.RetryToken = "tok"
	if st := tally(nil, profile, matching, nil, map[string]*configv1beta1.ClusterSummary{"prod/eu": cs}); st.failed == "" {
		t.Errorf("acted on, and failed again: %+v", st)
	}
}
