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
	"errors"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

func TestParseValues(t *testing.T) {
	v, err := ParseValues("admissionController:\n  replicas: 3\n")
	if err != nil || v["admissionController"].(map[string]any)["replicas"] != float64(3) {
		t.Fatalf("got %v, %v", v, err)
	}
	if v, err := ParseValues("  \n"); err != nil || len(v) != 0 {
		t.Fatalf("empty values: %v, %v", v, err)
	}
	for _, bad := range []string{"a: [1, 2", "- a\n- b\n", "a: 1\n b: 2\n"} {
		_, err := ParseValues(bad)
		if !errors.Is(err, ErrInvalidValues) || !IsPermanent(err) || !strings.Contains(err.Error(), "not a YAML mapping") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestValuesHash(t *testing.T) {
	a, _ := ParseValues("x: 1\nz: {b: 2, a: 1}\n")
	b := map[string]any{"z": map[string]any{"a": 1, "b": int64(2)}, "x": 1}
	if !bytes.Equal(ValuesHash(a), ValuesHash(b)) {
		t.Error("equal values in another order or number type hash differently")
	}
	if bytes.Equal(ValuesHash(a), ValuesHash(map[string]any{"x": 2})) {
		t.Error("different values hash equal")
	}
	if !bytes.Equal(ValuesHash(nil), ValuesHash(map[string]any{})) || len(ValuesHash(nil)) != 32 {
		t.Error("nil and empty values must hash equal, as SHA-256")
	}
}

func TestOwnerLabelValue(t *testing.T) {
	long := strings.Repeat("kyverno-rollout-auto-", 5)
	for _, owner := range []string{"kyverno-rollout-auto-dev", "dev/kyverno-rollout-auto-dev-sveltos-dev01", long, "ClusterSummary dev/x", "///"} {
		got := ownerLabelValue(owner)
		if errs := validation.IsValidLabelValue(got); len(errs) > 0 {
			t.Errorf("%q → %q: %v", owner, got, errs)
		}
	}
	if got := ownerLabelValue("kyverno-rollout-auto-dev"); got != "kyverno-rollout-auto-dev" {
		t.Errorf("a valid label value was changed to %q", got)
	}
	if ownerLabelValue("a/b") == ownerLabelValue("a.b") {
		t.Error("two owners share a label value")
	}
}

const manifestV1 = `---
# Source: webapp/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
  - port: 80
---
# Source: webapp/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
`

func TestManifestGVKs(t *testing.T) {
	got := manifestGVKs(manifestV1 + "---\napiVersion: cert-manager.io/v1\nkind: ClusterIssuer\nmetadata:\n  name: x\n---\n# empty\n")
	want := []string{"ClusterIssuer.v1.cert-manager.io", "Deployment.v1.apps", "Service.v1."}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// TestManifestDiffRedactsSecrets: a rendered Secret's values never reach a dry-run report, but a
// changed value still shows as a change.
func TestManifestDiffRedactsSecrets(t *testing.T) {
	secret := func(password string) string {
		return "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '{\"data\":{\"password\":\"" +
			password + "\"}}'\ndata:\n  password: " + password + "\nstringData:\n  token: plain-" + password + "\n"
	}
	d := manifestDiff(manifestV1+secret("c2VjcmV0MQ=="), manifestV1+secret("c2VjcmV0Mg=="))
	for _, leaked := range []string{"c2VjcmV0MQ==", "c2VjcmV0Mg==", "plain-"} {
		if strings.Contains(d, leaked) {
			t.Errorf("the diff shows the secret value %q:\n%s", leaked, d)
		}
	}
	if !strings.Contains(d, "-  password: (redacted ") || !strings.Contains(d, "+  password: (redacted ") {
		t.Errorf("a changed secret value does not show as a change:\n%s", d)
	}
	if d := manifestDiff(secret("c2VjcmV0MQ=="), secret("c2VjcmV0MQ==")); d != "" {
		t.Errorf("an unchanged Secret shows in the diff:\n%s", d)
	}
}

func TestManifestDiff(t *testing.T) {
	if d := manifestDiff(manifestV1, manifestV1); d != "" {
		t.Fatalf("identical manifests differ:\n%s", d)
	}
	v2 := strings.Replace(manifestV1, "replicas: 2", "replicas: 3", 1) + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-info\n"
	d := manifestDiff(manifestV1, v2)
	for _, want := range []string{"--- a/Deployment//web", "-  replicas: 2", "+  replicas: 3", "--- /dev/null", "+++ b/ConfigMap//web-info"} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
	if strings.Contains(d, "Service") {
		t.Errorf("the unchanged Service is in the diff:\n%s", d)
	}
}
