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
	"testing"

	rcommon "helm.sh/helm/v4/pkg/release/common"
	release "helm.sh/helm/v4/pkg/release/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
)

func TestTestsPassed(t *testing.T) {
	hook := func(phase release.HookPhase, events ...release.HookEvent) *release.Hook {
		return &release.Hook{Name: "h", Kind: "Pod", Events: events, LastRun: release.HookExecution{Phase: phase}}
	}
	cases := []struct {
		name  string
		hooks []*release.Hook
		want  bool
	}{
		{"no tests", []*release.Hook{hook("", release.HookPostInstall)}, true},
		{"never run", []*release.Hook{hook("", release.HookTest)}, false},
		{"passed", []*release.Hook{hook(release.HookPhaseSucceeded, release.HookTest)}, true},
		{"one failed", []*release.Hook{hook(release.HookPhaseSucceeded, release.HookTest), hook(release.HookPhaseFailed, release.HookTest)}, false},
	}
	for _, c := range cases {
		if got := testsPassed(&release.Release{Hooks: c.hooks}); got != c.want {
			t.Errorf("%s: testsPassed = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestRecoverAfter(t *testing.T) {
	if got := resolveOptions(configv1beta1.HelmChart{}).recoverAfter(); got != DefaultRecoverAfterConsecutiveFailures {
		t.Errorf("default recoverAfter = %d", got)
	}
	hc := configv1beta1.HelmChart{Options: &configv1beta1.HelmOptions{InstallOptions: configv1beta1.HelmInstallOptions{RecoverAfterConsecutiveFailures: 3}}}
	o := resolveOptions(hc)
	for failures, want := range map[uint]bool{0: false, 2: false, 3: true, 4: false, 6: true} {
		// Only the count decides here; a deployed release is never recovered (tested on a sandbox).
		last := &release.Release{Name: "r", Info: &release.Info{Status: rcommon.StatusDeployed}}
		got, err := shouldRecover(nil, last, o, failures)
		if err != nil || got {
			t.Errorf("a deployed release is recovered after %d failures", failures)
		}
		if due := o.recoverDue(failures); due != want {
			t.Errorf("%d failures: due %v, want %v", failures, due, want)
		}
	}
}

func TestEnableClientCacheCachesRegistryTokens(t *testing.T) {
	d := &Deployer{}
	creds, err := d.credentials(t.Context(), configv1beta1.HelmChart{Options: &configv1beta1.HelmOptions{EnableClientCache: true}}, nil)
	if err != nil || creds == nil || !creds.CacheTokens {
		t.Fatalf("credentials = %+v, %v; want token caching", creds, err)
	}
	if creds, _ := d.credentials(t.Context(), configv1beta1.HelmChart{}, nil); creds != nil {
		t.Fatalf("credentials without options = %+v, want none", creds)
	}
}
