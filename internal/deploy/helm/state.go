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
	"strings"
	"sync"

	"github.com/go-logr/logr"
	"helm.sh/helm/v4/pkg/action"
	rcommon "helm.sh/helm/v4/pkg/release/common"
	release "helm.sh/helm/v4/pkg/release/v1"
	"helm.sh/helm/v4/pkg/storage/driver"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

// lastRelease reads the newest revision of a release (one List of its Secrets), or nil when
// there is none.
func lastRelease(cfg *action.Configuration, name string) (*release.Release, error) {
	r, err := cfg.Releases.Last(name)
	if errors.Is(err, driver.ErrReleaseNotFound) || (err != nil && strings.Contains(err.Error(), "no revision for release")) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading helm release %s: %w", name, err)
	}
	rel, ok := r.(*release.Release)
	if !ok {
		return nil, fmt.Errorf("helm release %s has an unsupported format %T", name, r)
	}
	return rel, nil
}

// checkOwner refuses a release recorded for another owner. A release without an owner was not
// made by Stagecoach: it is adopted only when the HelmChart asks to take ownership.
func checkOwner(last *release.Release, owner string, adopt, takeOver bool) error {
	got := last.Labels[OwnerLabel]
	switch {
	case got == ownerLabelValue(owner):
		return nil
	case got == "" && adopt, got != "" && takeOver:
		return nil
	}
	return &ConflictError{Release: last.Name, Namespace: last.Namespace, Owner: got}
}

// unlock marks failed a release left pending-install/upgrade/rollback (or uninstalling) by an
// operation that died with its process: Helm refuses to touch a pending release, so without
// this the release would be stuck for good. The caller holds the release's lock, so no
// operation of this process is running on it.
func unlock(cfg *action.Configuration, last *release.Release, log logr.Logger) error {
	status := last.Info.Status
	if !status.IsPending() && status != rcommon.StatusUninstalling {
		return nil
	}
	log.Info("unlocking helm release left pending by an interrupted operation", "status", status, "revision", last.Version)
	last.SetStatus(rcommon.StatusFailed, fmt.Sprintf("Stagecoach marked this release failed: it was left %s by an interrupted operation", status))
	if err := cfg.Releases.Update(last); err != nil {
		return fmt.Errorf("unlocking helm release %s/%s left %s: %w", last.Namespace, last.Name, status, err)
	}
	return nil
}

// releaseLocks serialises operations per release and cluster.
type releaseLocks struct {
	mu    sync.Mutex
	slots map[string]chan struct{}
}

func (l *releaseLocks) slot(key string) chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.slots == nil {
		l.slots = map[string]chan struct{}{}
	}
	s, ok := l.slots[key]
	if !ok {
		s = make(chan struct{}, 1)
		l.slots[key] = s
	}
	return s
}

func lockKey(remote *fleet.Remote, hc configv1beta1.HelmChart) string {
	return remote.Config.Host + "|" + remote.Ref.String() + "|" + hc.ReleaseNamespace + "/" + hc.ReleaseName
}

// exclusive runs fn holding the release's lock. fn runs to completion even when ctx is done:
// Helm keeps working in the background after a cancelled call, and the lock must stay held
// until it stops, or the next call would see its pending release and unlock it under it. The
// caller gets ctx's error at once.
func exclusive(ctx context.Context, locks *releaseLocks, key string, fn func(context.Context) (Release, error)) (Release, error) {
	slot := locks.slot(key)
	select {
	case slot <- struct{}{}:
	case <-ctx.Done():
		return Release{}, ctx.Err()
	}
	type result struct {
		rel Release
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() { <-slot }()
		rel, err := fn(context.WithoutCancel(ctx))
		done <- result{rel, err}
	}()
	select {
	case r := <-done:
		return r.rel, r.err
	case <-ctx.Done():
		return Release{}, fmt.Errorf("%w (the Helm operation goes on in the background)", ctx.Err())
	}
}
