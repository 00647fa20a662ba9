//go:build e2e

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

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/testing/notifysink"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// TestNotificationsThroughFlux: a Flux endpoint posts to Flux's real notification-controller
// (built by `make flux`, run here against the management cluster), whose Alert on the
// Kustomization named by fluxObject routes the event to a generic Provider: the sink, which
// gets the message, the reason and the event's id in its metadata.
func TestNotificationsThroughFlux(t *testing.T) {
	t.Parallel()
	const ns = "e2e-notify-flux"
	bin, err := sandbox.FindFluxBin()
	if err != nil {
		t.Fatal(err)
	}
	controller := filepath.Join(bin, "notification-controller")
	if _, err := os.Stat(controller); err != nil {
		t.Skipf("Flux's notification-controller is not built: run `make flux` (%v)", err)
	}
	installCRDs(t, filepath.Join(bin, "notification-crds"))
	ports, err := sandbox.FreePorts(testenv.Fleet.Dir, 4)
	if err != nil {
		t.Fatal(err)
	}
	addr := func(i int) string { return fmt.Sprintf("127.0.0.1:%d", ports[i]) }
	logFile, err := os.Create(filepath.Join(t.TempDir(), "notification-controller.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(controller, "--events-addr="+addr(0), "--receiverAddr="+addr(1), "--health-addr="+addr(2), "--metrics-addr="+addr(3),
		"--enable-leader-election=false", "--log-encoding=console")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+testenv.Fleet.Management.Kubeconfig)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(logFile.Name())
			t.Logf("notification-controller's log:\n%s", b)
		}
	})
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr(2)+"/readyz", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("readyz: %s", resp.Status)
		}
		return nil
	})

	sink := notifysink.New(t)
	notifysink.Start(t, ns, "endpoints", fmt.Sprintf("endpoints:\n- name: flux\n  type: Flux\n  url: http://%s/\n  fluxObject: Kustomization/%s/apps\n", addr(0), ns), "record")
	createUnstructured(t, fmt.Sprintf(`apiVersion: notification.toolkit.fluxcd.io/v1beta3
kind: Provider
metadata: {name: sink, namespace: %s}
spec: {type: generic, address: %q}
`, ns, sink.URL+"/flux"))
	createUnstructured(t, fmt.Sprintf(`apiVersion: notification.toolkit.fluxcd.io/v1beta3
kind: Alert
metadata: {name: stagecoach, namespace: %s}
spec:
  providerRef: {name: sink}
  eventSources: [{kind: Kustomization, name: apps}]
  inclusionList: ["^\\[stagecoach\\]"]
`, ns))

	// The notification-controller reads Alerts from its cache, which can lag the create: an event
	// that arrives first is discarded ("no alerts found"). Probe until one goes through.
	probe := 0
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		for _, p := range sink.Posts(func(p notifysink.Post) bool { return p.Path == "/flux" }) {
			if strings.Contains(p.Raw, "[stagecoach] probe") {
				return nil
			}
		}
		probe++
		body := fmt.Sprintf(`{"involvedObject":{"apiVersion":"kustomize.toolkit.fluxcd.io/v1","kind":"Kustomization","namespace":%q,"name":"apps"},`+
			`"severity":"info","timestamp":%q,"message":"[stagecoach] probe %d","reason":"Probe","reportingController":"e2e"}`,
			ns, time.Now().UTC().Format(time.RFC3339), probe)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr(0)+"/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		_ = resp.Body.Close()
		return fmt.Errorf("probe %d has not reached the sink yet (%s)", probe, resp.Status)
	})

	createConfigMap(t, "e2e-notify-flux", map[string]string{"cm.yaml": configMapManifest(ns, "flux", "v1")})
	createPromotion(t, promotion("e2e-notify-flux", "e2e-notify-flux", stage("dev", "dev", nil)))
	testenv.Eventually(t, timeout, func(context.Context) error {
		for _, p := range sink.Posts(func(p notifysink.Post) bool { return p.Path == "/flux" }) {
			if strings.Contains(p.Raw, "version.completed: ClusterPromotion e2e-notify-flux") && strings.Contains(p.Raw, `"reason":"VersionCompleted"`) &&
				strings.Contains(p.Raw, `"metadata":{"id":"`) {
				return nil
			}
		}
		var seen []string
		for _, p := range sink.Posts(func(p notifysink.Post) bool { return !strings.HasPrefix(p.Raw, `{"specversion"`) }) {
			seen = append(seen, p.Path+" "+p.Raw)
		}
		return fmt.Errorf("notification-controller has not posted version.completed of e2e-notify-flux to the Provider; the sink has %q", seen)
	})
}

// installCRDs creates the CRDs of dir on the management cluster, if they are not there yet.
func installCRDs(t *testing.T, dir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in %s (%v)", dir, err)
	}
	c := testenv.Client(t)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(b, &u.Object); err != nil {
			t.Fatal(err)
		}
		if err := c.Create(t.Context(), u); err != nil && !strings.Contains(err.Error(), "already exists") {
			t.Fatal(err)
		}
	}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(schema.GroupVersionKind{Group: "notification.toolkit.fluxcd.io", Version: "v1beta3", Kind: "AlertList"})
		return c.List(ctx, list)
	})
}

// createUnstructured creates the object manifest describes, and deletes it when the test ends.
func createUnstructured(t *testing.T, manifest string) {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(manifest), &u.Object); err != nil {
		t.Fatal(err)
	}
	c := testenv.Client(t)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		if err := c.Create(ctx, u.DeepCopy()); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		return nil
	})
	t.Cleanup(func() { _ = c.Delete(context.Background(), u) })
}
