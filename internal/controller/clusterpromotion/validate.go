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
	"context"
	"fmt"
	"strings"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

// validatePhase stops at a spec that cannot be acted on as written: nothing moves, and nothing
// deployed changes, until it is fixed.
func (r *Reconciler) validatePhase(_ context.Context, ps *pass) error {
	if ps.invalid = invalid(ps.p); ps.invalid != "" {
		return errHalt
	}
	return nil
}

// invalid says what in the promotion's stages and deny windows cannot be acted on as written, naming each
// field; empty when everything can. The API server cannot check everything: a
// preHealthCheckDeployment is stored as written (it has two shapes), so a misspelled key would
// otherwise read as "no pre-health-check deployment" and the validation step be skipped.
func invalid(p *configv1beta1.ClusterPromotion) string {
	var msgs []string
	for i, s := range p.Spec.Stages {
		if _, err := rollout.MaxFailures(s.MaxFailures, 0); err != nil {
			msgs = append(msgs, fmt.Sprintf("spec.stages[%d].%v", i, err))
		}
		if s.Trigger == nil {
			continue
		}
		if a := s.Trigger.Auto; a != nil {
			if err := a.PreHealthCheckDeployment.Err(); err != nil {
				msgs = append(msgs, fmt.Sprintf("spec.stages[%d].trigger.auto.%v", i, err))
			}
		}
		if m := s.Trigger.Manual; m != nil {
			if err := m.PreHealthCheckDeployment.Err(); err != nil {
				msgs = append(msgs, fmt.Sprintf("spec.stages[%d].trigger.manual.%v", i, err))
			}
		}
	}
	if _, err := rollout.ParseDenyWindows(p.Spec.DenyWindows); err != nil {
		msgs = append(msgs, "spec."+err.Error())
	}
	return strings.Join(msgs, "; ")
}
