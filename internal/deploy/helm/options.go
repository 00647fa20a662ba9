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
	"maps"
	"time"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/kube"
	release "helm.sh/helm/v4/pkg/release/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
)

// Defaults of HelmOptions that Helm itself does not share.
const (
	DefaultTimeout    = 5 * time.Minute
	DefaultMaxHistory = 2
)

// OwnerLabel is the release label (a label on the release Secrets) naming the Stagecoach
// object that manages the release.
const OwnerLabel = "stagecoach.dev/owner"

// options are a HelmChart's options with every default applied, so that nil checks stay here.
type options struct {
	configv1beta1.HelmOptions
	timeout         time.Duration
	createNamespace bool
	replace         bool
	maxHistory      int
}

func resolveOptions(hc configv1beta1.HelmChart) options {
	var o options
	if hc.Options != nil {
		o.HelmOptions = *hc.Options
	}
	o.timeout = DefaultTimeout
	if o.Timeout != nil && o.Timeout.Duration > 0 {
		o.timeout = o.Timeout.Duration
	}
	o.createNamespace = o.InstallOptions.CreateNamespace == nil || *o.InstallOptions.CreateNamespace
	o.replace = o.InstallOptions.Replace == nil || *o.InstallOptions.Replace
	o.maxHistory = DefaultMaxHistory
	if o.UpgradeOptions.MaxHistory > 0 {
		o.maxHistory = o.UpgradeOptions.MaxHistory
	}
	return o
}

// waitStrategy: wait (or atomic, which needs it) waits for kstatus readiness; otherwise Helm
// only waits for hooks.
func (o options) waitStrategy() kube.WaitStrategy {
	if o.Wait || o.Atomic {
		return kube.StatusWatcherStrategy
	}
	return kube.HookOnlyStrategy
}

// releaseLabels are the labels written on the release: the user's, then the owner mark, which
// the user cannot override.
func (o options) releaseLabels(owner string) map[string]string {
	labels := maps.Clone(o.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[OwnerLabel] = ownerLabelValue(owner)
	return labels
}

func (o options) newInstall(cfg *action.Configuration, hc configv1beta1.HelmChart, owner string) *action.Install {
	in := action.NewInstall(cfg)
	in.ReleaseName = hc.ReleaseName
	in.Namespace = hc.ReleaseNamespace
	in.CreateNamespace = o.createNamespace
	in.Replace = o.replace
	in.TakeOwnership = o.InstallOptions.TakeOwnership
	in.DisableHooks = o.DisableHooks || o.InstallOptions.DisableHooks
	in.Timeout = o.timeout
	in.WaitStrategy = o.waitStrategy()
	in.WaitForJobs = o.WaitForJobs
	in.RollbackOnFailure = o.Atomic
	in.SkipCRDs = o.SkipCRDs
	in.SkipSchemaValidation = o.SkipSchemaValidation
	in.DisableOpenAPIValidation = o.DisableOpenAPIValidation
	in.DependencyUpdate = o.DependencyUpdate
	in.Description = o.Description
	in.Labels = o.releaseLabels(owner)
	in.SubNotes = o.UpgradeOptions.SubNotes
	in.PostRenderStrategy = postRenderStrategy(o.PostRenderStrategy)
	// Helm 4 installs with server-side apply. Stagecoach is the source of truth for what it
	// deploys, so it takes fields over from other managers rather than failing on conflicts.
	in.ServerSideApply = true
	in.ForceConflicts = true
	return in
}

// newUpgrade keeps the apply method the release was installed with (Helm's "auto"), except
// that force means replace, which only client-side apply can do.
func (o options) newUpgrade(cfg *action.Configuration, hc configv1beta1.HelmChart, owner string, last *release.Release) *action.Upgrade {
	up := action.NewUpgrade(cfg)
	up.Namespace = hc.ReleaseNamespace
	up.Timeout = o.timeout
	up.WaitStrategy = o.waitStrategy()
	up.WaitForJobs = o.WaitForJobs
	up.RollbackOnFailure = o.Atomic
	up.CleanupOnFail = o.UpgradeOptions.CleanupOnFail
	up.DisableHooks = o.DisableHooks || o.UpgradeOptions.DisableHooks
	up.SkipCRDs = o.SkipCRDs
	up.SkipSchemaValidation = o.SkipSchemaValidation
	up.DisableOpenAPIValidation = o.DisableOpenAPIValidation
	up.DependencyUpdate = o.DependencyUpdate
	up.MaxHistory = o.maxHistory
	up.Description = o.Description
	up.Labels = o.releaseLabels(owner)
	up.SubNotes = o.UpgradeOptions.SubNotes
	up.TakeOwnership = o.UpgradeOptions.TakeOwnership
	up.PostRenderStrategy = postRenderStrategy(o.PostRenderStrategy)
	up.ReuseValues = o.UpgradeOptions.ReuseValues
	up.ResetThenReuseValues = o.UpgradeOptions.ResetThenReuseValues
	// Helm copies the previous values when none are given; Stagecoach passes the complete
	// values every time, so "none" must mean the chart's defaults, or removing the last value
	// from a profile would never reach the cluster.
	up.ResetValues = o.UpgradeOptions.ResetValues || (!up.ReuseValues && !up.ResetThenReuseValues)
	ssa := last.ApplyMethod == string(release.ApplyMethodServerSideApply) && !o.UpgradeOptions.Force
	if ssa {
		up.ServerSideApply, up.ForceConflicts = "true", true
	} else {
		up.ServerSideApply, up.ForceReplace = "false", o.UpgradeOptions.Force
	}
	return up
}

func (o options) newUninstall(cfg *action.Configuration) *action.Uninstall {
	un := action.NewUninstall(cfg)
	un.KeepHistory = o.UninstallOptions.KeepHistory
	un.DisableHooks = o.DisableHooks || o.UninstallOptions.DisableHooks
	un.DeletionPropagation = o.UninstallOptions.DeletionPropagation
	if un.DeletionPropagation == "" {
		un.DeletionPropagation = "background"
	}
	un.Timeout = o.timeout
	un.WaitStrategy = o.waitStrategy()
	un.Description = o.Description
	un.IgnoreNotFound = true
	return un
}

func postRenderStrategy(s configv1beta1.PostRenderStrategy) action.PostRenderStrategy {
	switch s {
	case configv1beta1.PostRenderSeparate:
		return action.PostRenderStrategySeparate
	case configv1beta1.PostRenderNoHooks:
		return action.PostRenderStrategyNoHooks
	default:
		return action.PostRenderStrategyCombined
	}
}
