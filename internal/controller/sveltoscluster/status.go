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

package sveltoscluster

import (
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

// DefaultFailureThreshold is spec.consecutiveFailureThreshold when it is unset.
const DefaultFailureThreshold = fleet.DefaultFailureThreshold

func failureThreshold(c *libv1beta1.SveltosCluster) int {
	if c.Spec.ConsecutiveFailureThreshold > 0 {
		return c.Spec.ConsecutiveFailureThreshold
	}
	return DefaultFailureThreshold
}

// observe folds the outcome of one probe into the status: probeErr nil means the API server
// answered with version.
//
// One success makes the cluster ready and Healthy and forgets past failures. A failure is
// explained in failureMessage at once, but the cluster turns Down and not ready only once
// threshold probes in a row have failed, so that one lost packet does not stop a rollout.
// connectionFailures stops counting at the threshold: past it the number says nothing new, and a
// count rising forever would rewrite the status of every dead cluster at every probe.
func observe(status *libv1beta1.SveltosClusterStatus, threshold int, version string, probeErr error) {
	if probeErr == nil {
		status.Ready = true
		status.ConnectionStatus = libv1beta1.ConnectionHealthy
		status.Version = version
		status.FailureMessage = nil
		status.ConnectionFailures = 0
		return
	}
	msg := probeErr.Error()
	status.FailureMessage = &msg
	if status.ConnectionFailures < threshold {
		status.ConnectionFailures++
	}
	if status.ConnectionFailures >= threshold {
		status.Ready = false
		status.ConnectionStatus = libv1beta1.ConnectionDown
	}
}

func failureMessage(status libv1beta1.SveltosClusterStatus) string {
	if status.FailureMessage == nil {
		return ""
	}
	return *status.FailureMessage
}
