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

// Package helm deploys Helm charts to managed clusters with the Helm v4 SDK. Charts come from
// a Cache shared by the whole fleet; release records are Secrets on the managed cluster, as the
// helm CLI keeps them; each release is marked with its Stagecoach owner and a hash of the spec
// that produced it, so that an unchanged spec costs one read and another owner's release is
// never touched.
package helm

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-logr/logr"
	"helm.sh/helm/v4/pkg/action"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/postrenderer"
	release "helm.sh/helm/v4/pkg/release/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

// Deployer installs, upgrades and uninstalls Helm releases on managed clusters. It is safe for
// concurrent use; operations on the same release of the same cluster run one at a time.
type Deployer struct {
	cache *Cache
	// secrets reads registry credentials Secrets from the management cluster; may be nil.
	secrets client.Reader
	log     logr.Logger
	locks   releaseLocks
}

// Options configure a Deployer.
type Options struct {
	// Cache supplies charts; nil means a Cache with default options.
	Cache *Cache
	// Secrets reads the Secrets named by registryCredentialsConfig from the management cluster.
	Secrets client.Reader
	Log     logr.Logger
}

// NewDeployer makes a Deployer.
func NewDeployer(opts Options) (*Deployer, error) {
	if opts.Cache == nil {
		c, err := NewCache(CacheOptions{Log: opts.Log})
		if err != nil {
			return nil, err
		}
		opts.Cache = c
	}
	return &Deployer{cache: opts.Cache, secrets: opts.Secrets, log: opts.Log}, nil
}

// DeployOption changes one Deploy call.
type DeployOption func(*deployCall)

type deployCall struct {
	takeOver bool
	// secrets, when set, reads the chart's Secrets instead of the Deployer's reader.
	secrets   client.Reader
	secretsAs string
	metadata  *metadataRenderer
	failures  uint
	// patches runs before metadata; patchesHash stands for it in the release's spec hash.
	patches     postrenderer.PostRenderer
	patchesHash string
}

// SecretsFrom makes the call read the Secrets its chart names (registry credentials, CA,
// signature and provenance keys) with c, which acts as who (" as ServiceAccount ns/name" in
// messages, or empty): a tenant's profile reads them as its tenant.
func SecretsFrom(c client.Reader, who string) DeployOption {
	return func(call *deployCall) { call.secrets, call.secretsAs = c, who }
}

// TakeOver lets Deploy take a release away from another Stagecoach owner, for callers that
// have decided they win the conflict (a lower tier, in Sveltos terms).
func TakeOver() DeployOption { return func(c *deployCall) { c.takeOver = true } }

// Deploy makes the release hc names on remote match hc and values: install when there is no
// release, upgrade when the chart, version, values or options changed (or the last attempt
// failed), nothing when it is up to date. owner identifies the Stagecoach object responsible
// for the release; a release of another owner gives a *ConflictError. A chart whose action is
// Uninstall is uninstalled.
func (d *Deployer) Deploy(ctx context.Context, remote *fleet.Remote, owner string, hc configv1beta1.HelmChart,
	values map[string]any, opts ...DeployOption) (Release, error) {
	if hc.HelmChartAction == configv1beta1.HelmChartActionUninstall {
		err := d.Uninstall(ctx, remote, owner, hc)
		return Release{Name: hc.ReleaseName, Namespace: hc.ReleaseNamespace, Status: "uninstalled", Action: ActionUninstalled}, err
	}
	if err := checkRequest(owner, hc); err != nil {
		return Release{}, err
	}
	var call deployCall
	for _, o := range opts {
		o(&call)
	}
	values, err := copyValues(values)
	if err != nil {
		return Release{}, err
	}
	log := d.log.WithValues("cluster", remote.Ref.String(), "release", hc.ReleaseNamespace+"/"+hc.ReleaseName)
	creds, err := d.credentials(ctx, hc, &call)
	if err != nil {
		return Release{}, err
	}
	ch, err := d.fetch(ctx, hc, creds, &call)
	if err != nil {
		return Release{}, err
	}
	return exclusive(ctx, &d.locks, lockKey(remote, hc), func(ctx context.Context) (Release, error) {
		cfg, err := actionConfig(remote, hc.ReleaseNamespace, log)
		if err != nil {
			return Release{}, err
		}
		last, err := d.prepare(cfg, owner, hc, call.takeOver, log)
		if err != nil {
			return Release{}, err
		}
		o := resolveOptions(hc)
		if last != nil {
			again, err := shouldRecover(cfg, last, o, call.failures)
			if err != nil {
				return Release{}, err
			}
			if again {
				if err := recoverRelease(cfg, o, hc, call.failures, log); err != nil {
					return Release{}, err
				}
				last = nil
			}
		}
		want := specHash(ch, values, hc.Options, call.hashInput())
		if last != nil && upToDate(last, owner, ch, values, want, o) {
			rel := releaseOf(last, ValuesHash(values), ActionUnchanged)
			if o.RunTests && !testsPassed(last) {
				return rel, d.runTests(cfg, remote, hc, o, log)
			}
			return rel, nil
		}
		if err := d.preflight(ctx, cfg, remote, hc, creds, values, o); err != nil {
			return Release{}, err
		}
		upgrading := last != nil && last.Info.Status.String() != "uninstalled"
		rel, err := d.apply(ctx, cfg, hc, owner, ch, values, want, o, last, call.renderer(), log)
		if err != nil && upgrading && o.Atomic && o.UpgradeOptions.Recreate {
			err = errors.Join(err, recreate(ctx, cfg, remote, hc, log))
		}
		if err == nil && o.RunTests {
			err = d.runTests(cfg, remote, hc, o, log)
		}
		return rel, err
	})
}

func checkRequest(owner string, hc configv1beta1.HelmChart) error {
	switch {
	case owner == "":
		return permanent(fmt.Errorf("%w: no owner given", ErrInvalidSpec))
	case hc.ReleaseName == "" || hc.ReleaseNamespace == "":
		return permanent(fmt.Errorf("%w: releaseName and releaseNamespace are required", ErrInvalidSpec))
	}
	return nil
}

// prepare reads the last release, refuses another owner's and unlocks one a crash left pending.
// It returns nil when the release does not exist.
func (d *Deployer) prepare(cfg *action.Configuration, owner string, hc configv1beta1.HelmChart, takeOver bool,
	log logr.Logger) (*release.Release, error) {
	last, err := lastRelease(cfg, hc.ReleaseName)
	if err != nil || last == nil {
		return nil, err
	}
	o := resolveOptions(hc)
	adopt := o.InstallOptions.TakeOwnership || o.UpgradeOptions.TakeOwnership
	if err := checkOwner(last, owner, adopt, takeOver); err != nil {
		return nil, err
	}
	if err := unlock(cfg, last, log); err != nil {
		return nil, err
	}
	return last, nil
}

// upToDate: deployed, same chart and version, same owner, and the spec hash Stagecoach
// recorded matches.
// The stored values are compared as well (unless Helm merges old values in), so that a manual
// `helm upgrade` that kept Stagecoach's labels is still corrected.
func upToDate(last *release.Release, owner string, ch *chart.Chart, values map[string]any, want string, o options) bool {
	if last.Info == nil || last.Info.Status.String() != "deployed" || last.Chart == nil || last.Chart.Metadata == nil {
		return false
	}
	if last.Chart.Metadata.Name != ch.Metadata.Name || last.Chart.Metadata.Version != ch.Metadata.Version {
		return false
	}
	if last.Labels[SpecHashLabel] != want || last.Labels[OwnerLabel] != ownerLabelValue(owner) {
		return false
	}
	if o.UpgradeOptions.ReuseValues || o.UpgradeOptions.ResetThenReuseValues {
		return true
	}
	return string(ValuesHash(last.Config)) == string(ValuesHash(values))
}

// apply installs or upgrades. Helm's own errors are classified: the API server refusing the
// manifest is permanent, anything else is worth retrying.
func (d *Deployer) apply(ctx context.Context, cfg *action.Configuration, hc configv1beta1.HelmChart, owner string,
	ch *chart.Chart, values map[string]any, want string, o options, last *release.Release, metadata postrenderer.PostRenderer, log logr.Logger) (Release, error) {
	act := ActionUpgraded
	var (
		res any
		err error
	)
	if last == nil || last.Info.Status.String() == "uninstalled" {
		act = ActionInstalled
		in := o.newInstall(cfg, hc, owner)
		in.Labels[SpecHashLabel] = want
		if metadata != nil {
			in.PostRenderer = metadata
		}
		log.Info("installing helm release", "chart", ch.Metadata.Name, "version", ch.Metadata.Version)
		res, err = in.RunWithContext(ctx, ch, values)
	} else {
		up := o.newUpgrade(cfg, hc, owner, last)
		up.Labels[SpecHashLabel] = want
		if metadata != nil {
			up.PostRenderer = metadata
		}
		log.Info("upgrading helm release", "chart", ch.Metadata.Name, "version", ch.Metadata.Version,
			"from", last.Chart.Metadata.Version, "revision", last.Version)
		res, err = up.RunWithContext(ctx, hc.ReleaseName, ch, values)
	}
	rel, _ := res.(*release.Release)
	if err != nil {
		err = classifyActionError(fmt.Errorf("%s helm release %s/%s (chart %s %s): %w",
			verb(act), hc.ReleaseNamespace, hc.ReleaseName, ch.Metadata.Name, ch.Metadata.Version, err))
		if rel != nil && rel.Info != nil {
			return releaseOf(rel, ValuesHash(values), act), err
		}
		return Release{}, err
	}
	if rel == nil {
		return Release{}, errors.New("helm returned no release")
	}
	if act == ActionUpgraded && o.UpgradeOptions.UpgradeCRDs && !o.SkipCRDs {
		if err := upgradeCRDs(ctx, cfg, ch); err != nil {
			return releaseOf(rel, ValuesHash(values), act), err
		}
	}
	return releaseOf(rel, ValuesHash(values), act), nil
}

func verb(a Action) string {
	if a == ActionInstalled {
		return "installing"
	}
	return "upgrading"
}

// Uninstall removes the release hc names from remote. A release that does not exist is not an
// error; one that belongs to another owner is a *ConflictError and is left alone.
func (d *Deployer) Uninstall(ctx context.Context, remote *fleet.Remote, owner string, hc configv1beta1.HelmChart) error {
	if err := checkRequest(owner, hc); err != nil {
		return err
	}
	log := d.log.WithValues("cluster", remote.Ref.String(), "release", hc.ReleaseNamespace+"/"+hc.ReleaseName)
	_, err := exclusive(ctx, &d.locks, lockKey(remote, hc), func(ctx context.Context) (Release, error) {
		cfg, err := actionConfig(remote, hc.ReleaseNamespace, log)
		if err != nil {
			return Release{}, err
		}
		last, err := d.prepare(cfg, owner, hc, false, log)
		if err != nil || last == nil || last.Info.Status.String() == "uninstalled" {
			return Release{}, err
		}
		log.Info("uninstalling helm release", "revision", last.Version)
		if _, err := resolveOptions(hc).newUninstall(cfg).Run(hc.ReleaseName); err != nil {
			return Release{}, fmt.Errorf("uninstalling helm release %s/%s: %w", hc.ReleaseNamespace, hc.ReleaseName, err)
		}
		return Release{}, nil
	})
	return err
}
