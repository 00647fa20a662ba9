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
	"context"
	"crypto/sha256"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/rollout"
)

// Event reasons of the active window.
const (
	reasonPaused              = "Paused"
	reasonResumed             = "Resumed"
	reasonInvalidActiveWindow = "InvalidActiveWindow"
)

// windowDecision is what the active window does to a cluster at one moment.
type windowDecision struct {
	// paused is the spec.paused to write; nil leaves it as it is.
	paused *bool
	// nextPause and nextUnpause are the window's next To and From activations.
	nextPause, nextUnpause time.Time
	hash                   []byte
	// problem says why the window cannot be followed; nothing else is set then.
	problem string
}

// decideWindow follows spec.activeWindow: the cluster is paused at each activation of To and
// resumed at each activation of From. A new or changed window sets spec.paused to what the
// window says now; after that, spec.paused is written only when a boundary passes, so pausing
// or resuming by hand holds until the next one.
func decideWindow(c *libv1beta1.SveltosCluster, now time.Time) windowDecision {
	aw := c.Spec.ActiveWindow
	w, err := rollout.ParseWindowAt("spec.activeWindow", aw.From, aw.To)
	if err != nil {
		return windowDecision{problem: err.Error() + "; the cluster is not paused or resumed on a schedule until it is fixed"}
	}
	h := sha256.Sum256([]byte(aw.From + "\n" + aw.To))
	d := windowDecision{hash: h[:]}
	d.nextUnpause, d.nextPause = w.Next(now)
	open, _ := w.State(now)
	st := c.Status
	pausePassed := st.NextPause != nil && !now.Before(st.NextPause.Time)
	unpausePassed := st.NextUnpause != nil && !now.Before(st.NextUnpause.Time)
	switch {
	case string(st.ActiveWindowHash) != string(d.hash), pausePassed && unpausePassed:
		d.paused = ptr.To(!open)
	case pausePassed:
		d.paused = ptr.To(true)
	case unpausePassed:
		d.paused = ptr.To(false)
	}
	return d
}

// followWindow applies the active window to the cluster: spec.paused, the status's next times,
// an Event when it pauses or resumes the cluster. It returns when the next boundary comes
// (zero without a window) and, for an invalid window, the problem to report.
func (r *Reconciler) followWindow(ctx context.Context, c *libv1beta1.SveltosCluster) (time.Time, string, error) {
	if c.Spec.ActiveWindow == nil {
		c.Status.NextPause, c.Status.NextUnpause, c.Status.ActiveWindowHash = nil, nil, nil
		return time.Time{}, "", nil
	}
	d := decideWindow(c, r.now())
	if d.problem != "" {
		return time.Time{}, d.problem, nil
	}
	if d.paused != nil && *d.paused != c.Spec.Paused {
		// A copy takes the patch: c holds the status this reconcile is computing.
		patched := c.DeepCopy()
		patched.Spec.Paused = *d.paused
		if err := r.client.Patch(ctx, patched, client.MergeFrom(c)); err != nil {
			return time.Time{}, "", fmt.Errorf("setting spec.paused to %t for the active window: %w", *d.paused, err)
		}
		c.Spec.Paused = *d.paused
		if c.Spec.Paused {
			r.recorder.Eventf(c, nil, corev1.EventTypeNormal, reasonPaused, "ActiveWindow",
				"The active window closed: nothing is deployed to the cluster until %s", formatTime(d.nextUnpause))
		} else {
			r.recorder.Eventf(c, nil, corev1.EventTypeNormal, reasonResumed, "ActiveWindow",
				"The active window opened: deployments to the cluster resume until %s", formatTime(d.nextPause))
		}
	}
	c.Status.NextPause, c.Status.NextUnpause, c.Status.ActiveWindowHash = timeOrNil(d.nextPause), timeOrNil(d.nextUnpause), d.hash
	next := d.nextPause
	if next.IsZero() || (!d.nextUnpause.IsZero() && d.nextUnpause.Before(next)) {
		next = d.nextUnpause
	}
	return next, "", nil
}

func timeOrNil(t time.Time) *metav1.Time {
	if t.IsZero() {
		return nil
	}
	return &metav1.Time{Time: t}
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format(time.RFC3339)
}
