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

package rollout

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// MaxFailures is how many of a stage's total clusters may fail before the stage fails: nil is
// none, a number is itself, a percentage is of total, rounded down ("10%" of 5 clusters is 0).
func MaxFailures(v *intstr.IntOrString, total int) (int, error) {
	if v == nil {
		return 0, nil
	}
	if v.Type == intstr.Int {
		if v.IntVal < 0 {
			return 0, fmt.Errorf("maxFailures %d is negative", v.IntVal)
		}
		return int(v.IntVal), nil
	}
	s := strings.TrimSpace(v.StrVal)
	pct, isPct := strings.CutSuffix(s, "%")
	n, err := strconv.Atoi(pct)
	if err != nil || n < 0 || (isPct && n > 100) {
		return 0, fmt.Errorf("maxFailures %q is neither a number nor a percentage from 0%% to 100%%", v.StrVal)
	}
	if !isPct {
		return n, nil
	}
	return int(math.Floor(float64(n) * float64(total) / 100)), nil
}

// StageProgress is what the failure budget and the progress deadline of a stage look at.
type StageProgress struct {
	// Failing lists the stage's clusters whose deployment or health checks fail now, as
	// "namespace/name: reason", in order; only the first few are needed for messages.
	Failing []string
	// FailingCount is how many clusters fail, listed or not.
	FailingCount int
	// MaxFailures is the budget: how many may fail without failing the stage.
	MaxFailures int
	// Provisioned: every cluster of the stage is deployed and healthy.
	Provisioned bool
	// Deadline is when the stage fails unless provisioned by then; zero for none.
	Deadline time.Time
}

// FailuresNamed is how many failing clusters a stage failure names.
const FailuresNamed = 5

// StageFailure says why the stage failed, or "" while it has not: more clusters fail than the
// budget allows, or the deadline passed before every cluster was deployed and healthy.
func StageFailure(p StageProgress, now time.Time) string {
	if p.FailingCount > p.MaxFailures {
		noun := "clusters fail"
		if p.FailingCount == 1 {
			noun = "cluster fails"
		}
		return fmt.Sprintf("%d %s, more than maxFailures allows (%d): %s", p.FailingCount, noun, p.MaxFailures, names(p.Failing, p.FailingCount))
	}
	if !p.Provisioned && !p.Deadline.IsZero() && !now.Before(p.Deadline) {
		msg := fmt.Sprintf("the stage was not deployed and healthy by its progressDeadline (%s)", formatTime(p.Deadline))
		if p.FailingCount > 0 {
			msg += "; failing: " + names(p.Failing, p.FailingCount)
		}
		return msg
	}
	return ""
}

// names lists the first failing clusters and says how many more there are.
func names(failing []string, count int) string {
	shown := failing[:min(len(failing), FailuresNamed)]
	out := strings.Join(shown, "; ")
	if more := count - len(shown); more > 0 {
		out += fmt.Sprintf("; and %d more", more)
	}
	return out
}
