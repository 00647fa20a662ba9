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

package clusterprofile

import (
	"context"
	"strings"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

// validatePhase halts the pass of a spec that cannot be rolled out as written, and resolves
// maxUpdate for one that can. A halted pass leaves every ClusterSummary as it is, so nothing
// deployed is withdrawn until the spec is fixed.
func (r *Reconciler) validatePhase(_ context.Context, ps *pass) error {
	msg := refused(ps.spec)
	if msg == "" {
		limit, err := rollout.MaxUpdate(ps.spec.MaxUpdate, len(ps.matching))
		if err == nil {
			ps.limit = limit
			return nil
		}
		msg = "spec.maxUpdate: " + err.Error()
	}
	ps.invalid = msg
	r.warnInvalid(ps, msg)
	return errHalt
}

// refused lists the spec fields Stagecoach does not implement and will not ignore: a profile
// with any of them is not rolled out (and nothing it deployed is touched) until they are taken
// out, so that nobody believes they work.
func refused(spec *configv1beta1.Spec) string {
	var msgs []string
	if len(spec.SetRefs) > 0 {
		msgs = append(msgs, "spec.setRefs: ClusterSets are not supported; select the clusters with clusterSelector or clusterRefs")
	}
	if len(spec.PreDeleteChecks) > 0 {
		msgs = append(msgs, "spec.preDeleteChecks: checks before content is withdrawn are not supported; leave them out")
	}
	if len(spec.PostDeleteChecks) > 0 {
		msgs = append(msgs, "spec.postDeleteChecks: checks after content is withdrawn are not supported; leave them out")
	}
	return strings.Join(msgs, "; ")
}
