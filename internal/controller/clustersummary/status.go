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
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/tenancy"
)

// The feature lifecycle of a ClusterSummary, decided without a client: when a feature is up to
// date, how a failure is recorded and retried, and when a summary counts as provisioned.

// permanentError marks a failure that retrying the same configuration cannot fix.
type permanentError struct{ error }

func (e permanentError) Unwrap() error { return e.error }

func permanent(err error) error { return permanentError{err} }

// Failure reasons written to featureSummaries[].failureReason.
const (
	reasonDeployFailed   = "DeployFailed"
	reasonInvalidContent = "InvalidContent"
	reasonTooManyRetries = "TooManyConsecutiveFailures"
	reasonClusterDown    = "ClusterNotReady"
)

// feature returns the summary of a feature, adding an empty one when there is none.
func feature(st *configv1beta1.ClusterSummaryStatus, id libv1beta1.FeatureID) *configv1beta1.FeatureSummary {
	for i := range st.FeatureSummaries {
		if st.FeatureSummaries[i].FeatureID == id {
			return &st.FeatureSummaries[i]
		}
	}
	st.FeatureSummaries = append(st.FeatureSummaries, configv1beta1.FeatureSummary{FeatureID: id})
	return &st.FeatureSummaries[len(st.FeatureSummaries)-1]
}

func dropFeature(st *configv1beta1.ClusterSummaryStatus, id libv1beta1.FeatureID) {
	st.FeatureSummaries = slices.DeleteFunc(st.FeatureSummaries, func(f configv1beta1.FeatureSummary) bool { return f.FeatureID == id })
	st.DeployedGVKs = slices.DeleteFunc(st.DeployedGVKs, func(d libv1beta1.FeatureDeploymentInfo) bool { return d.FeatureID == id })
}

// upToDate reports whether the feature already runs this hash and needs nothing done: it was
// provisioned, or it failed in a way only a new configuration can fix.
func upToDate(f *configv1beta1.FeatureSummary, hash []byte) bool {
	if !bytes.Equal(f.Hash, hash) {
		return false
	}
	return f.Status == libv1beta1.FeatureStatusProvisioned || f.Status == libv1beta1.FeatureStatusFailedNonRetriable
}

// begin records, before a feature's content changes on the cluster, the spec it is about to
// deploy: the status no longer says the feature is provisioned with the spec before. A process
// that dies during the deployment leaves that record, so the next pass deploys again, also when
// the spec has by then gone back to the one the status named before (a rollback) while the
// cluster holds part of the newer one. It reports whether the pass may go on: a status that
// could not be written (a stale read, say) ends it, and it runs again.
func (d *deployment) begin(ctx context.Context, f *configv1beta1.FeatureSummary, hash []byte) bool {
	if d.flushErr != nil {
		return false
	}
	if bytes.Equal(f.Hash, hash) || d.dryRun() {
		return true
	}
	f.Hash, f.Status = hash, libv1beta1.FeatureStatusProvisioning
	f.ConsecutiveFailures = 0
	f.FailureReason, f.FailureMessage = nil, nil
	if err := d.flush(ctx); err != nil {
		d.flushErr = err
		return false
	}
	return true
}

func markProvisioned(f *configv1beta1.FeatureSummary, hash []byte) {
	now := metav1.Now()
	f.Hash = hash
	f.Status = libv1beta1.FeatureStatusProvisioned
	f.LastAppliedTime = &now
	f.ConsecutiveFailures = 0
	f.FailureReason, f.FailureMessage = nil, nil
}

// takeRetry acts on a stagecoach.dev/retry annotation the summary has not acted on yet: when it
// concerns its cluster, its failed features (FailedNonRetriable included) start over, as if they
// had never failed, and are deployed again on the same spec. The token is recorded either way, so
// that the retry acts once, across restarts too.
func takeRetry(cs *configv1beta1.ClusterSummary) bool {
	if !cs.RetryPending() {
		if token, _ := configv1beta1.ParseRetry(cs.Annotations[configv1beta1.RetryAnnotation]); token != "" {
			cs.Status.RetryToken = token
		}
		return false
	}
	cs.Status.RetryToken, _ = configv1beta1.ParseRetry(cs.Annotations[configv1beta1.RetryAnnotation])
	retried := false
	for i := range cs.Status.FeatureSummaries {
		f := &cs.Status.FeatureSummaries[i]
		if f.Status != libv1beta1.FeatureStatusFailed && f.Status != libv1beta1.FeatureStatusFailedNonRetriable {
			continue
		}
		f.Status = libv1beta1.FeatureStatusProvisioning
		f.ConsecutiveFailures = 0
		f.FailureReason, f.FailureMessage = nil, nil
		retried = true
	}
	return retried
}

// markFailed records a failed deployment. A permanent error, or one failure too many when
// maxConsecutiveFailures is set, makes it FailedNonRetriable: it is not retried until the
// configuration changes.
func markFailed(f *configv1beta1.FeatureSummary, hash []byte, err error, maxFailures *uint) {
	if !bytes.Equal(f.Hash, hash) {
		f.ConsecutiveFailures = 0
	}
	f.Hash = hash
	msg := tenancy.WithImpersonationHint(err.Error())
	reason := reasonDeployFailed
	f.Status = libv1beta1.FeatureStatusFailed
	var perm permanentError
	if isHealthError(err) {
		// Not healthy yet is not a failure to count: a Deployment becoming available takes the
		// time it takes, and the check is simply run again.
		reason = reasonHealthCheck
		f.FailureReason, f.FailureMessage = &reason, &msg
		return
	}
	f.ConsecutiveFailures++
	switch {
	case errors.As(err, &perm) || isPermanent(err):
		reason = reasonInvalidContent
		f.Status = libv1beta1.FeatureStatusFailedNonRetriable
	case maxFailures != nil && *maxFailures > 0 && f.ConsecutiveFailures >= *maxFailures:
		reason = reasonTooManyRetries
		f.Status = libv1beta1.FeatureStatusFailedNonRetriable
		msg = fmt.Sprintf("the maximum number of consecutive errors (%d) has been reached: %s", *maxFailures, msg)
	}
	f.FailureReason, f.FailureMessage = &reason, &msg
}

func setDeployedGVKs(st *configv1beta1.ClusterSummaryStatus, id libv1beta1.FeatureID, gvks []string) {
	st.DeployedGVKs = slices.DeleteFunc(st.DeployedGVKs, func(d libv1beta1.FeatureDeploymentInfo) bool { return d.FeatureID == id })
	if len(gvks) == 0 {
		return
	}
	gvks = slices.Clone(gvks)
	slices.Sort(gvks)
	st.DeployedGVKs = append(st.DeployedGVKs, libv1beta1.FeatureDeploymentInfo{FeatureID: id, DeployedGroupVersionKind: slices.Compact(gvks)})
}

// backoff is how long a feature that failed n times in a row waits before the next attempt.
func backoff(n uint) time.Duration {
	d := 2 * time.Second
	for i := uint(1); i < n && d < 2*time.Minute; i++ {
		d *= 2
	}
	return min(d, 2*time.Minute)
}

func shortest(a, b time.Duration) time.Duration {
	if a == 0 || (b != 0 && b < a) {
		return b
	}
	return a
}
