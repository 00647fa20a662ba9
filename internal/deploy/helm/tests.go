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
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"helm.sh/helm/v4/pkg/action"
	release "helm.sh/helm/v4/pkg/release/v1"
	corev1 "k8s.io/api/core/v1"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/fleet"
)

// logTailLines bounds the log of a failed test pod quoted in the error.
const logTailLines = 10

// testsPassed reports whether every test hook of rel ran and succeeded at its last run, as
// Helm records it on the release. A release whose chart has no tests has passed them.
func testsPassed(rel *release.Release) bool {
	for _, h := range testHooks(rel) {
		if h.LastRun.Phase != release.HookPhaseSucceeded {
			return false
		}
	}
	return true
}

func testHooks(rel *release.Release) []*release.Hook {
	var hooks []*release.Hook
	for _, h := range rel.Hooks {
		for _, e := range h.Events {
			if e == release.HookTest {
				hooks = append(hooks, h)
				break
			}
		}
	}
	return hooks
}

// runTests runs the chart's tests (`helm test`) on the release. A failing test is an error
// naming the test, with the tail of its pod's log when the cluster has it. Helm records each
// test's outcome on the release, so a release whose tests failed is tested again at the next
// Deploy even when nothing else changed.
func (d *Deployer) runTests(cfg *action.Configuration, remote *fleet.Remote, hc configv1beta1.HelmChart, o options,
	log logr.Logger) error {
	t := action.NewReleaseTesting(cfg)
	t.Namespace = hc.ReleaseNamespace
	t.Timeout = o.timeout
	log.Info("running helm chart tests")
	reli, shutdown, err := t.Run(hc.ReleaseName)
	if err == nil {
		return runShutdown(shutdown)
	}
	rel, _ := reli.(*release.Release)
	msg := failedTests(remote, hc.ReleaseNamespace, rel)
	_ = runShutdown(shutdown) // deleting hooks by their policy comes after reading their logs
	return fmt.Errorf("chart tests of helm release %s/%s failed%s: %w", hc.ReleaseNamespace, hc.ReleaseName, msg, err)
}

func runShutdown(shutdown action.ExecuteShutdownFunc) error {
	if shutdown == nil {
		return nil
	}
	return shutdown()
}

// failedTests names the tests that failed and quotes the end of each failed test pod's log.
func failedTests(remote *fleet.Remote, namespace string, rel *release.Release) string {
	if rel == nil {
		return ""
	}
	var b strings.Builder
	for _, h := range testHooks(rel) {
		if h.LastRun.Phase != release.HookPhaseFailed {
			continue
		}
		fmt.Fprintf(&b, "; test %s (%s) failed", h.Name, h.Kind)
		if h.Kind == "Pod" {
			if tail := podLogTail(remote, namespace, h.Name); tail != "" {
				fmt.Fprintf(&b, ", its log ends with: %s", tail)
			}
		}
	}
	return b.String()
}

// logTailBytes bounds the log tail quoted in a failure.
const logTailBytes = 2048

// podLogTail reads the last lines of a pod's log, or nothing when the cluster cannot give it
// quickly: the log is a help, not a condition of the error.
func podLogTail(remote *fleet.Remote, namespace, pod string) string {
	if remote.Core == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Bounded in lines and in bytes: the tail ends up in status and in an Event.
	lines, limit := int64(logTailLines), int64(logTailBytes)
	data, err := remote.Core.Pods(namespace).GetLogs(pod, &corev1.PodLogOptions{TailLines: &lines, LimitBytes: &limit}).DoRaw(ctx)
	if err != nil {
		return ""
	}
	return strings.ReplaceAll(string(bytes.TrimSpace(data)), "\n", " | ")
}
