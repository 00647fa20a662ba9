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

package sveltoscluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/sandbox"
	"github.com/stagecoach-dev/stagecoach/internal/scheme"
)

// gateCheck passes while some ConfigMap labelled role=gate in namespace gate has data key=value.
func gateCheck(name, key, value string) libv1beta1.ClusterCheck {
	return libv1beta1.ClusterCheck{
		Name:              name,
		ResourceSelectors: []libv1beta1.ResourceSelector{{Version: "v1", Kind: "ConfigMap", Namespace: "gate", LabelFilters: []libv1beta1.LabelFilter{{Key: "role", Operation: libv1beta1.OperationEqual, Value: "gate"}}}},
		Condition: fmt.Sprintf(`function evaluate()
  for _, cm in ipairs(resources) do
    if cm.data and cm.data[%[1]q] == %[2]q then return {pass = true} end
  end
  return {pass = false, message = "no gate says %[1]s=%[2]s"}
end`, key, value),
	}
}

// TestClusterChecksAndActiveWindow: a reachable cluster stays not ready until its readiness check
// passes, a failing liveness check turns it Down and a passing one brings it back, a check with a
// Lua error says where; the active window pauses and resumes the cluster, and a bad cron
// expression is reported.
func TestClusterChecksAndActiveWindow(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "fleet")
	sb, err := sandbox.Up(ctx, sandbox.Options{Dir: dir, Clusters: []sandbox.ClusterSpec{{Name: "a"}}, Log: testr.New(t)})
	t.Cleanup(func() { _ = sandbox.Down(dir) })
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(sb.Management.Config, client.Options{Scheme: scheme.New()})
	if err != nil {
		t.Fatal(err)
	}
	startController(t, sb.Management.Config)
	kubeconfig, err := os.ReadFile(sb.Managed[0].Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	managed := kubernetes.NewForConfigOrDie(sb.Managed[0].Config)
	if _, err := managed.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gate"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "checks"}})
	register := func(name string, spec libv1beta1.SveltosClusterSpec) client.ObjectKey {
		mustCreate(t, c, secret("checks", name+"-sveltos-kubeconfig", map[string][]byte{"kubeconfig": kubeconfig}))
		mustCreate(t, c, &libv1beta1.SveltosCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "checks", Name: name}, Spec: spec})
		return objKey("checks", name)
	}
	failing := func(want string) func(libv1beta1.SveltosClusterStatus) bool {
		return func(s libv1beta1.SveltosClusterStatus) bool {
			return !s.Ready && s.FailureMessage != nil && strings.Contains(*s.FailureMessage, want)
		}
	}

	// Readiness: reachable, Healthy, but not ready until the gate opens.
	checked := register("checked", libv1beta1.SveltosClusterSpec{
		ReadinessChecks: []libv1beta1.ClusterCheck{gateCheck("gate-open", "ready", "yes")},
		LivenessChecks:  []libv1beta1.ClusterCheck{gateCheck("still-alive", "alive", "yes")},
	})
	waitForStatus(t, c, checked, "not ready, Healthy, naming the readiness check", func(s libv1beta1.SveltosClusterStatus) bool {
		return failing("readiness check gate-open: no gate says ready=yes")(s) && s.ConnectionStatus == libv1beta1.ConnectionHealthy
	})
	waitForEvent(t, c, checked, reasonReadinessCheckFailed)
	gate := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "gate", Name: "gate", Labels: map[string]string{"role": "gate"}},
		Data: map[string]string{"ready": "yes", "alive": "yes"}}
	if gate, err = managed.CoreV1().ConfigMaps("gate").Create(ctx, gate, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForStatus(t, c, checked, "ready once the gate opens", func(s libv1beta1.SveltosClusterStatus) bool {
		return s.Ready && s.FailureMessage == nil
	})

	// Liveness: a failing check counts as failed probes, and the cluster turns Down.
	gate.Data["alive"] = "no"
	if gate, err = managed.CoreV1().ConfigMaps("gate").Update(ctx, gate, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForStatus(t, c, checked, "Down, naming the liveness check", func(s libv1beta1.SveltosClusterStatus) bool {
		return failing("liveness check still-alive: no gate says alive=yes")(s) && s.ConnectionStatus == libv1beta1.ConnectionDown
	})
	waitForEvent(t, c, checked, reasonConnectionDown)
	gate.Data["alive"] = "yes"
	if _, err = managed.CoreV1().ConfigMaps("gate").Update(ctx, gate, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForStatus(t, c, checked, "ready again", func(s libv1beta1.SveltosClusterStatus) bool {
		return s.Ready && s.ConnectionStatus == libv1beta1.ConnectionHealthy
	})

	// A check that does not compile says which and where.
	broken := gateCheck("broken", "ready", "yes")
	broken.Condition = "function evaluate()\n  return {pass = }\nend"
	brokenKey := register("broken", libv1beta1.SveltosClusterSpec{ReadinessChecks: []libv1beta1.ClusterCheck{broken}})
	waitForStatus(t, c, brokenKey, "not ready, naming the check and the line", failing("readiness check broken: "))
	if s := getStatus(t, c, brokenKey); !strings.Contains(*s.FailureMessage, "line 2") {
		t.Errorf("failureMessage %q does not name the line", *s.FailureMessage)
	}

	// The active window: outside it the cluster is paused, inside it resumed. The closed window
	// is the first day of the month six months away, which is never today.
	far := (int(time.Now().UTC().Month())+5)%12 + 1
	farFrom, farTo := fmt.Sprintf("0 0 1 %d *", far), fmt.Sprintf("0 0 2 %d *", far)
	windowed := register("windowed", libv1beta1.SveltosClusterSpec{ActiveWindow: &libv1beta1.ActiveWindow{From: farFrom, To: farTo}})
	waitForSpec(t, c, windowed, "paused outside its window", func(sc *libv1beta1.SveltosCluster) bool {
		return sc.Spec.Paused && sc.Status.NextUnpause != nil && sc.Status.NextPause != nil
	})
	waitForEvent(t, c, windowed, reasonPaused)
	patchSpec(t, c, windowed, func(sc *libv1beta1.SveltosCluster) {
		sc.Spec.ActiveWindow = &libv1beta1.ActiveWindow{From: "* * * * *", To: farTo}
	})
	waitForSpec(t, c, windowed, "resumed inside its window", func(sc *libv1beta1.SveltosCluster) bool { return !sc.Spec.Paused })
	waitForEvent(t, c, windowed, reasonResumed)
	patchSpec(t, c, windowed, func(sc *libv1beta1.SveltosCluster) { sc.Spec.ActiveWindow.From = "every day" })
	waitForStatus(t, c, windowed, "reporting the bad expression", func(s libv1beta1.SveltosClusterStatus) bool {
		return s.FailureMessage != nil && strings.Contains(*s.FailureMessage, `spec.activeWindow.from: invalid cron expression "every day"`)
	})
	waitForEvent(t, c, windowed, reasonInvalidActiveWindow)
}

func waitForSpec(t *testing.T, c client.Client, key client.ObjectKey, what string, ok func(*libv1beta1.SveltosCluster) bool) {
	t.Helper()
	poll(t, fmt.Sprintf("SveltosCluster %s %s", key, what), func() (bool, string) {
		sc := &libv1beta1.SveltosCluster{}
		if err := c.Get(t.Context(), key, sc); err != nil {
			return false, err.Error()
		}
		return ok(sc), fmt.Sprintf("paused %v, status %v", sc.Spec.Paused, show(sc.Status))
	})
}
