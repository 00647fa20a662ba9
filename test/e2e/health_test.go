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
	"os"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1beta1 "github.com/stagecoach-dev/stagecoach/api/config/v1beta1"
	libv1beta1 "github.com/stagecoach-dev/stagecoach/api/lib/v1beta1"
	"github.com/stagecoach-dev/stagecoach/internal/testing/testenv"
)

// gateCheck passes once the ConfigMap "gate" says ready: "yes".
func gateCheck(ns string) libv1beta1.ValidateHealth {
	return libv1beta1.ValidateHealth{
		Name: "gate-open", FeatureID: libv1beta1.FeatureResources, Version: "v1", Kind: "ConfigMap", Namespace: ns,
		LabelFilters: []libv1beta1.LabelFilter{{Key: "role", Operation: libv1beta1.OperationEqual, Value: "gate"}},
		EvaluateCEL:  []libv1beta1.CELRule{{Name: "ready", Rule: "self.data.ready == 'yes'"}},
	}
}

func gateManifest(ns, ready string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: gate\n  namespace: %s\n  labels: {role: gate}\ndata:\n  ready: %q\n", ns, ready)
}

// TestFailingCheckHoldsTheWave: with maxUpdate 1 the first cluster's failing check keeps the
// others waiting, the statuses say which check and why, and fixing the content lets the wave go on.
func TestFailingCheckHoldsTheWave(t *testing.T) {
	t.Parallel()
	const ns = "e2e-gate"
	createConfigMap(t, "e2e-gate", map[string]string{"gate.yaml": gateManifest(ns, "no")})
	p := sveltosProfile("e2e-gate", map[string]string{"fleet": "e2e"})
	p.Spec.MaxUpdate = ptr(intstr.FromInt32(1))
	p.Spec.PolicyRefs = []configv1beta1.PolicyRef{configMapRef("e2e-gate")}
	p.Spec.ValidateHealths = []libv1beta1.ValidateHealth{gateCheck(ns)}
	createProfile(t, p)

	// The first available cluster in order takes the only slot and fails its check.
	var first string
	c := testenv.Client(t)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got := &configv1beta1.ClusterProfile{}
		if err := c.Get(ctx, client.ObjectKey{Name: p.Name}, got); err != nil {
			return err
		}
		if len(got.Status.FailedClusters) == 0 || !strings.Contains(got.Status.FailedClusters[0].FailureMessage, "gate-open") {
			return fmt.Errorf("failedClusters %+v", got.Status.FailedClusters)
		}
		first = got.Status.FailedClusters[0].ClusterRef.Name
		return nil
	})
	cs := expectFeature(t, p.Name, first, libv1beta1.FeatureResources, libv1beta1.FeatureStatusFailed)
	msg := failureMessage(cs, libv1beta1.FeatureResources)
	for _, want := range []string{`"gate-open"`, "ConfigMap " + ns + "/gate", "ready"} {
		if !strings.Contains(msg, want) {
			t.Errorf("failure message %q does not mention %s", msg, want)
		}
	}
	started := 0
	for _, cluster := range rolloutClusters {
		if _, err := summary(t.Context(), t, p.Name, cluster); err == nil {
			started++
		}
	}
	if started == len(rolloutClusters) {
		t.Errorf("every cluster got the update while %s's check fails", first)
	}

	updateConfigMap(t, "e2e-gate", map[string]string{"gate.yaml": gateManifest(ns, "yes")})
	waitRolledOut(t, p.Name, currentSpec(t, p.Name))
}

// TestBrokenChecksAreReported: an endless Lua loop and a CEL type error each end as a clear
// message within seconds, while another profile on the same cluster keeps deploying.
func TestBrokenChecksAreReported(t *testing.T) {
	t.Parallel()
	loop := gateCheck("e2e-broken-lua")
	loop.EvaluateCEL, loop.Script = nil, "function evaluate()\n  while true do end\nend\n"
	typeErr := gateCheck("e2e-broken-cel")
	typeErr.EvaluateCEL = []libv1beta1.CELRule{{Name: "arithmetic", Rule: "self.data.ready + 1 > 0"}}
	for name, check := range map[string]libv1beta1.ValidateHealth{"e2e-broken-lua": loop, "e2e-broken-cel": typeErr} {
		createConfigMap(t, name, map[string]string{"gate.yaml": gateManifest(name, "yes")})
		p := sveltosProfile(name, map[string]string{"env": "staging"})
		p.Spec.PolicyRefs = []configv1beta1.PolicyRef{configMapRef(name)}
		p.Spec.ValidateHealths = []libv1beta1.ValidateHealth{check}
		createProfile(t, p)
	}
	createConfigMap(t, "e2e-broken-ok", map[string]string{"cm.yaml": configMapManifest("e2e-broken-ok", "settings", "fine")})
	ok := sveltosProfile("e2e-broken-ok", map[string]string{"env": "staging"})
	ok.Spec.PolicyRefs = []configv1beta1.PolicyRef{configMapRef("e2e-broken-ok")}
	createProfile(t, ok)

	for name, want := range map[string]string{"e2e-broken-lua": "endless loop", "e2e-broken-cel": "arithmetic"} {
		cs := expectFeature(t, name, "staging", libv1beta1.FeatureResources, libv1beta1.FeatureStatusFailedNonRetriable)
		if msg := failureMessage(cs, libv1beta1.FeatureResources); !strings.Contains(msg, want) {
			t.Errorf("%s: failure message %q does not mention %q", name, msg, want)
		} else {
			t.Logf("%s: %s", name, msg)
		}
	}
	waitConfigMapValue(t, managed(t, "staging"), "e2e-broken-ok", "settings", "fine")
}

// seed000Check is seed 000's post-delay check, as written there: it reads a Secret from the
// managed cluster with getResource and answers in the status form.
const seed000Check = `function evaluate()
  hs = {}
  hs.status = "Degraded"
  hs.message = "Missing Secret or ClusterIssuer not ready"
  local secret = getResource("v1", "Secret", "cert-manager", "cloudflare-api-token")
  local issuerReady = false
  if obj.status and obj.status.conditions then
    for _, cond in ipairs(obj.status.conditions) do
      if cond.type == "Ready" and cond.status == "True" then
        issuerReady = true
        break
      end
    end
  end
  if secret and issuerReady then
    hs.status = "Healthy"
    hs.message = "ClusterIssuer and Secret are ready"
  end
  return hs
end
`

const seed000Secret = `apiVersion: v1
kind: Secret
metadata:
  name: cloudflare-api-token
  namespace: cert-manager
type: Opaque
stringData:
  api-token: test-token
`

const seed000Issuer = `apiVersion: cert-manager.io/v1
kind: ClusterIssuer
metadata:
  name: cloudflare-issuer
spec:
  acme:
    server: https://acme-staging-v02.api.letsencrypt.org/directory
`

// TestGetResourceCheck runs seed 000's getResource check: it passes once the Secret exists on
// the managed cluster and the ClusterIssuer is Ready, and fails on a cluster without the Secret.
func TestGetResourceCheck(t *testing.T) {
	t.Parallel()
	crd, err := os.ReadFile("../../testdata/charts/cert-manager/crds/clusterissuers.yaml")
	if err != nil {
		t.Fatal(err)
	}
	check := libv1beta1.ValidateHealth{
		Name: "cert-manager-resources-health", FeatureID: libv1beta1.FeatureResources,
		Group: "cert-manager.io", Version: "v1", Kind: "ClusterIssuer", Namespace: "cert-manager", Script: seed000Check,
	}
	createConfigMap(t, "e2e-getresource", map[string]string{"crd.yaml": string(crd), "issuer.yaml": seed000Issuer, "secret.yaml": seed000Secret})
	createConfigMap(t, "e2e-getresource-nosecret", map[string]string{"crd.yaml": string(crd), "issuer.yaml": seed000Issuer})
	for name, env := range map[string]string{"e2e-getresource": "prod", "e2e-getresource-nosecret": "qa"} {
		p := sveltosProfile(name, map[string]string{"env": env})
		p.Spec.PolicyRefs = []configv1beta1.PolicyRef{configMapRef(name)}
		p.Spec.ValidateHealths = []libv1beta1.ValidateHealth{check}
		createProfile(t, p)
	}
	for _, cluster := range []string{"prod", "qa"} {
		markIssuerReady(t, cluster)
	}
	expectFeature(t, "e2e-getresource", "prod", libv1beta1.FeatureResources, libv1beta1.FeatureStatusProvisioned)
	cs := expectFeature(t, "e2e-getresource-nosecret", "qa", libv1beta1.FeatureResources, libv1beta1.FeatureStatusFailed)
	if msg := failureMessage(cs, libv1beta1.FeatureResources); !strings.Contains(msg, "Missing Secret or ClusterIssuer not ready") {
		t.Errorf("failure message %q is not the script's", msg)
	}
}

// markIssuerReady plays cert-manager on a managed cluster: it sets the ClusterIssuer Ready.
func markIssuerReady(t *testing.T, cluster string) {
	t.Helper()
	var dyn dynamic.Interface
	for _, c := range testenv.Fleet.Managed {
		if c.Name == cluster {
			dyn = dynamic.NewForConfigOrDie(c.Config)
		}
	}
	gvr := schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "clusterissuers"}
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		issuer, err := dyn.Resource(gvr).Get(ctx, "cloudflare-issuer", metav1.GetOptions{})
		if err != nil {
			return err
		}
		cond := map[string]any{"type": "Ready", "status": "True", "reason": "ACMEAccountRegistered", "message": "registered"}
		if err := unstructured.SetNestedSlice(issuer.Object, []any{cond}, "status", "conditions"); err != nil {
			return err
		}
		_, err = dyn.Resource(gvr).UpdateStatus(ctx, issuer, metav1.UpdateOptions{})
		return err
	})
}

// TestContentEditRollsOutInWaves edits the ConfigMap a profile deploys with maxUpdate 1: the edit
// reaches one cluster at a time like a spec change. Its content fails the health check there, so
// that cluster holds the only slot and the other clusters keep the content they have.
func TestContentEditRollsOutInWaves(t *testing.T) {
	t.Parallel()
	const ns = "e2e-content-wave"
	createConfigMap(t, ns, map[string]string{"gate.yaml": gateManifest(ns, "yes")})
	p := sveltosProfile(ns, map[string]string{"fleet": "e2e"})
	p.Spec.MaxUpdate = ptr(intstr.FromInt32(1))
	p.Spec.PolicyRefs = []configv1beta1.PolicyRef{configMapRef(ns)}
	p.Spec.ValidateHealths = []libv1beta1.ValidateHealth{gateCheck(ns)}
	createProfile(t, p)
	waitRolledOut(t, p.Name, currentSpec(t, p.Name))

	updateConfigMap(t, ns, map[string]string{"gate.yaml": gateManifest(ns, "no")})
	var first string
	c := testenv.Client(t)
	testenv.Eventually(t, timeout, func(ctx context.Context) error {
		got := &configv1beta1.ClusterProfile{}
		if err := c.Get(ctx, client.ObjectKey{Name: p.Name}, got); err != nil {
			return err
		}
		if len(got.Status.FailedClusters) == 0 || !strings.Contains(got.Status.FailedClusters[0].FailureMessage, "gate-open") {
			return fmt.Errorf("failedClusters %+v", got.Status.FailedClusters)
		}
		first = got.Status.FailedClusters[0].ClusterRef.Name
		return nil
	})
	for _, cluster := range rolloutClusters {
		gate, err := managed(t, cluster).CoreV1().ConfigMaps(ns).Get(t.Context(), "gate", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("%s: %v", cluster, err)
		}
		want := "yes"
		if cluster == first {
			want = "no"
		}
		if got := gate.Data["ready"]; got != want {
			t.Errorf("%s has ready=%q, want %q: the edit went past the wave", cluster, got, want)
		}
	}

	updateConfigMap(t, ns, map[string]string{"gate.yaml": gateManifest(ns, "yes")})
	waitRolledOut(t, p.Name, currentSpec(t, p.Name))
}
