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

package helm

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"helm.sh/helm/v4/pkg/action"
	rcommon "helm.sh/helm/v4/pkg/release/common"
	release "helm.sh/helm/v4/pkg/release/v1"
	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"
	"sigs.k8s.io/yaml"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/deploy/restart"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

// DefaultRecoverAfterConsecutiveFailures is installOptions.recoverAfterConsecutiveFailures
// when unset, as upstream.
const DefaultRecoverAfterConsecutiveFailures = 5

// ConsecutiveFailures tells Deploy how many deployments of this chart's feature failed in a
// row before this one, for installOptions.recoverAfterConsecutiveFailures.
func ConsecutiveFailures(n uint) DeployOption { return func(c *deployCall) { c.failures = n } }

func (o options) recoverAfter() uint {
	if n := o.InstallOptions.RecoverAfterConsecutiveFailures; n > 0 {
		return uint(n)
	}
	return DefaultRecoverAfterConsecutiveFailures
}

// recoverDue: the feature failed recoverAfter times in a row, or a multiple of it, as upstream
// counts.
func (o options) recoverDue(failures uint) bool {
	return failures > 0 && failures%o.recoverAfter() == 0
}

// shouldRecover: recovery is due and the release was never deployed, so that nothing running is lost by starting it over. A release
// deployed once is always retried by upgrading it instead.
func shouldRecover(cfg *action.Configuration, last *release.Release, o options, failures uint) (bool, error) {
	if !o.recoverDue(failures) || last.Info == nil || last.Info.Status != rcommon.StatusFailed {
		return false, nil
	}
	history, err := cfg.Releases.History(last.Name)
	if err != nil {
		return false, fmt.Errorf("reading the history of helm release %s/%s: %w", last.Namespace, last.Name, err)
	}
	for _, ri := range history {
		rel, ok := ri.(*release.Release)
		if !ok || rel.Info == nil {
			return false, nil
		}
		switch rel.Info.Status {
		case rcommon.StatusFailed, rcommon.StatusUninstalled:
		default:
			return false, nil
		}
	}
	return true, nil
}

// recoverRelease removes a never-deployed release so that it is installed afresh: Helm
// uninstalls it, and when Helm cannot (its stale record names objects the cluster no longer
// serves), its records are deleted, which is all a release that never ran leaves behind.
func recoverRelease(cfg *action.Configuration, o options, hc configv1beta1.HelmChart, failures uint, log logr.Logger) error {
	log.Info("uninstalling a helm release that never deployed, to install it again",
		"consecutiveFailures", failures, "recoverAfterConsecutiveFailures", o.recoverAfter())
	un := o.newUninstall(cfg)
	un.KeepHistory = false
	_, err := un.Run(hc.ReleaseName)
	if err == nil {
		return nil
	}
	log.Info("helm could not uninstall the release; deleting its records", "error", err.Error())
	history, err := cfg.Releases.History(hc.ReleaseName)
	if err != nil {
		return fmt.Errorf("recovering helm release %s/%s: %w", hc.ReleaseNamespace, hc.ReleaseName, err)
	}
	var errs []error
	for _, ri := range history {
		if rel, ok := ri.(*release.Release); ok {
			if _, err := cfg.Releases.Delete(rel.Name, rel.Version); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("recovering helm release %s/%s: deleting its records: %w", hc.ReleaseNamespace, hc.ReleaseName, err)
	}
	return nil
}

// recreate restarts the Deployments, StatefulSets and DaemonSets of the release Helm rolled
// back to, for upgradeOptions.recreate: Helm 3 deleted their pods after a rollback, Helm 4
// dropped the option, and a rollout restart replaces the pods under each workload's own update
// strategy.
func recreate(ctx context.Context, cfg *action.Configuration, remote *fleet.Remote, hc configv1beta1.HelmChart, log logr.Logger) error {
	rel, err := lastRelease(cfg, hc.ReleaseName)
	if err != nil || rel == nil {
		return err
	}
	now := time.Now()
	var errs []error
	for _, doc := range releaseutil.SplitManifests(rel.Manifest) {
		var head struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name      string `json:"name"`
				Namespace string `json:"namespace"`
			} `json:"metadata"`
		}
		if yaml.Unmarshal([]byte(doc), &head) != nil {
			continue
		}
		if _, ok := restart.Kinds[head.Kind]; !ok {
			continue
		}
		ns := head.Metadata.Namespace
		if ns == "" {
			ns = hc.ReleaseNamespace
		}
		w := restart.Workload{Kind: head.Kind, Namespace: ns, Name: head.Metadata.Name}
		log.Info("recreating the pods of a workload after a rollback", "workload", w.String())
		errs = append(errs, restart.Restart(ctx, remote.Dynamic, w, now, nil))
	}
	return errors.Join(errs...)
}
