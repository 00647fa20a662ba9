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
	"fmt"
	"io"
	"net"
	"net/url"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/health"
	"github.com/stagecoach-dev/stagecoach/internal/metrics"
)

// reasonHealthCheck marks a feature deployed but not (yet) healthy: it is checked again soon,
// without the back-off of deployment failures.
const reasonHealthCheck = "HealthCheckFailed"

// healthError is a check that ran and found the cluster not healthy, or could not run.
type healthError struct {
	check   string
	feature libv1beta1.FeatureID
	pre     bool
	err     error
}

func (e *healthError) Error() string {
	kind := "health check"
	if e.pre {
		kind = "pre-deploy check"
	}
	return fmt.Sprintf("%s %q for feature %s failed: %v", kind, e.check, e.feature, e.err)
}

func (e *healthError) Unwrap() error { return e.err }

// checksFor selects the checks that run with a feature: those naming it, and those naming no
// feature when it is the last feature the spec deploys.
func checksFor(checks []libv1beta1.ValidateHealth, id libv1beta1.FeatureID, last bool) []libv1beta1.ValidateHealth {
	var out []libv1beta1.ValidateHealth
	for _, c := range checks {
		if c.FeatureID == id || (c.FeatureID == "" && last) {
			out = append(out, c)
		}
	}
	return out
}

// runChecks evaluates checks against the live objects of the cluster. A check that cannot be
// evaluated as written (a script that does not compile, an endless loop, a CEL type error) is a
// permanent failure; an unhealthy object or a missing one is a failure that is checked again.
func (d *deployment) runChecks(ctx context.Context, checks []libv1beta1.ValidateHealth, id libv1beta1.FeatureID, pre bool) (err error) {
	if len(checks) > 0 {
		defer func(start time.Time) { metrics.ObserveHealthCheck(pre, start, err) }(time.Now())
	}
	secrets := d.secretAccess()
	for i := range checks {
		c := &checks[i]
		fail := func(err error) error { return &healthError{check: c.CheckName(), feature: id, pre: pre, err: err} }
		if c.IsMetricOnly() || c.MetricSource != nil {
			return permanent(fail(errors.New("metric checks (metricSource, metricQueries) are not supported by Stagecoach")))
		}
		ev, err := health.Compile(c, health.Options{Getter: d.remote.GetObject, Secrets: secrets})
		if err != nil {
			return permanent(fail(err))
		}
		objs, err := checkTargets(ctx, d.remote, c)
		if err != nil {
			return fail(err)
		}
		for _, obj := range objs {
			res, err := ev.Evaluate(ctx, obj.Object)
			if ee, ok := health.AsEvalError(err); ok && (ee.Reason == health.ReasonGetResource || ee.Reason == health.ReasonTimeout) {
				// The managed cluster failed or was slow while the script read from it: check again.
				return fail(fmt.Errorf("%s %s: %w", obj.GetKind(), qualified(obj.GetNamespace(), obj.GetName()), err))
			}
			if _, ok := health.AsEvalError(err); ok || health.IsCompileError(err) {
				return permanent(fail(fmt.Errorf("%s %s: %w", obj.GetKind(), qualified(obj.GetNamespace(), obj.GetName()), err)))
			}
			if err != nil {
				return fail(err)
			}
			if !res.Healthy {
				return fail(fmt.Errorf("%s %s is not healthy: %s", obj.GetKind(), qualified(obj.GetNamespace(), obj.GetName()), res.Message))
			}
		}
	}
	return nil
}

// lastFeature reports whether id is the last feature the spec deploys something with, after
// which checks without a featureID run.
func (d *deployment) lastFeature(id libv1beta1.FeatureID) bool {
	ids := d.spec().FeaturesWithContent()
	return len(ids) > 0 && ids[len(ids)-1] == id
}

// preDeploy runs the feature's preDeployChecks; the feature is not deployed until they pass.
func (d *deployment) preDeploy(ctx context.Context, id libv1beta1.FeatureID) error {
	return d.runChecks(ctx, checksFor(d.spec().PreDeployChecks, id, d.lastFeature(id)), id, true)
}

// validate runs the feature's validateHealths once it is deployed; it counts as provisioned
// only when they pass.
func (d *deployment) validate(ctx context.Context, id libv1beta1.FeatureID) error {
	d.r.recheck.ran(d.cs.UID)
	return d.runChecks(ctx, checksFor(d.spec().ValidateHealths, id, d.lastFeature(id)), id, false)
}

// watchesHealth reports whether the summary's health is watched after deployment: a promotion
// decides each stage's gate on the health of its clusters at that moment, so the checks of its
// stages keep running, and a regression (during a soak, say) is seen.
func (d *deployment) watchesHealth() bool {
	return d.cs.Labels[configv1beta1.PromotionNameLabel] != ""
}

// recheck runs the health checks of a provisioned, up-to-date feature again when the summary's
// health is watched: a check that no longer passes makes the feature Failed, and it is
// redeployed and checked until it passes again.
func (d *deployment) recheck(ctx context.Context, f *configv1beta1.FeatureSummary, hash []byte) {
	if !d.watchesHealth() || d.dryRun() || f.Status != libv1beta1.FeatureStatusProvisioned {
		return
	}
	if !d.r.recheck.due(d.cs.UID) {
		// Provisioned before this process started (a restart, or another replica leading until
		// now), with its checks passing then. Running every such summary's checks as the cache
		// fills would crowd out the rollouts the restart interrupted: they run at the paced
		// interval instead, as they would have without the restart.
		return
	}
	err := d.validate(ctx, f.FeatureID)
	switch {
	case err == nil:
	case unanswered(err):
		// Not a regression: the check could not reach the cluster. Whether the cluster is
		// reachable is the probes' call (a cluster reported down stops being Ready, which holds
		// its stage), so the feature keeps the verdict of its last check, which runs again at
		// the health interval. Failing it would redeploy to a cluster that does not answer and,
		// for a cluster that drops out for seconds now and then, hold its stage for as long as
		// any of its checks happens to land in one of those seconds.
		d.unanswered = true
		ctrl.LoggerFrom(ctx).V(1).Info("health check could not reach the cluster", "feature", f.FeatureID, "reason", err.Error())
	default:
		d.fail(f, hash, err)
	}
}

// unanswered reports whether a check failed because the cluster did not answer (the
// connection was refused, reset or timed out, or the API server was unavailable), rather than
// because what it read was unhealthy, missing or refused.
func unanswered(err error) bool {
	if apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err) || apierrors.IsServiceUnavailable(err) || apierrors.IsTooManyRequests(err) {
		return true
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return false
	}
	if _, ok := errors.AsType[*url.Error](err); ok {
		return true
	}
	if _, ok := errors.AsType[net.Error](err); ok {
		return true
	}
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

// rechecked reports whether some feature of the summary is rechecked: the summary is then
// reconciled again every health interval.
func (d *deployment) rechecked() bool {
	if !d.watchesHealth() || d.dryRun() {
		return false
	}
	for _, id := range d.spec().FeaturesWithContent() {
		if len(checksFor(d.spec().ValidateHealths, id, d.lastFeature(id))) > 0 {
			return true
		}
	}
	return false
}

func isHealthError(err error) bool {
	var he *healthError
	return errors.As(err, &he) && !errors.As(err, new(permanentError))
}
