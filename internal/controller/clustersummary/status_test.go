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
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

// TestMarkFailed walks a feature through the failures the lifecycle tells apart: a health check
// that is not green yet (not counted), a retriable error (counted, retried), one too many
// (failed for good), a permanent one (failed for good at once), and a new configuration (the
// count starts over).
func TestMarkFailed(t *testing.T) {
	h1, h2 := []byte("one"), []byte("two")
	for _, tc := range []struct {
		name        string
		start       configv1beta1.FeatureSummary
		hash        []byte
		err         error
		max         *uint
		status      libv1beta1.FeatureStatus
		failures    uint
		reason      string
		messageHas  string
		upToDateNow bool
	}{
		{name: "a retriable error is counted and retried", hash: h1, err: errors.New("connection refused"),
			status: libv1beta1.FeatureStatusFailed, failures: 1, reason: reasonDeployFailed, messageHas: "connection refused"},
		{name: "an unhealthy feature is not a failure to count",
			start: configv1beta1.FeatureSummary{Hash: h1, ConsecutiveFailures: 2}, hash: h1,
			err:    &healthError{check: "ready", feature: libv1beta1.FeatureHelm, err: errors.New("0 of 1 replicas available")},
			status: libv1beta1.FeatureStatusFailed, failures: 2, reason: reasonHealthCheck, messageHas: `health check "ready"`},
		{name: "a check that cannot run is permanent", hash: h1,
			err:    permanent(&healthError{check: "bad lua", feature: libv1beta1.FeatureHelm, err: errors.New("syntax error")}),
			status: libv1beta1.FeatureStatusFailedNonRetriable, failures: 1, reason: reasonInvalidContent, upToDateNow: true},
		{name: "one failure too many is final",
			start: configv1beta1.FeatureSummary{Hash: h1, ConsecutiveFailures: 2}, hash: h1, err: errors.New("boom"), max: ptr.To[uint](3),
			status: libv1beta1.FeatureStatusFailedNonRetriable, failures: 3, reason: reasonTooManyRetries,
			messageHas: "the maximum number of consecutive errors (3) has been reached: boom", upToDateNow: true},
		{name: "a new configuration starts the count over",
			start: configv1beta1.FeatureSummary{Hash: h1, ConsecutiveFailures: 2}, hash: h2, err: errors.New("boom"), max: ptr.To[uint](3),
			status: libv1beta1.FeatureStatusFailed, failures: 1, reason: reasonDeployFailed},
		{name: "a permanent error fails for good at once", hash: h1, err: permanent(errors.New("bad YAML")),
			status: libv1beta1.FeatureStatusFailedNonRetriable, failures: 1, reason: reasonInvalidContent, upToDateNow: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.start
			markFailed(&f, tc.hash, tc.err, tc.max)
			if f.Status != tc.status || f.ConsecutiveFailures != tc.failures {
				t.Errorf("status %s, %d failures; want %s, %d", f.Status, f.ConsecutiveFailures, tc.status, tc.failures)
			}
			if f.FailureReason == nil || *f.FailureReason != tc.reason {
				t.Errorf("reason %v, want %s", f.FailureReason, tc.reason)
			}
			if f.FailureMessage == nil || !strings.Contains(*f.FailureMessage, tc.messageHas) {
				t.Errorf("message %v does not say %q", f.FailureMessage, tc.messageHas)
			}
			if got := upToDate(&f, tc.hash); got != tc.upToDateNow {
				t.Errorf("upToDate %v, want %v", got, tc.upToDateNow)
			}
			if upToDate(&f, []byte("another")) {
				t.Error("a failed feature is up to date with another configuration")
			}
		})
	}
}

// TestBeginRecordsTheSpecFirst: before a feature's content changes, the status says which spec is
// being deployed, so that a process killed during the deployment leaves no status claiming the
// spec before is provisioned, which a rollback to that spec would take as done.
func TestBeginRecordsTheSpecFirst(t *testing.T) {
	cs := &configv1beta1.ClusterSummary{}
	cs.Status.FeatureSummaries = []configv1beta1.FeatureSummary{{FeatureID: libv1beta1.FeatureHelm, Hash: []byte("old"),
		Status: libv1beta1.FeatureStatusProvisioned, ConsecutiveFailures: 2}}
	var flushed []configv1beta1.FeatureSummary
	var flushErr error
	d := &deployment{cs: cs, flush: func(context.Context) error {
		flushed = append(flushed, *cs.Status.FeatureSummaries[0].DeepCopy())
		return flushErr
	}}
	f := &cs.Status.FeatureSummaries[0]
	if !d.begin(context.Background(), f, []byte("new")) || len(flushed) != 1 {
		t.Fatalf("begin with a new spec: %d flushes, want 1", len(flushed))
	}
	if got := flushed[0]; string(got.Hash) != "new" || got.Status != libv1beta1.FeatureStatusProvisioning || got.ConsecutiveFailures != 0 {
		t.Errorf("flushed %+v, want the new hash, Provisioning and no failures", got)
	}
	if upToDate(f, []byte("old")) || upToDate(f, []byte("new")) {
		t.Error("a feature being deployed is up to date with a spec")
	}
	// The same spec again (a retry, a pass after a kill): recorded already.
	if !d.begin(context.Background(), f, []byte("new")) || len(flushed) != 1 {
		t.Errorf("begin with the recorded spec flushed again (%d flushes)", len(flushed))
	}
	// A status that cannot be written ends the pass before anything is deployed.
	flushErr = errors.New("conflict")
	if d.begin(context.Background(), f, []byte("newer")) || d.begin(context.Background(), f, []byte("new")) || d.flushErr == nil {
		t.Error("begin went on after the status could not be written")
	}
}

func TestMarkProvisionedClearsFailures(t *testing.T) {
	reason, msg := reasonDeployFailed, "boom"
	f := configv1beta1.FeatureSummary{Hash: []byte("old"), Status: libv1beta1.FeatureStatusFailed, ConsecutiveFailures: 4,
		FailureReason: &reason, FailureMessage: &msg}
	markProvisioned(&f, []byte("new"))
	if f.Status != libv1beta1.FeatureStatusProvisioned || f.ConsecutiveFailures != 0 || f.FailureReason != nil ||
		f.FailureMessage != nil || f.LastAppliedTime == nil {
		t.Fatalf("not a clean provisioned feature: %+v", f)
	}
	if !upToDate(&f, []byte("new")) || upToDate(&f, []byte("old")) {
		t.Error("provisioned feature is not up to date with exactly its hash")
	}
}

func TestBackoff(t *testing.T) {
	for n, want := range map[uint]time.Duration{0: 2 * time.Second, 1: 2 * time.Second, 2: 4 * time.Second, 3: 8 * time.Second,
		7: 2 * time.Minute, 100: 2 * time.Minute} {
		if got := backoff(n); got != want {
			t.Errorf("backoff(%d) = %s, want %s", n, got, want)
		}
	}
	if shortest(0, time.Second) != time.Second || shortest(time.Second, 0) != time.Second || shortest(2*time.Second, time.Second) != time.Second {
		t.Error("shortest does not pick the shortest non-zero wait")
	}
}

func TestSetDeployedGVKs(t *testing.T) {
	st := &configv1beta1.ClusterSummaryStatus{}
	setDeployedGVKs(st, libv1beta1.FeatureResources, []string{"ConfigMap.v1.", "Deployment.v1.apps", "ConfigMap.v1."})
	setDeployedGVKs(st, libv1beta1.FeatureHelm, []string{"Service.v1."})
	setDeployedGVKs(st, libv1beta1.FeatureResources, []string{"Deployment.v1.apps", "ConfigMap.v1."})
	if len(st.DeployedGVKs) != 2 {
		t.Fatalf("one entry per feature expected: %+v", st.DeployedGVKs)
	}
	for _, d := range st.DeployedGVKs {
		if d.FeatureID == libv1beta1.FeatureResources && strings.Join(d.DeployedGroupVersionKind, " ") != "ConfigMap.v1. Deployment.v1.apps" {
			t.Errorf("resources GVKs not sorted and unique: %v", d.DeployedGroupVersionKind)
		}
	}
	dropFeature(st, libv1beta1.FeatureHelm)
	if len(st.DeployedGVKs) != 1 || hasFeature(st, libv1beta1.FeatureHelm) {
		t.Errorf("dropFeature left the Helm feature: %+v", st)
	}
}

func TestChecksFor(t *testing.T) {
	checks := []libv1beta1.ValidateHealth{{Name: "helm", FeatureID: libv1beta1.FeatureHelm}, {Name: "any"},
		{Name: "resources", FeatureID: libv1beta1.FeatureResources}}
	names := func(cs []libv1beta1.ValidateHealth) (out []string) {
		for _, c := range cs {
			out = append(out, c.Name)
		}
		return out
	}
	if got := names(checksFor(checks, libv1beta1.FeatureHelm, false)); strings.Join(got, ",") != "helm" {
		t.Errorf("Helm, not last: %v", got)
	}
	if got := names(checksFor(checks, libv1beta1.FeatureResources, true)); strings.Join(got, ",") != "any,resources" {
		t.Errorf("Resources, last: %v", got)
	}
}

func TestLabelSelector(t *testing.T) {
	got := fleet.LabelSelector([]libv1beta1.LabelFilter{
		{Key: "app", Operation: libv1beta1.OperationEqual, Value: "web"},
		{Key: "tier", Operation: libv1beta1.OperationDifferent, Value: "db"},
		{Key: "team", Operation: libv1beta1.OperationHas},
		{Key: "legacy", Operation: libv1beta1.OperationDoesNotHave},
	})
	if got != "app=web,tier!=db,team,!legacy" {
		t.Errorf("labelSelector = %q", got)
	}
}

func TestTruncateReport(t *testing.T) {
	short := "Create ConfigMap web/a\n"
	if truncateReport(short) != short {
		t.Error("a short report was changed")
	}
	long := strings.Repeat("Update Deployment web/app\n    spec.replicas: 2 -> 3\n", 20000)
	got := truncateReport(long)
	if len(got) > maxReportBytes+100 || !strings.Contains(got, "report truncated") {
		t.Errorf("a %d-byte report became %d bytes", len(long), len(got))
	}
	if i := strings.Index(got, "… report truncated"); got[i-1] != '\n' {
		t.Error("the report is not cut at a line boundary")
	}
}

// TestTakeRetry: a retry token the summary has not acted on resets its failed features, those
// failed for good included, once; a token for another cluster is recorded and changes nothing.
func TestTakeRetry(t *testing.T) {
	failed := func() *configv1beta1.ClusterSummary {
		cs := &configv1beta1.ClusterSummary{}
		cs.Spec.ClusterNamespace, cs.Spec.ClusterName = "prod", "eu"
		msg := "boom"
		cs.Status.FeatureSummaries = []configv1beta1.FeatureSummary{
			{FeatureID: libv1beta1.FeatureHelm, Status: libv1beta1.FeatureStatusFailedNonRetriable, ConsecutiveFailures: 3, FailureMessage: &msg},
			{FeatureID: libv1beta1.FeatureResources, Status: libv1beta1.FeatureStatusProvisioned},
		}
		return cs
	}
	for _, tc := range []struct {
		name, annotation, recorded string
		retried                    bool
	}{
		{"no annotation", "", "", false},
		{"a new token", "t1", "t1", true},
		{"for this cluster", "t2 prod/eu", "t2", true},
		{"for another cluster", "t3 prod/us", "t3", false},
		{"acted on already", "t0", "t0", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := failed()
			cs.Status.RetryToken = "t0"
			if tc.annotation != "" {
				cs.Annotations = map[string]string{configv1beta1.RetryAnnotation: tc.annotation}
			}
			if tc.recorded == "" {
				tc.recorded = "t0"
			}
			if got := takeRetry(cs); got != tc.retried {
				t.Errorf("takeRetry = %t, want %t", got, tc.retried)
			}
			helm := cs.Status.FeatureSummaries[0]
			if reset := helm.Status == libv1beta1.FeatureStatusProvisioning && helm.ConsecutiveFailures == 0 && helm.FailureMessage == nil; reset != tc.retried {
				t.Errorf("helm feature %+v, reset %t, want %t", helm, reset, tc.retried)
			}
			if cs.Status.FeatureSummaries[1].Status != libv1beta1.FeatureStatusProvisioned {
				t.Errorf("the provisioned feature became %s", cs.Status.FeatureSummaries[1].Status)
			}
			if cs.Status.RetryToken != tc.recorded {
				t.Errorf("retryToken %q, want %q", cs.Status.RetryToken, tc.recorded)
			}
			if takeRetry(cs) {
				t.Error("a second takeRetry retried again")
			}
		})
	}
}

// TestFirstCheckOfARevisionIsQuiet: the first health check of a revision just applied that does
// not pass yet is recorded in the status without a warning; the next one that fails, a
// regression of a provisioned feature, and any other failure are warnings.
func TestFirstCheckOfARevisionIsQuiet(t *testing.T) {
	recorder := events.NewFakeRecorder(10)
	d := &deployment{r: &Reconciler{recorder: recorder}, cs: &configv1beta1.ClusterSummary{},
		remote: &fleet.Remote{Ref: fleet.ClusterRef{Kind: fleet.KindSveltosCluster, Namespace: "fleet", Name: "east"}}}
	notReady := &healthError{check: "available", feature: libv1beta1.FeatureHelm, err: errors.New("Deployment web is not available yet")}
	hash := []byte("v2")
	warned := func() bool {
		select {
		case <-recorder.Events:
			return true
		default:
			return false
		}
	}

	f := &configv1beta1.FeatureSummary{FeatureID: libv1beta1.FeatureHelm, Hash: hash, Status: libv1beta1.FeatureStatusProvisioning}
	d.fail(f, hash, notReady)
	if warned() {
		t.Error("the first check of a revision just applied warned")
	}
	if f.Status != libv1beta1.FeatureStatusFailed || f.FailureReason == nil || *f.FailureReason != reasonHealthCheck {
		t.Errorf("status %s, reason %v: the status must say the check failed", f.Status, f.FailureReason)
	}
	d.fail(f, hash, notReady)
	if !warned() {
		t.Error("a check still failing on its next run did not warn")
	}

	provisioned := &configv1beta1.FeatureSummary{FeatureID: libv1beta1.FeatureHelm, Hash: hash, Status: libv1beta1.FeatureStatusProvisioned}
	d.fail(provisioned, hash, notReady)
	if !warned() {
		t.Error("a provisioned feature's check failing did not warn")
	}
	applying := &configv1beta1.FeatureSummary{FeatureID: libv1beta1.FeatureHelm, Hash: hash, Status: libv1beta1.FeatureStatusProvisioning}
	d.fail(applying, hash, errors.New("connection refused"))
	if !warned() {
		t.Error("a failed deployment did not warn")
	}
}
