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

package updaterun

import (
	"context"
	"fmt"
	"time"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	placementv1beta1 "github.com/stagecoach-dev/stagecoach/api/placement/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

// frozen says why a stage that has not started may not start now, a deny window of the run's
// strategy being open, and when to look again; "" when it may. The windows are the strategy's
// as it is now (the run's copy when the strategy is gone). Rollback runs are never held: they
// take a failing change back.
func (r *kindReconciler) frozen(ctx context.Context, ru *run, st *placementv1beta1.StageUpdatingStatus) (string, time.Duration, error) {
	if st.StartTime != nil || ru.GetAnnotations()[placementv1beta1.RollbackOfAnnotation] != "" {
		return "", 0, nil
	}
	windows := ru.status.UpdateStrategySnapshot.DenyWindows
	live, err := ru.inputs.strategy(ctx, ru.spec.StagedUpdateStrategyName)
	if err != nil {
		return "", 0, err
	}
	if live != nil {
		windows = live.DenyWindows
	}
	if len(windows) == 0 {
		return "", 0, nil
	}
	parsed := make([]configv1beta1.TimeWindow, len(windows))
	for i, w := range windows {
		parsed[i] = configv1beta1.TimeWindow{From: w.From, To: w.To}
	}
	deny, err := rollout.ParseDenyWindows(parsed)
	if err != nil {
		return fmt.Sprintf("stage %s may not start: the strategy's %v", st.StageName, err), time.Minute, nil
	}
	hold, held := rollout.HoldAt(nil, deny, ru.now.Time)
	if !held {
		return "", 0, nil
	}
	w := windows[hold.DenyWindow]
	msg := fmt.Sprintf("stage %s may not start: deny window %d (from %q to %q) is open", st.StageName, hold.DenyWindow, w.From, w.To)
	if hold.Until.IsZero() {
		return msg, time.Hour, nil
	}
	return msg + ", until " + hold.Until.UTC().Format(time.RFC3339), hold.Until.Sub(ru.now.Time), nil
}
